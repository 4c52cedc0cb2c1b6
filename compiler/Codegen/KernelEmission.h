//===- KernelEmission.h - what every kernel builder shares ------*- C++ -*-===//
//
// The pieces the kernel builders share: index arithmetic, the addressing
// that lets LLVM vectorize a thread's adjacent accesses, the emitter that
// computes a fusion body's value at given coordinates, and the kernel
// context (argument buffers, grid-stride loop, stores).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_KERNELEMISSION_H
#define FKC_CODEGEN_KERNELEMISSION_H

#include "Codegen/KernelBuilder.h"
#include "Codegen/RuntimeSizes.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <functional>
#include <map>
#include <vector>

namespace mlir::fk {

/// Threads per block of the element-per-thread kernels.
constexpr int64_t kBlockSize = 256;
/// Blocks beyond this many loop over the remaining work (grid-stride).
constexpr int64_t kMaxBlocks = int64_t(1) << 20;
/// The most blocks a grid's x may have (CUDA's limit).
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

inline RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `memref` as one dimension: itself when it has at most one.
Value collapseToOneDim(OpBuilder &b, Location loc, Value memref);


//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Builds index arithmetic on `index` values.
struct IndexBuilder {
  OpBuilder &b;
  Location loc;
  /// The kernel's sizes given at run time; null in a kernel without any.
  RuntimeSizes *sizes = nullptr;

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  // Indices are non-negative and, by the choice of index width, never wrap:
  // saying so lets LLVM see that adjacent elements have adjacent addresses.
  Value add(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y, kNoWrap);
  }
  Value mul(Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y, kNoWrap);
  }
  static constexpr arith::IntegerOverflowFlags kNoWrap =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;

  /// `x - y`, which may be negative (coordinates of a window's start).
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  /// `x` clamped into [low, high], comparing as signed.
  Value clamp(Value x, int64_t low, int64_t high) {
    x = arith::MaxSIOp::create(b, loc, x, constant(low));
    return arith::MinSIOp::create(b, loc, x, constant(high));
  }
  /// `x` clamped into [0, extent - 1], an extent given at run time or not
  /// (one that may be 0 gives -1: the caller must not read there).
  Value clampInto(Value x, OpFoldResult extent) {
    if (std::optional<int64_t> size = getConstantIntValue(extent))
      return clamp(x, 0, *size - 1);
    x = arith::MaxSIOp::create(b, loc, x, constant(0));
    return arith::MinSIOp::create(b, loc, x,
                                  sub(value(extent), constant(1)));
  }
  /// Whether `0 <= x < bound`: one unsigned comparison.
  Value inRange(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 constant(bound));
  }
  /// x < bound, a size given at run time or not.
  Value inRange(Value x, OpFoldResult bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 value(bound));
  }
  /// The integer scalar `x` (i32 or i64) clamped into [0, high], as an
  /// index. It is clamped in its own type: the index type may be narrower.
  Value clampedIndex(Value x, int64_t high) {
    auto type = cast<IntegerType>(x.getType());
    int64_t most = static_cast<int64_t>(
        llvm::maxIntN(static_cast<unsigned>(type.getWidth())));
    auto bound = [&](int64_t value) {
      return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, value));
    };
    x = arith::MaxSIOp::create(b, loc, x, bound(0));
    x = arith::MinSIOp::create(b, loc, x, bound(std::min(high, most)));
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), x);
  }
  /// The start per dimension of a window of shape `window` in a tensor of
  /// shape `full` (fk.dynamic_slice, fk.update_slice): the entries of
  /// `staticStart` as they are, and for each ShapedType::kDynamic entry the
  /// next of `dynamic` (integer scalars) clamped into [0, full - window], as
  /// XLA clamps it. A symbolic window dimension is the whole of `full`'s
  /// (start 0) or of a size given at run time within a static one.
  SmallVector<Value> windowStart(ArrayRef<int64_t> staticStart,
                                 ArrayRef<Value> dynamic, ArrayRef<Dim> full,
                                 ArrayRef<Dim> window) {
    SmallVector<Value> start;
    const Value *next = dynamic.begin();
    for (auto [d, entry] : llvm::enumerate(staticStart)) {
      if (entry != ShapedType::kDynamic) {
        start.push_back(constant(entry));
        continue;
      }
      Value x = *next++;
      if (full[d] == window[d]) {
        start.push_back(constant(0));
      } else if (window[d].isStatic()) {
        start.push_back(clampedIndex(
            x, full[d].getCoefficient() - window[d].getCoefficient()));
      } else {
        // full - window is not negative: the bounds keep the window
        // within (dynamic_slice C3, update_slice C3).
        Value limit = sub(constant(full[d].getCoefficient()),
                          sizeValue(window[d]));
        start.push_back(arith::MinSIOp::create(
            b, loc, clampedIndex(x, full[d].getCoefficient()), limit));
      }
    }
    return start;
  }

  /// `dim`: its size, or the value of its monomial (sizes given at run
  /// time).
  OpFoldResult size(const Dim &dim) {
    if (dim.isStatic())
      return b.getIndexAttr(dim.getCoefficient());
    assert(sizes && "a symbolic dimension in a kernel without run-time sizes");
    return sizes->get(dim);
  }
  Value sizeValue(const Dim &dim) { return value(size(dim)); }
  /// Every dimension of `dims` (or of `type`), as `size` gives them.
  SmallVector<OpFoldResult> shapeOf(ArrayRef<Dim> dims) {
    return llvm::map_to_vector(dims, [&](const Dim &dim) { return size(dim); });
  }
  SmallVector<OpFoldResult> shapeOf(RankedTensorType type) {
    return shapeOf(getDims(type));
  }
  Value value(OpFoldResult size) {
    if (auto attr = dyn_cast<Attribute>(size))
      return constant(cast<IntegerAttr>(attr).getInt());
    return cast<Value>(size);
  }

  /// The row-major coordinates of `linear` in `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape) {
    return delinearize(linear, staticShape(shape));
  }
  SmallVector<Value> delinearize(Value linear, ArrayRef<Dim> shape) {
    return delinearize(linear, shapeOf(shape));
  }
  SmallVector<Value> delinearize(Value linear,
                                 ArrayRef<OpFoldResult> shape) {
    SmallVector<Value> coords(shape.size());
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (isConstantIntValue(shape[d], 1)) {
        coords[d] = constant(0);
        continue;
      }
      if (d == 0) {
        coords[d] = linear;
        break;
      }
      Value size = value(shape[d]);
      coords[d] = arith::RemUIOp::create(b, loc, linear, size);
      linear = arith::DivUIOp::create(b, loc, linear, size);
    }
    return coords;
  }

  /// The row-major linear index of `coords` in `shape`.
  Value linearize(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
    return linearize(coords, staticShape(shape));
  }
  Value linearize(ArrayRef<Value> coords, ArrayRef<OpFoldResult> shape) {
    Value linear = constant(0);
    for (auto [coord, size] : llvm::zip(coords, shape))
      linear = add(mul(linear, value(size)), coord);
    return linear;
  }

  /// The coordinates in the memref of a kernel argument (RuntimeSizes.h)
  /// of the element `coords` of the tensor it holds: the same, unless the
  /// tensor's shape is symbolic, whose leading coordinates fold into one.
  SmallVector<Value> bufferCoords(Value memref, ArrayRef<Value> coords) {
    RankedTensorType tensor =
        sizes ? sizes->getBufferTensor(memref) : RankedTensorType();
    if (!tensor)
      return SmallVector<Value>(coords);
    int64_t kept = getCollapsedRank(tensor) - 1;
    int64_t folded = tensor.getRank() - kept;
    SmallVector<OpFoldResult> shape = shapeOf(tensor);
    SmallVector<Value> result = {
        linearize(coords.take_front(folded), ArrayRef(shape).take_front(folded))};
    llvm::append_range(result, coords.drop_front(folded));
    return result;
  }

private:
  SmallVector<OpFoldResult> staticShape(ArrayRef<int64_t> shape) {
    SmallVector<OpFoldResult> result;
    for (int64_t size : shape) {
      assert(!ShapedType::isDynamic(size) &&
             "a symbolic shape needs its dimensions' values");
      result.push_back(b.getIndexAttr(size));
    }
    return result;
  }

public:

  /// The coordinates in an operand of `operandShape` that numpy-broadcasts
  /// to the shape of `coords` (a symbolic dimension matches only itself: it
  /// never broadcasts).
  SmallVector<Value> broadcastSource(ArrayRef<Value> coords,
                                     ArrayRef<Dim> operandShape) {
    size_t offset = coords.size() - operandShape.size();
    SmallVector<Value> result;
    for (auto [i, dim] : llvm::enumerate(operandShape))
      result.push_back(dim.isStatic() && dim.getCoefficient() == 1
                           ? constant(0)
                           : coords[offset + i]);
    return result;
  }
  SmallVector<Value> broadcastSource(ArrayRef<Value> coords,
                                     ArrayRef<int64_t> operandShape) {
    return broadcastSource(coords, asDims(operandShape));
  }

  /// The linear index, in an operand of `operandShape` that numpy-broadcasts
  /// to the shape of `coords`, of the element `coords` reads.
  Value broadcastLinear(ArrayRef<Value> coords, ArrayRef<Dim> operandShape) {
    return linearize(broadcastSource(coords, operandShape),
                     shapeOf(operandShape));
  }
  Value broadcastLinear(ArrayRef<Value> coords,
                        ArrayRef<int64_t> operandShape) {
    return broadcastLinear(coords, asDims(operandShape));
  }

private:
  static SmallVector<Dim> asDims(ArrayRef<int64_t> shape) {
    return SmallVector<Dim>(shape.begin(), shape.end());
  }
};

//===----------------------------------------------------------------------===//
// Element emission
//===----------------------------------------------------------------------===//

/// The runs of `width` adjacent elements a thread accesses together: each
/// starts at an innermost coordinate that is a multiple of `width`, and
/// `elements` maps the innermost coordinate of every element of a run to
/// its run's start and its offset in the run. An access at a run's start of
/// a buffer whose innermost dimension is a multiple of `width` is 16-byte
/// aligned, and LLVM merges the run's accesses into one vector access.
struct VectorStart {
  int64_t width = 1;
  DenseMap<Value, std::pair<Value, int64_t>> elements;

  void addRun(Value start, ArrayRef<Value> coords) {
    for (auto [e, coord] : llvm::enumerate(coords))
      elements[coord] = {start, static_cast<int64_t>(e)};
  }

  /// The start of the run `coord` is an element of and the element's
  /// offset in it; none where runs are single elements or it is in none.
  std::optional<std::pair<Value, int64_t>> find(Value coord) const {
    auto it = elements.find(coord);
    if (width == 1 || it == elements.end())
      return std::nullopt;
    return it->second;
  }

  llvm::MaybeAlign getAlignment(Value memref, ArrayRef<Value> coords) const {
    auto type = cast<MemRefType>(memref.getType());
    if (width == 1 || coords.empty() ||
        type.getShape().back() % width != 0)
      return llvm::MaybeAlign();
    auto it = elements.find(coords.back());
    if (it == elements.end() || it->second.second != 0)
      return llvm::MaybeAlign();
    int64_t bytes = type.getElementTypeBitWidth() / 8 * width;
    return llvm::Align(std::min<int64_t>(16, llvm::PowerOf2Ceil(bytes)));
  }
};

/// Kernel buffers of rank 2 or more are accessed through flat (1-D) views
/// with a linear index computed here rather than by the memref lowering, so
/// that element `e` of a run is visibly `base + e` of one `base`: LLVM
/// canonicalizes separately linearized indices into forms it can no longer
/// prove adjacent, and then does not merge the accesses into vectors.
class FlatAddressing {
public:
  FlatAddressing(IndexBuilder &idx, DenseMap<Value, Value> &flatViews)
      : idx(idx), flatViews(flatViews) {}

  /// The memref and indices that access element `coords` of `memref`:
  /// the access itself, unless it belongs to `run`, whose elements are read
  /// through one view at constant offsets.
  std::pair<Value, SmallVector<Value>> address(Value memref,
                                               ArrayRef<Value> coords,
                                               const VectorStart &run) {
    SmallVector<Value> plain(coords);
    // Flat views are made once per kernel argument; other memrefs (dense
    // constants' globals) are read element by element.
    if (coords.empty() || run.width == 1 || !isa<BlockArgument>(memref))
      return {memref, plain};
    ArrayRef<int64_t> shape = cast<MemRefType>(memref.getType()).getShape();
    auto it = run.elements.find(coords.back());
    if (it == run.elements.end() || shape.back() % run.width != 0)
      return {memref, plain};
    auto [start, offset] = it->second;
    Value target = getFlatView(memref);
    std::vector<void *> key = {target.getAsOpaquePointer(),
                               start.getAsOpaquePointer()};
    for (Value c : coords.drop_back())
      key.push_back(c.getAsOpaquePointer());
    Value &view = runViews[key];
    if (!view) {
      Value base = start;
      if (coords.size() > 1)
        base = idx.add(idx.mul(idx.linearize(coords.drop_back(),
                                             shape.drop_back()),
                               idx.constant(shape.back())),
                       start);
      OpBuilder &b = idx.b;
      view = memref::SubViewOp::create(
          b, idx.loc, target, ArrayRef<OpFoldResult>{base},
          ArrayRef<OpFoldResult>{b.getIndexAttr(run.width)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    }
    return {view, SmallVector<Value>{idx.constant(offset)}};
  }

private:
  /// `memref` as one dimension, built once at the start of the kernel.
  Value getFlatView(Value memref) {
    if (cast<MemRefType>(memref.getType()).getRank() < 2)
      return memref;
    Value &view = flatViews[memref];
    if (!view) {
      OpBuilder b =
          OpBuilder::atBlockBegin(cast<BlockArgument>(memref).getOwner());
      view = collapseToOneDim(b, idx.loc, memref);
    }
    return view;
  }

  IndexBuilder &idx;
  DenseMap<Value, Value> &flatViews;
  std::map<std::vector<void *>, Value> runViews;
};

/// An element of a tensor value: the value and its coordinates.
struct ElementRef {
  Value tensor;
  SmallVector<Value> coords;
};

/// Emits the compute-type scalar of a tensor value of a fusion's body at
/// given coordinates. Values are cached per (value, coordinates), so a value
/// used twice at one point is computed once. One emitter serves one block:
/// its cached values must dominate every later use.
/// What the element of a value at some coordinates takes (ElementEmitter).
struct ElementStep {
  /// The element itself, already built (loads, constants, hooks)...
  Value value;
  /// ...or the element of `source` at `sourceCoords` (shape ops)...
  Value source;
  SmallVector<Value> sourceCoords;
  /// ...or `elementwise` applied to its operands' elements at the same
  /// coordinates...
  Operation *elementwise = nullptr;
  /// ...or what `then` makes of the elements `needs` lists, in order: a
  /// choice among sources (pad, concat, update_slice), or coordinates that
  /// depend on elements (a gather's index, the starts of dynamic_slice and
  /// update_slice).
  /// `then` may need further elements in turn.
  SmallVector<ElementRef> needs;
  std::function<FailureOr<ElementStep>(ArrayRef<Value>)> then;

  static FailureOr<ElementStep> leaf(FailureOr<Value> value) {
    if (failed(value))
      return failure();
    ElementStep step;
    step.value = *value;
    return step;
  }
  static ElementStep forward(Value source, ArrayRef<Value> coords) {
    ElementStep step;
    step.source = source;
    step.sourceCoords.assign(coords.begin(), coords.end());
    return step;
  }
  static ElementStep elementwiseOf(Operation *op) {
    ElementStep step;
    step.elementwise = op;
    return step;
  }
  static ElementStep after(
      SmallVector<ElementRef> needs,
      std::function<FailureOr<ElementStep>(ArrayRef<Value>)> then) {
    ElementStep step;
    step.needs = std::move(needs);
    step.then = std::move(then);
    return step;
  }
};

class ElementEmitter {
public:
  ElementEmitter(OpBuilder &b, Location loc,
                 const DenseMap<Value, Value> &buffers,
                 DenseMap<Value, Value> &flatViews,
                 gpu::GPUModuleOp kernels, RuntimeSizes *sizes = nullptr)
      : b(b), loc(loc), idx{b, loc, sizes}, buffers(buffers),
        kernels(kernels), addressing(idx, flatViews) {}

  FailureOr<Value> emit(Value tensor, ArrayRef<Value> coords);

  /// Marks the accesses that start an aligned vector (see VectorStart).
  VectorStart vectorStart;

  /// Computes the value of a reduction for the current row (row kernels);
  /// without it, reductions cannot be emitted element by element.
  std::function<FailureOr<Value>(Operation *)> reductionHook;

  /// Computes the value of the fusion's matmul (one of a pair's) or
  /// attention `op` at `coords` (the matmul kernels and the flash kernel,
  /// whose epilogues read an accumulator tile).
  std::function<FailureOr<Value>(Operation *op, ArrayRef<Value> coords)>
      contractionHook;

  /// Loads element `coords` of `memref` (holding `elementType` elements)
  /// in compute type.
  Value load(Value memref, ArrayRef<Value> tensorCoords, Type elementType) {
    SmallVector<Value> coords = idx.bufferCoords(memref, tensorCoords);
    auto [target, indices] = addressing.address(memref, coords, vectorStart);
    Value raw = memref::LoadOp::create(
        b, loc, target, indices, /*nontemporal=*/false,
        vectorStart.getAlignment(memref, coords));
    if (elementType.isSignlessInteger(1) &&
        !cast<MemRefType>(memref.getType()).getElementType().isInteger(1))
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, raw,
          arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0)));
    return extendToComputeType(b, loc, raw, elementType);
  }

private:
  /// Builds the element of `tensor` at `coords` if it needs no other
  /// element, else says which it needs.
  FailureOr<ElementStep> emitStep(Value tensor, ArrayRef<Value> coords);
  Value emitIota(IotaOp iota, ArrayRef<Value> coords);
  ElementStep emitConcat(ConcatOp concat, ArrayRef<Value> coords);
  /// The operand coordinates of element `coords` of a reshape's result
  /// when its innermost one belongs to a run that stays one run in the
  /// operand (then registered as such); otherwise nullopt.
  std::optional<SmallVector<Value>> reshapeRun(ReshapeOp reshape,
                                               ArrayRef<Value> coords);
  /// If `coord` is element e of a run (VectorStart) starting at s, element
  /// e of the run starting at `moveStart(s)`, a multiple of the width: built
  /// once per run and `key` and registered as a run itself, so that the
  /// accesses a slice or a concat makes of a run stay vector accesses.
  /// Otherwise null.
  Value moveRun(Value coord, std::pair<const void *, int64_t> key,
                llvm::function_ref<Value(Value)> moveStart);
  ElementStep emitPad(PadOp pad, ArrayRef<Value> coords);
  ElementStep emitDynamicSlice(DynamicSliceOp slice, ArrayRef<Value> coords);
  FailureOr<ElementStep> emitUpdateSlice(UpdateSliceOp update,
                                         ArrayRef<Value> coords);
  /// The elements of `starts` (rank-0), then `then` of the window's start
  /// per dimension as indices: static entries of `staticStart` as they are,
  /// dynamic ones clamped into [0, full - window].
  ElementStep withWindowStart(
      ArrayRef<int64_t> staticStart, ValueRange starts, ArrayRef<Dim> full,
      ArrayRef<Dim> window,
      std::function<FailureOr<ElementStep>(ArrayRef<Value>)> then);

  OpBuilder &b;
  Location loc;
  IndexBuilder idx;
  const DenseMap<Value, Value> &buffers;
  gpu::GPUModuleOp kernels;
  std::map<std::vector<void *>, Value> cache;
  /// The table coordinate of each (index value, axis size), built once so
  /// that the elements of a run read one table slice through one view.
  /// Keyed by the index element and the axis's size (an attribute or the
  /// value of a size given at run time).
  DenseMap<std::pair<Value, void *>, Value> gatherCoordinates;
  /// The runs moveRun built: (run start, key) -> the moved run's elements.
  std::map<std::tuple<void *, const void *, int64_t>, SmallVector<Value>>
      movedRuns;
  /// reshapeRun's operand coordinates of each run's start: (reshape, run
  /// start, the other coordinates) -> coordinates.
  std::map<std::vector<void *>, SmallVector<Value>> reshapedRuns;

public:
  FlatAddressing addressing;
};
/// One inline PTX statement with one result (a struct for several).
Value emitInlinePtx(OpBuilder &b, Location loc, Type type, StringRef text,
                    StringRef constraints, ValueRange operands,
                    bool sideEffects);

/// `value` (an index equal across each warp, such as a thread's warpgroup)
/// broadcast from lane 0, so that ptxas knows it is warp-uniform: branches
/// on it then do not make the wgmmas beneath them "divergent", which ptxas
/// serializes (C7520; CUTLASS's canonical_warp_group_idx does the same).
Value emitWarpUniform(OpBuilder &b, Location loc, Value value);

/// 2^x in f32 by the SFU's ex2 (2^-inf = 0); libdevice's exp2f adds range
/// handling that the attention kernels' online softmax does not need.
Value emitFastExp2(OpBuilder &b, Location loc, Value x);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// What the kernels of every kind share: the argument buffers and the
/// grid-stride loop over work items.
class KernelContext {
public:
  /// The kernel's arguments from `firstBuffer` on are the buffers of the
  /// fusion's inputs then of its results, then the sizes of its symbols
  /// (getFusionSymbols), if any.
  KernelContext(FusionOp fusion, gpu::GPUFuncOp kernel,
                gpu::GPUModuleOp kernels, unsigned firstBuffer = 0)
      : fusion(fusion), kernels(kernels), loc(fusion.getLoc()),
        b(&kernel.getBody().front(), kernel.getBody().front().begin()),
        idx{b, loc} {
    Block &entry = kernel.getBody().front();
    Block &body = fusion.getBody().front();
    SmallVector<std::string> symbols = getFusionSymbols(fusion);
    if (!symbols.empty()) {
      sizes.emplace(&entry, loc, symbols,
                    entry.getArguments().take_back(symbols.size()));
      idx.sizes = &*sizes;
    }
    // Inputs without elements are not passed (see LowerToGpu.cpp).
    unsigned next = firstBuffer;
    for (BlockArgument arg : body.getArguments())
      if (!isStaticallyEmpty(tensorType(arg))) {
        buffers[arg] = entry.getArgument(next++);
        if (sizes)
          sizes->addBuffer(buffers[arg], tensorType(arg));
      }
    // (A split kernel, which writes a workspace, has no result buffers.)
    for (auto [result, argument] :
         llvm::zip(fusion.getResults(), entry.getArguments()
                                            .drop_front(next)
                                            .drop_back(symbols.size()))) {
      results.push_back(argument);
      if (sizes)
        sizes->addBuffer(argument, tensorType(result));
    }
  }

  ElementEmitter makeEmitter() {
    return ElementEmitter(b, loc, buffers, flatViews, kernels,
                          sizes ? &*sizes : nullptr);
  }

  /// Emits `for (i = global thread id; i < count; i += thread count)` and
  /// calls `body(i)` inside; then `gpu.return`.
  LogicalResult gridStrideLoop(int64_t count,
                               function_ref<LogicalResult(Value)> body) {
    return gridStrideLoop(idx.constant(count), body);
  }
  LogicalResult gridStrideLoop(Value count,
                               function_ref<LogicalResult(Value)> body) {
    Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value start = idx.add(idx.mul(blockId, blockDim), threadId);
    Value step = idx.mul(gridDim, blockDim);
    auto loop = scf::ForOp::create(b, loc, start, count, step);
    LogicalResult result = success();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      result = body(loop.getInductionVar());
    }
    gpu::ReturnOp::create(b, loc);
    return result;
  }

  /// A launch of `threads`-thread blocks covering `count` work items.
  LaunchShape launchShape(int64_t count, int64_t threads = kBlockSize) const {
    return launchShape(Dim(count), threads);
  }
  /// A launch of `threads`-thread blocks, each taking `itemsPerBlock` of
  /// `count` work items (by default one per thread), at most kMaxBlocks
  /// (the kernels loop over the rest); `count` may be a size given at run
  /// time.
  LaunchShape launchShape(const Dim &count, int64_t threads = kBlockSize,
                          int64_t itemsPerBlock = 0) const {
    LaunchShape shape;
    shape.block[0] = threads;
    int64_t perBlock = itemsPerBlock ? itemsPerBlock : threads;
    if (count.isStatic()) {
      // Rounded up, without the overflow of count + perBlock.
      int64_t items = count.getCoefficient();
      int64_t blocks = items / perBlock + (items % perBlock != 0);
      shape.grid[0] = std::max<int64_t>(1, std::min(kMaxBlocks, blocks));
      return shape;
    }
    shape.gridWork = count;
    shape.workPerBlock = perBlock;
    shape.maxBlocks = kMaxBlocks;
    return shape;
  }


  /// Stores `value` at `coords` of `memref`, through the addressing of
  /// `emitter` (so that a run's stores share its base index) when given.
  void store(Value value, Value memref, ArrayRef<Value> coords,
             Type elementType, ElementEmitter *emitter = nullptr) {
    if (emitter)
      return store(value, memref, coords, elementType, emitter->vectorStart,
                   emitter->addressing);
    FlatAddressing local(idx, flatViews);
    store(value, memref, coords, elementType, VectorStart(), local);
  }

  /// Stores through `addressing`, which caches its views: it must belong to
  /// the block of the store.
  void store(Value value, Value memref, ArrayRef<Value> tensorCoords,
             Type elementType, const VectorStart &run,
             FlatAddressing &addressing) {
    Value stored = truncateToElementType(b, loc, value, elementType);
    if (elementType.isSignlessInteger(1) &&
        !cast<MemRefType>(memref.getType()).getElementType().isInteger(1))
      stored = arith::ExtUIOp::create(b, loc, b.getI8Type(), stored);
    SmallVector<Value> coords = idx.bufferCoords(memref, tensorCoords);
    auto [target, indices] = addressing.address(memref, coords, run);
    memref::StoreOp::create(b, loc, stored, target, indices,
                            /*nontemporal=*/false,
                            run.getAlignment(memref, coords));
  }

  FusionOp fusion;
  gpu::GPUModuleOp kernels;
  Location loc;
  OpBuilder b;
  IndexBuilder idx;
  DenseMap<Value, Value> buffers;
  DenseMap<Value, Value> flatViews;
  SmallVector<Value> results;
  /// The sizes given at run time, in a kernel over symbolic shapes.
  std::optional<RuntimeSizes> sizes;
};

/// The number of consecutive elements a thread handles at once so that its
/// accesses can be 16-byte vectors: 16 bytes of the narrowest element the
/// fusion reads or writes, halved until it divides `innermost`.
int64_t getVectorWidth(FusionOp fusion, int64_t innermost);

/// Moves every load of `block` up to just after the definitions of its
/// indices, so that LLVM sees the loads of a run together and merges them.
void hoistLoads(Block &block);

/// Moves the device-memory loads of `block` (not of workgroup memory), with
/// the side-effect-free operations that compute their addresses, to the
/// block's start, in their order: every load is issued before the
/// arithmetic of any of them waits for its value. A load of a memref the
/// block also stores to stays in place, as does one whose address depends
/// on an operation with effects or regions. For a block of several runs of
/// an epilogue: a load then passes only stores to other runs' elements (an
/// input that shares its buffer with an output, an inout parameter's, is
/// read by a kernel only at the elements the same thread writes, or other
/// threads would race with it too).
void issueDeviceLoadsFirst(Block &block);

} // namespace mlir::fk

#endif // FKC_CODEGEN_KERNELEMISSION_H
