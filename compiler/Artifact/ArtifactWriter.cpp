//===- ArtifactWriter.cpp - the .ptx artifact with its manifest -----------===//

#include "Artifact/ArtifactWriter.h"
#include "Artifact/LaunchOrder.h"
#include "Codegen/KernelWrites.h"
#include "Codegen/Passes.h"
#include "Codegen/RuntimeSizes.h"
#include "fk/IR/FkInout.h"
#include "fk/IR/FkNumerics.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "fkrt/workspace_plan.hpp"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fk;

/// The manifest's dtype of a buffer's element type (i1 is stored as i8).
static StringRef dtypeName(Type elementType) {
  if (elementType.isF32())
    return "f32";
  if (elementType.isF16())
    return "f16";
  if (elementType.isBF16())
    return "bf16";
  if (elementType.isSignlessInteger(32))
    return "i32";
  if (elementType.isSignlessInteger(64))
    return "i64";
  return "i1";
}

static int64_t bufferBytes(MemRefType type) {
  int64_t elementBytes =
      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return type.getNumElements() * elementBytes;
}

namespace {
/// The manifest entry of one graph: its buffers and launches.
class GraphManifest {
public:
  explicit GraphManifest(func::FuncOp host) : host(host) {}

  LogicalResult build();
  void write(llvm::raw_ostream &os);
  /// Whether an output aliases an input (the new value of an inout
  /// parameter).
  bool hasAliases();
  /// Whether the graph takes sizes at run time.
  bool hasSymbols() { return host->hasAttr(kSymbolsAttrName); }
  /// Whether a launch limits the sizes of a run.
  bool limitsSizes() {
    return llvm::any_of(launches,
                        [](const Launch &l) { return !l.limits.empty(); });
  }
  /// Whether a run places workspace buffers at its sizes.
  bool placesBuffersAtRun() {
    return llvm::any_of(buffers,
                        [](const Buffer &b) { return b.runBytes.has_value(); });
  }

private:
  struct Buffer {
    std::string kind;
    int64_t index = 0; // input/output index, or workspace slot
    /// For a workspace buffer of a symbol without a bound: its bytes,
    /// computed per run; a run places it (docs/artifact.md, "Workspace").
    std::optional<llvm::json::Value> runBytes;
  };
  struct Launch {
    std::string kernel;
    /// Integers, or sizes computed per run.
    std::array<llvm::json::Value, 3> grid = {0, 0, 0};
    std::array<int64_t, 3> block;
    int64_t sharedBytes;
    /// The arguments as the manifest states them: a buffer, a tensor map
    /// of one, or an integer (a size computed per run).
    llvm::json::Array args;
    /// The arguments the kernel may write, where known.
    std::optional<llvm::json::Array> writes;
    /// The sizes its kernel takes only up to a limit (version 6).
    llvm::json::Array limits;
    /// A persistent kernel's SM count and cluster blocks (optional).
    std::optional<std::array<int64_t, 2>> persistent;
  };

  llvm::json::Array tensors(bool outputs);
  /// Dimension `d` of host argument `arg`: its size, or its monomial.
  llvm::json::Value dimension(BlockArgument arg, int64_t d);
  /// `size` (an index or integer value of the host function) as a size of
  /// the manifest: an integer, or one computed per run from the symbols.
  FailureOr<llvm::json::Value> sizeExpression(Value size);
  /// The bytes of `alloc`, sized per run, as a size computed per run.
  FailureOr<llvm::json::Value> runBufferBytes(memref::AllocOp alloc);
  llvm::json::Array symbols();

  func::FuncOp host;
  DenseMap<Value, int64_t> bufferIds;
  SmallVector<Buffer> buffers;
  std::vector<fkrt::BufferLifetime> workspaceLifetimes;
  fkrt::WorkspacePlan workspace;
  std::vector<Launch> launches;
};
} // namespace

LogicalResult GraphManifest::build() {
  int64_t inputs = 0, outputs = 0;
  // The memory each buffer id names: an inout parameter's new value is its
  // input's.
  SmallVector<int64_t> memoryOf;
  for (BlockArgument arg : host.getArguments()) {
    bool isOutput = host.getArgAttr(arg.getArgNumber(), kOutputAttrName) != nullptr;
    bufferIds[arg] = buffers.size();
    auto input =
        host.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kUpdatesAttrName);
    memoryOf.push_back(input ? input.getInt() : buffers.size());
    buffers.push_back({isOutput ? "output" : "input",
                       isOutput ? outputs++ : inputs++, std::nullopt});
  }
  // Per launch, the memory it uses; per workspace buffer, its launches.
  std::vector<std::vector<BufferUse>> launchUses;
  std::vector<LaunchRuns> launchRuns;
  std::vector<std::vector<int64_t>> workspaceUsers;
  auto constant = [&](Value v, int64_t &out) -> LogicalResult {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c)
      return emitError(v.getLoc()) << "launch dimension is not a constant";
    out = *c;
    return success();
  };
  for (Operation &op : host.getBody().front()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      bufferIds[alloc] = buffers.size();
      memoryOf.push_back(buffers.size());
      buffers.push_back(
          {"workspace", (int64_t)workspaceLifetimes.size(), std::nullopt});
      workspaceUsers.emplace_back();
      // A buffer sized per run reserves what the largest sizes need, or
      // without bounds is placed by each run at its sizes.
      int64_t bytes = 0;
      if (alloc.getType().hasStaticShape()) {
        bytes = bufferBytes(alloc.getType());
      } else if (auto largest = alloc->getAttrOfType<IntegerAttr>(
                     kLargestBytesAttrName)) {
        bytes = largest.getInt();
      } else {
        FailureOr<llvm::json::Value> runBytes = runBufferBytes(alloc);
        if (failed(runBytes))
          return failure();
        buffers.back().runBytes = std::move(*runBytes);
      }
      workspaceLifetimes.push_back({static_cast<uint64_t>(bytes), 0, -1});
      continue;
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      continue;
    Launch entry;
    entry.kernel = launch.getKernelName().str();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues(),
                    block = launch.getBlockSizeOperandValues();
    for (auto [i, size] : llvm::enumerate(ArrayRef<Value>{grid.x, grid.y,
                                                          grid.z})) {
      FailureOr<llvm::json::Value> value = sizeExpression(size);
      if (failed(value))
        return failure();
      entry.grid[i] = std::move(*value);
    }
    if (failed(constant(block.x, entry.block[0])) ||
        failed(constant(block.y, entry.block[1])) ||
        failed(constant(block.z, entry.block[2])))
      return failure();
    entry.sharedBytes = 0;
    if (Value shared = launch.getDynamicSharedMemorySize())
      if (failed(constant(shared, entry.sharedBytes)))
        return failure();
    int64_t index = launches.size();
    auto writes =
        launch->getAttrOfType<DenseI64ArrayAttr>(kWrittenOperandsAttrName);
    if (writes)
      entry.writes = llvm::json::Array(writes.asArrayRef());
    launchUses.emplace_back();
    launchRuns.emplace_back();
    if (auto variant =
            launch->getAttrOfType<DenseI64ArrayAttr>(kRunVariantAttrName))
      launchRuns.back() = {variant[0], variant[1]};
    if (auto persistent = launch->getAttrOfType<DenseI64ArrayAttr>(
            kPersistentGridAttrName))
      entry.persistent = {persistent[0], persistent[1]};
    if (auto limits =
            launch->getAttrOfType<DictionaryAttr>(kSizeLimitsAttrName))
      for (NamedAttribute limit : limits)
        entry.limits.push_back(llvm::json::Object{
            {"size", limit.getName().str()},
            {"max", cast<IntegerAttr>(limit.getValue()).getInt()}});
    for (auto [operand, arg] : llvm::enumerate(launch.getKernelOperands())) {
      // A size passed to the kernel (RuntimeSizes.h).
      if (arg.getType().isInteger(64)) {
        FailureOr<llvm::json::Value> value = sizeExpression(arg);
        if (failed(value))
          return failure();
        entry.args.push_back(llvm::json::Object{{"i64", std::move(*value)}});
        continue;
      }
      auto tensorMap = arg.getDefiningOp<TensorMapOp>();
      llvm::json::Array dims, strides;
      // Extents and strides given at run time are sizes computed per run.
      auto entries = [&](ArrayRef<int64_t> values, ValueRange dynamic,
                         llvm::json::Array &out) -> LogicalResult {
        for (int64_t value : values) {
          if (value != ShapedType::kDynamic) {
            out.push_back(value);
            continue;
          }
          FailureOr<llvm::json::Value> size = sizeExpression(dynamic.front());
          if (failed(size))
            return failure();
          out.push_back(std::move(*size));
          dynamic = dynamic.drop_front();
        }
        return success();
      };
      if (tensorMap) {
        if (failed(entries(tensorMap.getDims(), tensorMap.getDynamicDims(),
                           dims)) ||
            failed(entries(tensorMap.getStrides(),
                           tensorMap.getDynamicStrides(), strides)))
          return failure();
        arg = tensorMap.getBuffer();
      }
      // A symbolic buffer's statically shaped view is the buffer.
      arg = getViewedBuffer(arg);
      auto it = bufferIds.find(arg);
      if (it == bufferIds.end())
        return launch.emitOpError()
               << "passes an argument that is not a graph buffer";
      int64_t id = it->second;
      if (!tensorMap) {
        entry.args.push_back(llvm::json::Object{{"buffer", id}});
      } else {
        Type element =
            cast<MemRefType>(tensorMap.getBuffer().getType()).getElementType();
        entry.args.push_back(llvm::json::Object{
            {"tensor_map",
             llvm::json::Object{
                 {"buffer", id},
                 {"dtype", dtypeName(element)},
                 {"dims", std::move(dims)},
                 {"strides", std::move(strides)},
                 {"box", llvm::json::Array(tensorMap.getBox())},
                 {"swizzle", tensorMap.getSwizzle()}}}});
      }
      const Buffer &buffer = buffers[it->second];
      launchUses.back().push_back(
          {memoryOf[id], !writes || llvm::is_contained(writes.asArrayRef(),
                                                       int64_t(operand))});
      if (buffer.kind == "workspace") {
        fkrt::BufferLifetime &life = workspaceLifetimes[buffer.index];
        if (life.first > life.last)
          life.first = index;
        life.last = index;
        workspaceUsers[buffer.index].push_back(index);
      }
    }
    launches.push_back(std::move(entry));
  }
  // A buffer placed per run that no launch uses needs no bytes.
  for (Buffer &buffer : buffers)
    if (buffer.runBytes &&
        workspaceLifetimes[buffer.index].first >
            workspaceLifetimes[buffer.index].last)
      buffer.runBytes.reset();
  // Those placed per run take no bytes here (their lifetimes hold 0). Two
  // buffers share bytes only where the later one's launches would not run
  // at once with the earlier one's (LaunchOrder.h).
  LaunchOrder order(launchUses, std::move(launchRuns));
  auto mayShare = [&](size_t a, size_t b) {
    if (workspaceLifetimes[a].first > workspaceLifetimes[b].first)
      std::swap(a, b);
    return order.mayFollow(workspaceUsers[b], workspaceUsers[a]);
  };
  if (!fkrt::planWorkspace(workspaceLifetimes, workspace, /*start=*/0,
                           fkrt::kWorkspaceAlignment, mayShare))
    return host.emitError() << "the workspace's buffers overflow 64 bits";
  return success();
}

FailureOr<llvm::json::Value>
GraphManifest::runBufferBytes(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  int64_t constant = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  for (int64_t size : type.getShape())
    if (size != ShapedType::kDynamic &&
        llvm::MulOverflow(constant, size, constant))
      return alloc.emitOpError() << "has more bytes than 64 bits hold";
  llvm::json::Array factors{constant};
  for (Value size : alloc.getDynamicSizes()) {
    FailureOr<llvm::json::Value> factor = sizeExpression(size);
    if (failed(factor))
      return failure();
    factors.push_back(std::move(*factor));
  }
  return llvm::json::Value(llvm::json::Object{{"mul", std::move(factors)}});
}

llvm::json::Value GraphManifest::dimension(BlockArgument arg, int64_t d) {
  auto type = cast<MemRefType>(arg.getType());
  if (!type.isDynamicDim(d))
    return type.getDimSize(d);
  auto monomials = host.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                    kSymbolicDimsAttrName);
  int64_t dynamicIndex = type.getDynamicDimIndex(d);
  if (!monomials || dynamicIndex >= (int64_t)monomials.size())
    return "?";
  return cast<StringAttr>(monomials[dynamicIndex]).getValue().str();
}

FailureOr<llvm::json::Value> GraphManifest::sizeExpression(Value size) {
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return llvm::json::Value(*c);
  Operation *op = size.getDefiningOp();
  if (auto dim = dyn_cast_or_null<memref::DimOp>(op)) {
    auto arg = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> d = dim.getConstantIndex();
    if (arg && d)
      return dimension(arg, *d);
  }
  if (auto cast = dyn_cast_or_null<arith::IndexCastOp>(op))
    return sizeExpression(cast.getIn());
  StringRef name;
  if (isa_and_nonnull<arith::MulIOp>(op))
    name = "mul";
  else if (isa_and_nonnull<arith::AddIOp>(op))
    name = "add";
  else if (isa_and_nonnull<arith::CeilDivUIOp>(op))
    name = "ceil_div";
  else if (isa_and_nonnull<arith::MinUIOp, arith::MinSIOp>(op))
    name = "min";
  else if (isa_and_nonnull<arith::MaxUIOp, arith::MaxSIOp>(op))
    name = "max";
  if (name.empty())
    return emitError(size.getLoc())
           << "a launch's size is neither a constant nor computed from the "
              "graph's symbols";
  llvm::json::Array operands;
  for (Value operand : op->getOperands()) {
    FailureOr<llvm::json::Value> value = sizeExpression(operand);
    if (failed(value))
      return failure();
    operands.push_back(std::move(*value));
  }
  return llvm::json::Value(llvm::json::Object{{name, std::move(operands)}});
}

llvm::json::Array GraphManifest::symbols() {
  llvm::json::Array result;
  auto bounds = host->getAttrOfType<DictionaryAttr>(kDimBoundsAttrName);
  auto lowerBounds =
      host->getAttrOfType<DictionaryAttr>(kDimLowerBoundsAttrName);
  for (Attribute name : host->getAttrOfType<ArrayAttr>(kSymbolsAttrName)) {
    StringRef symbol = cast<StringAttr>(name).getValue();
    llvm::json::Object entry{{"name", symbol.str()}};
    if (auto bound = bounds ? bounds.getAs<IntegerAttr>(symbol) : nullptr)
      entry["max"] = bound.getInt();
    if (auto lower =
            lowerBounds ? lowerBounds.getAs<IntegerAttr>(symbol) : nullptr)
      entry["min"] = lower.getInt();
    result.push_back(std::move(entry));
  }
  return result;
}

llvm::json::Array GraphManifest::tensors(bool outputs) {
  llvm::json::Array result;
  for (BlockArgument arg : host.getArguments()) {
    unsigned i = arg.getArgNumber();
    if ((host.getArgAttr(i, kOutputAttrName) != nullptr) != outputs)
      continue;
    auto type = cast<MemRefType>(arg.getType());
    auto name = host.getArgAttrOfType<StringAttr>(i, "fk.name");
    llvm::json::Array shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      shape.push_back(dimension(arg, d));
    llvm::json::Object tensor{
        {"name", name ? name.getValue().str() : "arg" + std::to_string(i)},
        {"dtype", dtypeName(type.getElementType())},
        {"shape", std::move(shape)}};
    // An output that is an inout parameter's new value names the input it
    // is written into (input indices count the arguments before outputs).
    if (auto input = host.getArgAttrOfType<IntegerAttr>(i, kUpdatesAttrName))
      tensor["aliases"] = input.getInt();
    result.push_back(std::move(tensor));
  }
  return result;
}

bool GraphManifest::hasAliases() {
  for (unsigned i = 0; i < host.getNumArguments(); ++i)
    if (host.getArgAttr(i, kUpdatesAttrName))
      return true;
  return false;
}

/// One JSON value on one line.
static std::string compact(llvm::json::Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

/// Writes a graph's entry with one line per tensor list, buffer and launch,
/// so that the manifest stays readable and diffs line by line.
void GraphManifest::write(llvm::raw_ostream &os) {
  os << "{\"name\": " << compact(host.getName()) << ",\n";
  if (hasSymbols())
    os << " \"symbols\": " << compact(symbols()) << ",\n";
  os << " \"inputs\": " << compact(tensors(false)) << ",\n";
  os << " \"outputs\": " << compact(tensors(true)) << ",\n";
  os << " \"workspace_bytes\": " << workspace.bytes << ",\n";
  os << " \"buffers\": [";
  for (size_t id = 0; id < buffers.size(); ++id) {
    const Buffer &buffer = buffers[id];
    llvm::json::Object entry{{"id", static_cast<int64_t>(id)},
                             {"kind", buffer.kind}};
    if (buffer.kind == "workspace" && buffer.runBytes) {
      const fkrt::BufferLifetime &life = workspaceLifetimes[buffer.index];
      entry["bytes"] = *buffer.runBytes;
      entry["live"] = llvm::json::Array{life.first, life.last};
    } else if (buffer.kind == "workspace") {
      entry["offset"] = static_cast<int64_t>(workspace.offsets[buffer.index]);
      entry["bytes"] =
          static_cast<int64_t>(workspaceLifetimes[buffer.index].bytes);
    } else {
      entry["index"] = buffer.index;
    }
    os << (id ? ",\n  " : "\n  ") << compact(std::move(entry));
  }
  os << "],\n \"launches\": [";
  for (size_t i = 0; i < launches.size(); ++i) {
    // Each graph's entry is written once: its arguments move into it.
    Launch &launch = launches[i];
    llvm::json::Object entry{{"kernel", launch.kernel},
                             {"grid", llvm::json::Array{launch.grid[0],
                                                        launch.grid[1],
                                                        launch.grid[2]}},
                             {"block", llvm::json::Array(launch.block)},
                             {"shared_bytes", launch.sharedBytes},
                             {"args", std::move(launch.args)}};
    if (launch.writes)
      entry["writes"] = std::move(*launch.writes);
    if (!launch.limits.empty())
      entry["limits"] = std::move(launch.limits);
    // Optional: a runtime that does not read it launches the grid as it is.
    if (launch.persistent)
      entry["persistent"] =
          llvm::json::Object{{"sm_count", (*launch.persistent)[0]},
                             {"cluster_blocks", (*launch.persistent)[1]}};
    os << (i ? ",\n  " : "\n  ") << compact(std::move(entry));
  }
  os << "]}";
}

static FailureOr<std::string> getPtx(ModuleOp module) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>(kKernelModuleName);
  if (!binary || binary.getObjects().size() != 1)
    return module.emitError()
           << "expected the kernels as one gpu.binary '" << kKernelModuleName
           << "' (run the pipeline to the ptx stage)";
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  if (object.getFormat() != gpu::CompilationTarget::Assembly)
    return binary.emitError() << "expected PTX assembly";
  return object.getObject().getValue().str();
}

/// The libdevice functions `ptx` declares but does not define: what is left
/// when libdevice was not found.
static SmallVector<StringRef> getUnresolvedMathFunctions(StringRef ptx) {
  SmallVector<StringRef> names;
  for (StringRef line : llvm::split(ptx, '\n')) {
    if (!line.contains(".extern .func"))
      continue;
    size_t start = line.find("__nv_");
    if (start != StringRef::npos)
      names.push_back(line.substr(start).take_while(
          [](char c) { return isalnum(c) || c == '_'; }));
  }
  return names;
}

LogicalResult mlir::fk::writeArtifact(ModuleOp module,
                                      const PtxOptions &ptxOptions,
                                      llvm::raw_ostream &os) {
  FailureOr<TargetAttr> target = getTarget(module, "fkc");
  if (failed(target))
    return failure();
  FailureOr<std::string> ptx = getPtx(module);
  if (failed(ptx))
    return failure();
  SmallVector<StringRef> unresolved = getUnresolvedMathFunctions(*ptx);
  if (!unresolved.empty())
    return module.emitError()
           << "the kernels call CUDA math functions ("
           << llvm::join(unresolved, ", ") << ") but libdevice was not found at '"
           << getLibdevicePath(ptxOptions.cudaPath)
           << "'; pass --cuda-path=DIR of a CUDA toolkit";
  std::vector<GraphManifest> graphs;
  for (auto host : module.getOps<func::FuncOp>()) {
    graphs.emplace_back(host);
    if (failed(graphs.back().build()))
      return failure();
  }

  std::string manifest;
  llvm::raw_string_ostream json(manifest);
  bool aliases = llvm::any_of(
      graphs, [](GraphManifest &graph) { return graph.hasAliases(); });
  bool symbols = llvm::any_of(
      graphs, [](GraphManifest &graph) { return graph.hasSymbols(); });
  bool runWorkspace = llvm::any_of(
      graphs, [](GraphManifest &graph) { return graph.placesBuffersAtRun(); });
  bool limits = llvm::any_of(
      graphs, [](GraphManifest &graph) { return graph.limitsSizes(); });
  json << "{\"format\": \"fkc-artifact\", \"version\": "
       << (limits         ? kLimitsArtifactVersion
           : runWorkspace ? kRunWorkspaceArtifactVersion
           : symbols    ? kSymbolsArtifactVersion
           : aliases    ? kAliasingArtifactVersion
                        : kArtifactVersion)
       << ", \"target\": " << compact(target->getChip());
  // Optional (absent: exact f32), so that a version 1 reader still loads it.
  if (allowsTf32(module))
    json << ", \"allow_tf32\": true";
  json << ",\n\"graphs\": [";
  for (auto [i, graph] : llvm::enumerate(graphs)) {
    json << (i ? ",\n" : "\n");
    graph.write(json);
  }
  json << "]}";

  os << "// fkc-manifest-begin\n";
  for (StringRef line : llvm::split(manifest, '\n'))
    os << "// " << line << "\n";
  os << "// fkc-manifest-end\n";
  os << *ptx;
  return success();
}
