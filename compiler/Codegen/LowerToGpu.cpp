//===- LowerToGpu.cpp - graphs of fusions to kernels and launches ---------===//

#include "Codegen/AttentionShape.h"
#include "Codegen/DecodeAttention.h"
#include "Codegen/FlashAttention.h"
#include "Codegen/KernelBuilder.h"
#include "Codegen/KernelWrites.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/Passes.h"
#include "Codegen/RowVariants.h"
#include "Codegen/RuntimeSizes.h"
#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/Tiling.h"
#include "Codegen/TransposeKernel.h"
#include "Codegen/SimtMatmul.h"
#include "Codegen/WarpMmaMatmul.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKLOWERTOGPU
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// Kernels index with 32 bits when no buffer has more elements than this
/// (so that an index plus a grid-stride step, at most 2^30, cannot wrap).
static constexpr int64_t kMaxSmallBufferElements = int64_t(1) << 30;

/// The element type a tensor is stored in: i1 as bytes.
static Type getStoredElementType(RankedTensorType type) {
  Type elementType = type.getElementType();
  if (elementType.isSignlessInteger(1))
    return IntegerType::get(type.getContext(), 8);
  return elementType;
}

/// The memref a tensor lives in on the device (dynamic where its shape is
/// symbolic).
static MemRefType getBufferType(Type tensor) {
  auto type = cast<RankedTensorType>(tensor);
  return MemRefType::get(type.getShape(), getStoredElementType(type));
}

/// The largest element count of a tensor of `type` under `bounds`, or
/// nullopt when a symbol is unbounded.
static std::optional<int64_t> getLargestElementCount(RankedTensorType type,
                                                     DictionaryAttr bounds) {
  std::optional<Dim> count = elementCount(getDims(type));
  return count ? getLargestSize(*count, bounds) : std::nullopt;
}

/// A graph the lowering takes: a body of tensor arguments holding fusions
/// and the return only; fusions read
/// graph arguments or other fusions' results; each graph result is a
/// distinct fusion result (fk-form-fusions and fk-fuse make it so).
static LogicalResult checkGraphBody(func::FuncOp graph) {
  if (graph.isExternal())
    return graph.emitOpError()
           << "is a declaration; only graphs with a body become kernels";
  for (Type type : graph.getFunctionType().getInputs())
    if (!isa<RankedTensorType>(type))
      return graph.emitOpError()
             << "takes " << type << "; graph arguments are tensors";
  Block &block = graph.getBody().front();
  for (Operation &op : block) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (!isa<FusionOp>(op)) {
      if (auto constant = dyn_cast<ConstantOp>(op))
        if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
            dense && dense.isSplat() && op.use_empty())
          continue;
      return op.emitOpError()
             << "is outside a fusion; only fusions become kernels (run "
                "fk-form-fusions first)";
    }
  }
  llvm::SmallPtrSet<Value, 8> written;
  for (Value result : block.getTerminator()->getOperands())
    if (!result.getDefiningOp<FusionOp>() || !written.insert(result).second)
      return block.getTerminator()->emitOpError()
             << "returns a value that no fusion of its own writes (run "
                "fk-form-fusions first)";
  return success();
}

namespace {
/// Lowers one graph into a host function of launches and the kernels.
class GraphLowering {
public:
  GraphLowering(func::FuncOp graph, gpu::GPUModuleOp kernels)
      : graph(graph), kernels(kernels), b(graph) {}

  LogicalResult run();

private:
  func::FuncOp createHostFunction();
  /// The kernels of `fusion`, the `index`th of the graph, and their
  /// launches: those of each of its row variants (RowVariants.h), then its
  /// own, each guarded by the rows of the runs it serves.
  LogicalResult lowerFusion(FusionOp fusion, int64_t index);
  /// Maps the result of a fusion that only reshapes a value in the
  /// workspace to a view of that value's buffer, launching nothing; false
  /// (nothing done) for any other fusion.
  bool lowerReshapeAsView(FusionOp fusion);
  /// The kernels of `fusion` as its fk.tiling says, named after `name`.
  LogicalResult lowerFusionKernels(FusionOp fusion, const std::string &name);
  /// The decode-attention kernel of `fusion`, and its combining kernel when
  /// the keys are split among blocks; `arguments` are the fusion's input
  /// and result buffers.
  LogicalResult lowerDecodeAttention(FusionOp fusion, TilingAttr tiling,
                                     ArrayRef<Value> arguments,
                                     const std::string &name);
  /// The split-K tensor-core kernel of `fusion` and the kernel that sums
  /// its splits; `arguments` are the operands' tensor maps, then the
  /// fusion's input and result buffers.
  LogicalResult lowerSplitKMatmul(FusionOp fusion,
                                  const TensorCoreTiling &tiling,
                                  TargetAttr target,
                                  ArrayRef<Value> arguments,
                                  const std::string &name);
  /// A kernel named `name` on `arguments`, filled by `build`, and its
  /// launch.
  LogicalResult
  lowerKernel(Location loc, const std::string &name, ArrayRef<Value> arguments,
              function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> build);
  /// A kernel whose blocks split the work, writing partial results to the
  /// `workspace` buffers, and the kernel `name`_combine that combines them
  /// and stores the results. The split kernel takes `leading` (tensor
  /// maps), the workspace and the fusion's input buffers; the combining
  /// kernel the workspace, then the input and result buffers (`buffers`).
  LogicalResult lowerSplitAndCombine(
      FusionOp fusion, const std::string &name, ArrayRef<Value> leading,
      ArrayRef<Value> workspace, ArrayRef<Value> buffers,
      function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> buildSplit,
      function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> buildCombine);
  /// An empty kernel named `name` taking `arguments`.
  gpu::GPUFuncOp createKernel(Location loc, const std::string &name,
                              ValueRange arguments);
  /// Launches `kernel` as `shape` says on `arguments`.
  void launch(Location loc, gpu::GPUFuncOp kernel, const LaunchShape &shape,
              ValueRange arguments);

  //===--- Sizes given at run time (RuntimeSizes.h) ----------------------===//

  /// Reads each symbol of the graph from the first input dimension that is
  /// that symbol alone, at the host function's entry.
  LogicalResult bindSymbols(Block *entry);
  /// The host value of `dim`.
  Value hostSize(Location loc, const Dim &dim);
  /// A new buffer for a fusion result of `type`; a symbolic one is sized
  /// per run, and its largest bytes (under the graph's bounds) are what
  /// the workspace reserves, or without bounds each run places it.
  Value allocate(Location loc, RankedTensorType type);
  /// A buffer of `type` whose leading dimension holds `batches`: `type`
  /// itself when they are static or bounded, else sized per run at the
  /// run's batches and viewed as `type` (its leading extent a placeholder).
  Value allocateBatched(Location loc, MemRefType type, const Dim &batches);
  /// What a kernel takes for the buffer of a tensor of `type`: the buffer,
  /// or for a symbolic shape its collapsed, statically shaped view.
  Value kernelOperand(Location loc, Value buffer, RankedTensorType type);

  func::FuncOp graph, host;
  gpu::GPUModuleOp kernels;
  OpBuilder b;
  /// The buffer of each tensor value of the graph.
  DenseMap<Value, Value> buffers;
  /// The graph's bounds on its symbols (`where S <= 4096`), or null.
  DictionaryAttr bounds;
  /// The host value of each symbol.
  llvm::StringMap<Value> symbolValues;
  /// While the kernels of a fusion with row variants are lowered, the runs
  /// they serve: those of more than `above` and at most `atMost` rows.
  /// Their launches have no blocks for other runs, and carry
  /// kRunVariantAttrName: [`fusion` (the fusion's index), `above`].
  struct RunRows {
    Dim rows;
    int64_t above;
    std::optional<int64_t> atMost;
    int64_t fusion;
  };
  std::optional<RunRows> runRows;
};
} // namespace

func::FuncOp GraphLowering::createHostFunction() {
  SmallVector<Type> argumentTypes;
  for (Type type : graph.getArgumentTypes())
    argumentTypes.push_back(getBufferType(type));
  for (Type type : graph.getResultTypes())
    argumentTypes.push_back(getBufferType(type));
  auto fn = func::FuncOp::create(b, graph.getLoc(), graph.getName(),
                                 b.getFunctionType(argumentTypes, {}));
  unsigned numInputs = graph.getNumArguments();
  // A symbolic tensor's argument keeps the monomials its memref type
  // cannot hold.
  auto symbolicDims = [&](NamedAttrList &attrs, Type type) {
    if (isSymbolic(type))
      attrs.set(kSymbolicDimsAttrName,
                cast<RankedTensorType>(type).getEncoding());
  };
  for (unsigned i = 0; i < numInputs; ++i) {
    NamedAttrList attrs(graph.getArgAttrDict(i));
    symbolicDims(attrs, graph.getArgumentTypes()[i]);
    fn.setArgAttrs(i, attrs.getDictionary(b.getContext()));
  }
  for (unsigned j = 0; j < graph.getNumResults(); ++j) {
    NamedAttrList attrs(graph.getResultAttrDict(j));
    attrs.set(kOutputAttrName, b.getUnitAttr());
    symbolicDims(attrs, graph.getResultTypes()[j]);
    fn.setArgAttrs(numInputs + j, attrs.getDictionary(b.getContext()));
  }
  if (bounds)
    fn->setAttr(kDimBoundsAttrName, bounds);
  if (auto lowerBounds =
          graph->getAttrOfType<DictionaryAttr>(kDimLowerBoundsAttrName))
    fn->setAttr(kDimLowerBoundsAttrName, lowerBounds);
  Block *entry = fn.addEntryBlock();
  for (auto [tensor, buffer] :
       llvm::zip(graph.getArguments(), entry->getArguments()))
    buffers[tensor] = buffer;
  auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
  for (auto [j, tensor] : llvm::enumerate(ret.getOperands()))
    buffers[tensor] = entry->getArgument(numInputs + j);
  return fn;
}

/// The value `fusion` reshapes, where that is all it does: its body is one
/// reshape of its input, of static shapes; else null.
static Value getReshapedInput(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  if (fusion.getKind() != FusionKind::Loop || fusion.getNumResults() != 1 ||
      body.getOperations().size() != 2)
    return {};
  auto reshape = dyn_cast<ReshapeOp>(body.front());
  if (!reshape || reshape.getResult() != body.getTerminator()->getOperand(0))
    return {};
  auto argument = dyn_cast<BlockArgument>(reshape.getOperand());
  if (!argument || isSymbolic(argument.getType()) ||
      isSymbolic(reshape.getType()))
    return {};
  return fusion.getInputs()[argument.getArgNumber()];
}

bool GraphLowering::lowerReshapeAsView(FusionOp fusion) {
  Value input = getReshapedInput(fusion);
  Value result = fusion.getResult(0);
  // A graph's output has a buffer of its own; a graph's input may be
  // written in place (inout) after the reshape is read. What a kernel wrote
  // into the workspace is never written again while it is read, views
  // included (the artifact counts a view's uses as its buffer's).
  if (!input || buffers.count(result))
    return false;
  Value source = buffers.lookup(input);
  if (!source || !source.getDefiningOp<memref::AllocOp>())
    return false;
  auto memref = dyn_cast<MemRefType>(source.getType());
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!memref || !memref.getLayout().isIdentity() || memref.getRank() == 0 ||
      type.getRank() == 0)
    return false;
  // Row-major data keeps its order under a reshape: flatten, then split.
  auto allDims = [](int64_t rank) {
    return SmallVector<ReassociationIndices>{
        llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  };
  Location loc = fusion.getLoc();
  Value flat = memref::CollapseShapeOp::create(b, loc, source,
                                               allDims(memref.getRank()));
  buffers[result] = memref::ExpandShapeOp::create(
      b, loc, MemRefType::get(type.getShape(), memref.getElementType()), flat,
      allDims(type.getRank()));
  return true;
}

LogicalResult GraphLowering::lowerFusion(FusionOp fusion, int64_t index) {
  Location loc = fusion.getLoc();
  if (lowerReshapeAsView(fusion))
    return success();
  for (Value result : fusion.getResults())
    if (!buffers.count(result)) {
      buffers[result] = allocate(loc, tensorType(result));
    }
  if (llvm::all_of(fusion.getResults(), [](Value result) {
        return isStaticallyEmpty(tensorType(result));
      }))
    return success();

  // Only the copies lowered below serve part of the runs: a graph's own
  // fusion with a row limit would leave the rows past it uncomputed.
  if (fusion->hasAttr(kRowLimitAttrName))
    return fusion.emitOpError()
           << "carries " << kRowLimitAttrName
           << ", which only fk-lower-to-gpu sets (on the copies it builds a "
              "row variant's kernels from); give the fusion "
           << kRowVariantsAttrName << " instead";
  std::string name = (graph.getName() + "_k" + Twine(index)).str();
  FailureOr<SmallVector<RowVariant>> variants = getRowVariants(fusion);
  if (failed(variants))
    return failure();
  if (variants->empty())
    return lowerFusionKernels(fusion, name);
  // Each variant's kernels write the fusion's result buffers.
  Dim rows = getVariantRows(fusion);
  int64_t above = 0;
  for (const RowVariant &variant : *variants) {
    FusionOp clone = cloneRowVariant(fusion, variant);
    for (auto [copy, result] :
         llvm::zip(clone.getResults(), fusion.getResults()))
      buffers[copy] = buffers.lookup(result);
    runRows = RunRows{rows, above, variant.rows, index};
    LogicalResult lowered =
        lowerFusionKernels(clone, name + "_r" + std::to_string(variant.rows));
    for (Value copy : clone.getResults())
      buffers.erase(copy);
    clone.erase();
    if (failed(lowered))
      return failure();
    above = variant.rows;
  }
  runRows = RunRows{rows, above, std::nullopt, index};
  LogicalResult lowered = lowerFusionKernels(fusion, name);
  runRows.reset();
  return lowered;
}

LogicalResult GraphLowering::lowerFusionKernels(FusionOp fusion,
                                                const std::string &name) {
  Location loc = fusion.getLoc();
  TilingAttr tiling = getTiling(fusion);
  if (!tiling)
    return fusion.emitOpError() << "is an attention fusion without "
                                   "fk.tiling (run fk-tile and fk-promote)";
  // Kernels that read sizes at run time: loops, rows, per-element
  // reductions, tiled matmuls and attentions (fk-check-runtime-sizes
  // reports the ops that need sizes).
  SmallVector<std::string> symbols = getFusionSymbols(fusion);
  KernelStrategy strategy = tiling.getStrategy();
  if (!symbols.empty() && strategy != KernelStrategy::Elements &&
      strategy != KernelStrategy::Rows &&
      strategy != KernelStrategy::TensorCore &&
      strategy != KernelStrategy::WarpMma && strategy != KernelStrategy::Simt &&
      strategy != KernelStrategy::Flash &&
      strategy != KernelStrategy::WarpMmaFlash &&
      strategy != KernelStrategy::Decode)
    return fusion.emitOpError()
           << "has dimensions sized at run time (" << llvm::join(symbols, ", ")
           << "), which its '" << stringifyKernelStrategy(tiling.getStrategy())
           << "' kernel does not read";

  // A buffer without elements is never read, and a memref without elements
  // has no pointer to pass: such inputs are left out.
  SmallVector<Value> arguments;
  for (Value input : fusion.getInputs())
    if (!isStaticallyEmpty(tensorType(input)))
      arguments.push_back(
          kernelOperand(loc, buffers.lookup(input), tensorType(input)));
  for (Value result : fusion.getResults())
    arguments.push_back(
        kernelOperand(loc, buffers.lookup(result), tensorType(result)));
  // The symbols' sizes follow the buffers (KernelContext).
  for (const std::string &symbol : symbols)
    arguments.push_back(arith::IndexCastOp::create(
        b, loc, b.getI64Type(), symbolValues.lookup(symbol)));
  // Of the kernels, only those on tensor cores depend on the target.
  TargetAttr target;
  if (readsPromotedOperands(tiling)) {
    FailureOr<TargetAttr> moduleTarget = getTarget(fusion, "fk-lower-to-gpu");
    if (failed(moduleTarget))
      return failure();
    target = *moduleTarget;
  }
  auto promotion = fusion->getAttrOfType<PromotionAttr>(kPromotionAttrName);
  if (failed(checkTiling(fusion, tiling, target, promotion,
                         /*needPromotion=*/true)))
    return failure();

  // Tensor-core and flash kernels also take the tensor maps of their
  // operands.
  std::optional<TensorCoreTiling> tensorCore;
  std::optional<FlashAttentionTiling> flash;
  if (isFlashKernel(tiling))
    flash = FlashAttentionTiling::get(tiling, promotion.getStages());
  if (tiling.getStrategy() == KernelStrategy::Flash) {
    ArrayRef<int64_t> operands = promotion.getOperands();
    auto buffer = [&](int64_t i) {
      return buffers.lookup(fusion.getInputs()[operands[i]]);
    };
    SmallVector<Value, 3> maps = buildAttentionTensorMaps(
        b, fusion, *flash, buffer(0), buffer(1), buffer(2),
        [&](const Dim &dim) { return hostSize(loc, dim); });
    arguments.insert(arguments.begin(), maps.begin(), maps.end());
  }
  if (tiling.getStrategy() == KernelStrategy::TensorCore) {
    tensorCore = TensorCoreTiling::get(tiling, promotion.getStages());
    MatmulShape shape(fusion.getMatmul());
    // The left operand, then the right (a pair's two, a group's one per
    // product).
    SmallVector<Value, 3> operandBuffers;
    for (int64_t operand : promotion.getOperands())
      operandBuffers.push_back(buffers.lookup(fusion.getInputs()[operand]));
    SmallVector<Value, 3> maps = buildOperandTensorMaps(
        b, fusion, *tensorCore, target, operandBuffers.front(),
        ArrayRef(operandBuffers).drop_front(),
        shape.hasRuntimeRows() ? hostSize(loc, shape.rows) : Value());
    // The results' maps follow the operands' where the kernel stores by
    // TMA.
    if (storesResultByTma(fusion, *tensorCore, target)) {
      SmallVector<Value> resultBuffers;
      for (Value result : fusion.getResults())
        resultBuffers.push_back(buffers.lookup(result));
      llvm::append_range(maps, buildResultTensorMaps(b, fusion, *tensorCore,
                                                     resultBuffers));
    }
    arguments.insert(arguments.begin(), maps.begin(), maps.end());
  }

  if (tiling.getStrategy() == KernelStrategy::Decode)
    return lowerDecodeAttention(fusion, tiling, arguments, name);
  if (tensorCore && tensorCore->splits > 1)
    return lowerSplitKMatmul(fusion, *tensorCore, target, arguments, name);
  return lowerKernel(loc, name, arguments, [&](gpu::GPUFuncOp kernel) {
    if (tiling.getStrategy() == KernelStrategy::WarpMma)
      return buildWarpMmaMatmulKernel(
          fusion, WarpMmaTiling::get(tiling, promotion.getStages()), kernel,
          kernels);
    if (tiling.getStrategy() == KernelStrategy::Simt)
      return buildSimtMatmulKernel(
          fusion,
          SimtTiling::get(tiling, promotion.getStages(),
                          MatmulShape(fusion.getMatmul()).elementBytes()),
          kernel, kernels);
    if (tiling.getStrategy() == KernelStrategy::Transpose)
      return buildTransposeKernel(fusion, kernel, kernels);
    if (tiling.getStrategy() == KernelStrategy::WarpMmaFlash)
      return buildWarpMmaFlashAttentionKernel(fusion, *flash, target, kernel,
                                              kernels);
    return tensorCore ? buildTensorCoreMatmulKernel(fusion, *tensorCore,
                                                    target, kernel, kernels)
           : flash    ? buildFlashAttentionKernel(fusion, *flash, target,
                                                  kernel, kernels)
                      : buildFusionKernel(fusion, tiling, kernel, kernels);
  });
}

LogicalResult GraphLowering::lowerKernel(
    Location loc, const std::string &name, ArrayRef<Value> arguments,
    function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> build) {
  gpu::GPUFuncOp kernel = createKernel(loc, name, arguments);
  FailureOr<LaunchShape> shape = build(kernel);
  if (failed(shape))
    return failure();
  launch(loc, kernel, *shape, arguments);
  return success();
}

LogicalResult GraphLowering::lowerSplitAndCombine(
    FusionOp fusion, const std::string &name, ArrayRef<Value> leading,
    ArrayRef<Value> workspace, ArrayRef<Value> buffers,
    function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> buildSplit,
    function_ref<FailureOr<LaunchShape>(gpu::GPUFuncOp)> buildCombine) {
  Location loc = fusion.getLoc();
  // The split kernel writes the workspace, not the results: it takes the
  // inputs' buffers and the symbols' sizes that follow the results'.
  size_t symbols = getFusionSymbols(fusion).size();
  ArrayRef<Value> sizes = buffers.take_back(symbols);
  SmallVector<Value> splitArguments(leading);
  llvm::append_range(splitArguments, workspace);
  llvm::append_range(splitArguments,
                     buffers.drop_back(fusion.getNumResults() + symbols));
  llvm::append_range(splitArguments, sizes);
  SmallVector<Value> combineArguments(workspace);
  llvm::append_range(combineArguments, buffers);
  if (failed(lowerKernel(loc, name, splitArguments, buildSplit)))
    return failure();
  return lowerKernel(loc, name + "_combine", combineArguments, buildCombine);
}

LogicalResult GraphLowering::lowerSplitKMatmul(FusionOp fusion,
                                               const TensorCoreTiling &tiling,
                                               TargetAttr target,
                                               ArrayRef<Value> arguments,
                                               const std::string &name) {
  // The splits' partial products pass through a workspace buffer.
  Value partial = memref::AllocOp::create(
      b, fusion.getLoc(), getSplitKPartialType(fusion.getMatmul(), tiling));
  return lowerSplitAndCombine(
      fusion, name, /*leading=*/arguments.take_front(2), partial,
      arguments.drop_front(2),
      [&](gpu::GPUFuncOp kernel) {
        return buildTensorCoreMatmulKernel(fusion, tiling, target, kernel,
                                           kernels);
      },
      [&](gpu::GPUFuncOp kernel) {
        return buildSplitKCombineKernel(fusion, tiling, kernel, kernels);
      });
}

LogicalResult GraphLowering::lowerDecodeAttention(FusionOp fusion,
                                                  TilingAttr tiling,
                                                  ArrayRef<Value> arguments,
                                                  const std::string &name) {
  Location loc = fusion.getLoc();
  DecodeAttentionTiling decode = DecodeAttentionTiling::get(tiling);
  auto splitKernel = [&](gpu::GPUFuncOp kernel) {
    return buildDecodeAttentionKernel(fusion, decode, kernel, kernels);
  };
  if (decode.splits == 1)
    return lowerKernel(loc, name, arguments, splitKernel);
  // The splits' partial results pass through two workspace buffers.
  auto [statsType, partialType] =
      getDecodeAttentionPartialTypes(fusion.getAttention(), decode);
  Dim batches = AttentionShape(fusion.getAttention()).getBatchCount();
  SmallVector<Value> partials = {allocateBatched(loc, statsType, batches),
                                 allocateBatched(loc, partialType, batches)};
  return lowerSplitAndCombine(
      fusion, name, /*leading=*/{}, partials, arguments, splitKernel,
      [&](gpu::GPUFuncOp kernel) {
        return buildDecodeAttentionCombineKernel(fusion, decode, kernel,
                                                 kernels);
      });
}

gpu::GPUFuncOp GraphLowering::createKernel(Location loc,
                                           const std::string &name,
                                           ValueRange arguments) {
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      kb, loc, name, kb.getFunctionType(arguments.getTypes(), {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  // Every buffer is 16-byte aligned: graph tensors by the runtime's contract,
  // workspace buffers by the artifact's 256-byte offsets. Knowing it lets
  // LLVM turn adjacent accesses into vectors. Yet LLVM may also widen the
  // last accesses of a buffer to a vector reaching past its end (three f16
  // loads of a 6-byte buffer to one of 8 bytes): harmless on the GPU, but a
  // read outside the buffer. So a buffer promises only the alignment its
  // size keeps: at most the largest power of two dividing its bytes.
  for (auto [i, argument] : llvm::enumerate(arguments)) {
    if (!isa<MemRefType>(argument.getType()))
      continue;
    // A symbolic buffer's view: the bytes of the buffer's smallest
    // nonzero size (every dynamic dimension 1), which divide those of
    // every other.
    auto memref = cast<MemRefType>(getViewedBuffer(argument).getType());
    int64_t bytes = std::max<int64_t>(1, memref.getElementTypeBitWidth() / 8);
    for (int64_t size : memref.getShape())
      bytes *= ShapedType::isDynamic(size) ? 1 : size;
    int64_t align = 16;
    while (bytes % align != 0)
      align /= 2;
    kernel.setArgAttr(i, "llvm.align", kb.getI64IntegerAttr(align));
  }
  SymbolTable(kernels).insert(kernel);
  return kernel;
}

void GraphLowering::launch(Location loc, gpu::GPUFuncOp kernel,
                           const LaunchShape &shape, ValueRange arguments) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value blocks = constant(shape.grid[0]);
  if (shape.gridWork) {
    Value work = hostSize(loc, *shape.gridWork);
    if (shape.workPerBlock != 1)
      work = arith::CeilDivUIOp::create(b, loc, work,
                                        constant(shape.workPerBlock));
    if (shape.blocksPerWork != 1)
      work = arith::MulIOp::create(b, loc, work,
                                   constant(shape.blocksPerWork));
    blocks = arith::MinUIOp::create(b, loc, work, constant(shape.maxBlocks));
  }
  if (runRows) {
    // Blocks times 1 for the runs served, 0 for others, in the sizes the
    // manifest computes (min, max, add, mul): clamp(rows - above, 0, 1)
    // times clamp(atMost + 1 - rows, 0, 1).
    Value rows = hostSize(loc, runRows->rows);
    auto isPositive = [&](Value value) -> Value {
      return arith::MinSIOp::create(
          b, loc, constant(1),
          arith::MaxSIOp::create(b, loc, constant(0), value));
    };
    if (runRows->above > 0)
      blocks = arith::MulIOp::create(
          b, loc, blocks,
          isPositive(arith::AddIOp::create(b, loc, rows,
                                           constant(-runRows->above))));
    if (runRows->atMost)
      blocks = arith::MulIOp::create(
          b, loc, blocks,
          isPositive(arith::AddIOp::create(
              b, loc, constant(*runRows->atMost + 1),
              arith::MulIOp::create(b, loc, rows, constant(-1)))));
  }
  Value batches = shape.gridBatches ? hostSize(loc, *shape.gridBatches)
                                    : constant(shape.grid[1]);
  Value z = shape.gridZ ? shape.gridZ(b, loc,
                                      [&](const Dim &dim) {
                                        return hostSize(loc, dim);
                                      })
                        : constant(shape.grid[2]);
  gpu::KernelDim3 grid{blocks, batches, z};
  gpu::KernelDim3 block{constant(shape.block[0]), constant(shape.block[1]),
                        constant(shape.block[2])};
  Value shared;
  if (shape.sharedBytes != 0)
    shared = arith::ConstantIntOp::create(b, loc, shape.sharedBytes, 32);
  auto launch =
      gpu::LaunchFuncOp::create(b, loc, kernel, grid, block, shared, arguments);
  // What the runtime may run beside it (KernelWrites.h).
  launch->setAttr(kWrittenOperandsAttrName,
                  b.getDenseI64ArrayAttr(getWrittenArguments(kernel)));
  if (runRows)
    launch->setAttr(kRunVariantAttrName, b.getDenseI64ArrayAttr(
                                             {runRows->fusion, runRows->above}));
  if (shape.persistent)
    launch->setAttr(kPersistentGridAttrName,
                    b.getDenseI64ArrayAttr(
                        {shape.maxBlocks, shape.clusterBlocks}));
  if (!shape.sizeLimits.empty()) {
    SmallVector<NamedAttribute> limits;
    for (const auto &[size, largest] : shape.sizeLimits)
      limits.push_back(
          b.getNamedAttr(size.str(), b.getI64IntegerAttr(largest)));
    launch->setAttr(kSizeLimitsAttrName, b.getDictionaryAttr(limits));
  }
}

LogicalResult GraphLowering::bindSymbols(Block *entry) {
  SmallVector<std::string> symbols;
  collectSymbols(graph.getOperation(), symbols);
  SmallVector<Attribute> order;
  for (auto [i, type] : llvm::enumerate(graph.getArgumentTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      Dim dim = getDim(tensor, d);
      if (dim.isStatic() || dim.getCoefficient() != 1 ||
          dim.getSymbols().size() != 1 ||
          symbolValues.count(dim.getSymbols()[0]))
        continue;
      symbolValues[dim.getSymbols()[0]] = memref::DimOp::create(
          b, graph.getLoc(), entry->getArgument(i), d);
      order.push_back(b.getStringAttr(dim.getSymbols()[0]));
    }
  }
  for (const std::string &symbol : symbols)
    if (!symbolValues.count(symbol))
      return graph.emitError()
             << "the size of '" << symbol << "' is left to run time, but no "
             << "input of graph '" << graph.getName()
             << "' has it alone as a dimension, so a run cannot learn it; "
             << "give it a size (--bind " << symbol << "=SIZE)";
  if (!order.empty())
    host->setAttr(kSymbolsAttrName, b.getArrayAttr(order));
  return success();
}

Value GraphLowering::hostSize(Location loc, const Dim &dim) {
  return buildSize(b, loc, dim, symbolValues);
}

Value GraphLowering::allocate(Location loc, RankedTensorType type) {
  MemRefType memref = getBufferType(type);
  if (!isSymbolic(type))
    return memref::AllocOp::create(b, loc, memref).getResult();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(hostSize(loc, getDim(type, d)));
  auto alloc = memref::AllocOp::create(b, loc, memref, sizes);
  // Under bounds the workspace reserves the largest bytes when compiled;
  // otherwise each run places the buffer at its sizes.
  std::optional<int64_t> elements = getLargestElementCount(type, bounds);
  int64_t elementBytes =
      std::max<int64_t>(1, memref.getElementTypeBitWidth() / 8);
  int64_t bytes;
  if (elements && !llvm::MulOverflow(*elements, elementBytes, bytes))
    alloc->setAttr(kLargestBytesAttrName, b.getI64IntegerAttr(bytes));
  return alloc.getResult();
}

Value GraphLowering::allocateBatched(Location loc, MemRefType type,
                                     const Dim &batches) {
  if (batches.isStatic() || getLargestSize(batches, bounds))
    return memref::AllocOp::create(b, loc, type);
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = ShapedType::kDynamic;
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, type.getElementType()),
      ValueRange{hostSize(loc, batches)});
  return memref::CastOp::create(b, loc, type, buffer);
}

Value GraphLowering::kernelOperand(Location loc, Value buffer,
                                   RankedTensorType type) {
  if (!isSymbolic(type))
    return buffer;
  int64_t rank = getCollapsedRank(type);
  int64_t folded = type.getRank() - (rank - 1);
  Value view = buffer;
  if (folded > 1) {
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d < folded; ++d)
      groups[0].push_back(d);
    for (int64_t d = folded; d < type.getRank(); ++d)
      groups.push_back({d});
    view = memref::CollapseShapeOp::create(b, loc, view, groups);
  }
  return memref::CastOp::create(
      b, loc,
      getKernelBufferType(type, getStoredElementType(type), bounds), view);
}

LogicalResult GraphLowering::run() {
  bounds = graph->getAttrOfType<DictionaryAttr>(kDimBoundsAttrName);
  host = createHostFunction();
  b.setInsertionPointToStart(&host.getBody().front());
  if (failed(bindSymbols(&host.getBody().front())))
    return failure();
  int64_t index = 0;
  for (auto fusion : graph.getBody().front().getOps<FusionOp>())
    if (failed(lowerFusion(fusion, index++)))
      return failure();
  func::ReturnOp::create(b, graph.getLoc());
  graph.erase();
  return success();
}

namespace {
struct LowerToGpuPass : fk::impl::FkLowerToGpuBase<LowerToGpuPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    auto builder = OpBuilder::atBlockEnd(module.getBody());
    auto kernels =
        gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
    SymbolTable(module).insert(kernels);
    bool smallBuffers = true;
    for (auto graph :
         llvm::to_vector(module.getBody()->getOps<func::FuncOp>())) {
      if (failed(checkGraphBody(graph)))
        return signalPassFailure();
      auto bounds = graph->getAttrOfType<DictionaryAttr>(kDimBoundsAttrName);
      auto small = [&](RankedTensorType type) {
        std::optional<int64_t> elements = getLargestElementCount(type, bounds);
        return elements && *elements <= kMaxSmallBufferElements;
      };
      for (Type type : graph.getFunctionType().getInputs())
        smallBuffers &= small(cast<RankedTensorType>(type));
      graph.walk([&](Operation *op) {
        // convert-nvgpu-to-nvvm assumes 64-bit indices, whatever the data
        // layout says; its index casts would not reconcile with 32-bit ones.
        if (auto fusion = dyn_cast<FusionOp>(op)) {
          TilingAttr tiling = getTiling(fusion);
          smallBuffers &= tiling && !readsPromotedOperands(tiling);
        }
        for (Type type : op->getResultTypes())
          if (auto tensor = dyn_cast<RankedTensorType>(type))
            smallBuffers &= small(tensor);
      });
      if (failed(GraphLowering(graph, kernels).run()))
        return signalPassFailure();
    }
    // 32-bit index arithmetic is much cheaper on the GPU; it is exact when
    // every index and every grid-stride step stays below 2^31.
    if (smallBuffers) {
      MLIRContext *context = &getContext();
      auto entry = DataLayoutEntryAttr::get(
          IndexType::get(context), IntegerAttr::get(IntegerType::get(context, 32), 32));
      kernels->setAttr(DLTIDialect::kDataLayoutAttrName,
                       DataLayoutSpecAttr::get(context, {entry}));
    }
  }
};
} // namespace
