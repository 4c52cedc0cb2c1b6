//===- KernelBuilder.cpp - the GPU kernel of a fusion ---------------------===//

#include "Codegen/KernelEmission.h"
#include "Codegen/Tiling.h"
#include "fk/IR/FkInout.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <limits>
#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::fk;

Dim mlir::fk::getWorkItemCount(FusionOp fusion) {
  // The verifier's shape rules keep element counts within int64.
  return *elementCount(getDims(tensorType(fusion.getResult(0))));
}

//===----------------------------------------------------------------------===//
// Loop kernels
//===----------------------------------------------------------------------===//

static ValueRange yieldedValues(FusionOp fusion) {
  return cast<YieldOp>(fusion.getBody().front().getTerminator()).getValues();
}

/// The number of consecutive elements a thread handles at once so that its
/// accesses can be 16-byte vectors: 16 bytes of the narrowest element the
/// kernel reads or writes, halved until it divides the innermost dimension.
int64_t mlir::fk::getVectorWidth(FusionOp fusion, int64_t innermost) {
  int64_t narrowest = 16;
  auto consider = [&](Value v) {
    Type element = tensorType(v).getElementType();
    int64_t bytes = element.isSignlessInteger(1)
                        ? 1
                        : element.getIntOrFloatBitWidth() / 8;
    narrowest = std::min(narrowest, bytes);
  };
  for (Value v : fusion.getInputs())
    consider(v);
  for (Value v : fusion.getResults())
    consider(v);
  int64_t width = 16 / narrowest;
  while (width > 1 && innermost % width != 0)
    width /= 2;
  return width;
}

/// Moves every load of `block` up to just after the definitions of its
/// indices. The element emitter interleaves each element's loads with its
/// arithmetic; grouped, the loads of adjacent elements are close enough for
/// LLVM to merge them into vector loads.
void mlir::fk::hoistLoads(Block &block) {
  // Constants (such as a load's offset in its run) first, so that they do
  // not hold loads back.
  for (auto constant : llvm::to_vector(block.getOps<arith::ConstantOp>()))
    constant->moveBefore(&block, block.begin());
  for (auto load : llvm::to_vector(block.getOps<memref::LoadOp>())) {
    Operation *last = nullptr;
    for (Value operand : load->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      if (!last || last->isBeforeInBlock(def))
        last = def;
    }
    if (last)
      load->moveAfter(last);
    else
      load->moveBefore(&block, block.begin());
  }
}

/// The memory `memref` accesses: the kernel argument under every view
/// (flat views, a run's subview), for telling which loads a store may
/// alias.
static Value getAccessedMemory(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

void mlir::fk::issueDeviceLoadsFirst(Block &block) {
  DenseSet<Value> stored;
  for (auto store : block.getOps<memref::StoreOp>())
    stored.insert(getAccessedMemory(store.getMemRef()));
  SetVector<Operation *> moved;
  for (auto load : block.getOps<memref::LoadOp>()) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        load.getMemRefType().getMemorySpace());
    if ((space && space.getValue() == gpu::AddressSpace::Workgroup) ||
        stored.contains(getAccessedMemory(load.getMemRef())))
      continue;
    // The load and what its operands need from this block.
    SetVector<Operation *> slice;
    SmallVector<Operation *> work = {load};
    bool movable = true;
    while (!work.empty() && movable) {
      Operation *op = work.pop_back_val();
      if (moved.contains(op) || !slice.insert(op))
        continue;
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &block || moved.contains(def))
          continue;
        if (def->getNumRegions() != 0 || !isMemoryEffectFree(def)) {
          movable = false;
          break;
        }
        work.push_back(def);
      }
    }
    if (movable)
      moved.insert(slice.begin(), slice.end());
  }
  Operation *last = nullptr;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (!moved.contains(&op))
      continue;
    if (last)
      op.moveAfter(last);
    else
      op.moveBefore(&block, block.begin());
    last = &op;
  }
}

/// One work item is `width` consecutive elements of the result's innermost
/// dimension: their loads and stores are adjacent and 16-byte aligned (the
/// runtime requires aligned tensors and every offset is a multiple of the
/// width), so LLVM emits vector accesses.
static FailureOr<LaunchShape> buildLoopKernel(KernelContext &k,
                                              TilingAttr tiling) {
  RankedTensorType resultType = tensorType(k.fusion.getResult(0));
  SmallVector<Dim> shape = getDims(resultType);
  for (Value result : k.fusion.getResults())
    if (getDims(tensorType(result)) != shape)
      return k.fusion.emitOpError()
             << "loop fusion results of different shapes are not supported";
  int64_t width = tiling.getTile()[0];
  // A symbolic innermost dimension is a multiple of its coefficient.
  if (width > 1 &&
      (shape.empty() || shape.back().getCoefficient() % width != 0))
    return k.fusion.emitOpError()
           << "runs of " << width << " elements do not divide its rows";
  SmallVector<Dim> itemDims(shape);
  if (!itemDims.empty())
    itemDims.back() = *itemDims.back().dividedBy(width);
  SmallVector<OpFoldResult> itemShape = k.idx.shapeOf(itemDims);
  Dim items = *getWorkItemCount(k.fusion).dividedBy(width);
  LogicalResult built = k.gridStrideLoop(k.idx.sizeValue(items), [&](Value i) {
    ElementEmitter emitter = k.makeEmitter();
    SmallVector<Value> item = k.idx.delinearize(i, itemShape);
    SmallVector<SmallVector<Value>> elements;
    Value start;
    if (!item.empty()) {
      start = k.idx.mul(item.back(), k.idx.constant(width));
      emitter.vectorStart.width = width;
    }
    for (int64_t e = 0; e < width; ++e) {
      SmallVector<Value> coords(item);
      if (!coords.empty())
        coords.back() = e == 0 ? start : k.idx.add(start, k.idx.constant(e));
      elements.push_back(std::move(coords));
    }
    if (!item.empty()) {
      SmallVector<Value> run;
      for (const SmallVector<Value> &coords : elements)
        run.push_back(coords.back());
      emitter.vectorStart.addRun(start, run);
    }
    // Every load before the first store, so that LLVM may merge them (it
    // cannot move a load across a store that might alias).
    SmallVector<SmallVector<Value>> values;
    for (Value value : yieldedValues(k.fusion)) {
      values.emplace_back();
      for (const SmallVector<Value> &coords : elements) {
        FailureOr<Value> element = emitter.emit(value, coords);
        if (failed(element))
          return failure();
        values.back().push_back(*element);
      }
    }
    for (auto [value, buffer, computed] :
         llvm::zip(yieldedValues(k.fusion), k.results, values))
      for (auto [coords, element] : llvm::zip(elements, computed))
        k.store(element, buffer, coords, tensorType(value).getElementType(),
                &emitter);
    hoistLoads(*i.getParentBlock());
    return success();
  });
  if (failed(built))
    return failure();
  return k.launchShape(items, tiling.getThreads());
}

/// A loop fusion marked fk.window_in_place: each result is
/// `update_slice(dest, update, start)` written into dest's own buffer (an
/// inout parameter's), the windows of one shape, so the kernel walks only
/// the window, one element per work item, and stores each update's element
/// at its start plus the element's coordinates; the rest of each buffer
/// already holds its dest.
static FailureOr<LaunchShape> buildWindowKernel(KernelContext &k,
                                                TilingAttr tiling) {
  SmallVector<UpdateSliceOp> updates;
  for (Value yielded : yieldedValues(k.fusion)) {
    auto update = yielded.getDefiningOp<UpdateSliceOp>();
    if (!update)
      return k.fusion.emitOpError()
             << "is marked '" << kWindowInPlaceAttrName
             << "' but yields a value that is not an fk.update_slice";
    updates.push_back(update);
  }
  // A symbolic dimension of a window spans its dest's, or is a size given
  // at run time within a static one (update_slice C3): the window's shape
  // and element count are sizes given at run time.
  RankedTensorType windowType = tensorType(updates[0].getUpdate());
  SmallVector<Dim> window = getDims(windowType);
  for (UpdateSliceOp update : updates)
    if (getDims(tensorType(update.getUpdate())) != window)
      return k.fusion.emitOpError()
             << "is marked '" << kWindowInPlaceAttrName
             << "' but its updates' windows differ in shape";
  Dim items = *elementCount(window);
  SmallVector<OpFoldResult> windowShape = k.idx.shapeOf(window);
  LogicalResult built = k.gridStrideLoop(k.idx.sizeValue(items), [&](Value i) {
    ElementEmitter emitter = k.makeEmitter();
    SmallVector<Value> coords = k.idx.delinearize(i, windowShape);
    for (auto [update, buffer] : llvm::zip(updates, k.results)) {
      SmallVector<Value> dynamic;
      for (Value start : update.getStart()) {
        FailureOr<Value> value = emitter.emit(start, {});
        if (failed(value))
          return failure();
        dynamic.push_back(*value);
      }
      SmallVector<Value> at =
          k.idx.windowStart(update.getStaticStart(), dynamic,
                            getDims(tensorType(update.getDest())), window);
      for (auto [first, coord] : llvm::zip(at, coords))
        first = k.idx.add(first, coord);
      FailureOr<Value> element = emitter.emit(update.getUpdate(), coords);
      if (failed(element))
        return failure();
      k.store(*element, buffer, at,
              tensorType(update.getUpdate()).getElementType(), &emitter);
    }
    return success();
  });
  if (failed(built))
    return failure();
  return k.launchShape(items, tiling.getThreads());
}

namespace {
/// The accumulation of one reduction kind.
struct Accumulation {
  enum Kind { Sum, Max, Min, Mean } kind;
  Type elementType;

  double identity() const {
    switch (kind) {
    case Max:
      return lowestValue(elementType);
    case Min:
      return highestValue(elementType);
    case Sum:
    case Mean:
      return 0.0;
    }
    llvm_unreachable("unknown reduction");
  }

  /// The result of a reduction of `count` elements whose combined value is
  /// `total`: divided by the count for a mean, rounded to the element type.
  Value finish(OpBuilder &b, Location loc, Value total, int64_t count) const {
    if (kind == Mean)
      total = arith::DivFOp::create(
          b, loc, total,
          buildScalarConstant(b, loc, elementType, static_cast<double>(count)));
    return roundToElementType(b, loc, total, elementType);
  }
  /// The same for a count that may be given at run time (an index value).
  Value finish(OpBuilder &b, Location loc, Value total,
               OpFoldResult count) const {
    if (std::optional<int64_t> known = getConstantIntValue(count))
      return finish(b, loc, total, *known);
    if (kind == Mean) {
      Value asInteger = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                                     cast<Value>(count));
      Value asFloat = arith::UIToFPOp::create(
          b, loc, getComputeType(elementType), asInteger);
      total = arith::DivFOp::create(b, loc, total, asFloat);
    }
    return roundToElementType(b, loc, total, elementType);
  }

  Value combine(OpBuilder &b, Location loc, Value acc, Value x) const {
    bool isFloat = isa<FloatType>(elementType);
    switch (kind) {
    case Sum:
    case Mean:
      return isFloat ? Value(arith::AddFOp::create(b, loc, acc, x))
                     : Value(arith::AddIOp::create(b, loc, acc, x));
    case Max:
      return isFloat ? Value(arith::MaximumFOp::create(b, loc, acc, x))
                     : Value(arith::MaxSIOp::create(b, loc, acc, x));
    case Min:
      return isFloat ? Value(arith::MinimumFOp::create(b, loc, acc, x))
                     : Value(arith::MinSIOp::create(b, loc, acc, x));
    }
    llvm_unreachable("unknown reduction");
  }
};
} // namespace

/// One thread per reduced element, looping over its reduction: any axes.
static FailureOr<LaunchShape> buildReductionKernel(KernelContext &k) {
  if (k.fusion.getNumResults() != 1)
    return k.fusion.emitOpError()
           << "reduction fusions with several results are not supported yet";
  Operation *root = k.fusion.getRoot();
  Value operand = root->getOperand(0);
  ArrayRef<int64_t> axes = cast<DenseI64ArrayAttr>(root->getAttr("axes"));
  ArrayRef<int64_t> operandShape = tensorType(operand).getShape();
  auto resultType = tensorType(root->getResult(0));
  Accumulation acc{
      isa<ReduceSumOp>(root)   ? Accumulation::Sum
      : isa<ReduceMaxOp>(root) ? Accumulation::Max
      : isa<ReduceMinOp>(root) ? Accumulation::Min
                               : Accumulation::Mean,
      resultType.getElementType()};

  // The reduced axes, symbolic ones read at run time.
  SmallVector<Dim> operandDims = getDims(tensorType(operand));
  SmallVector<Dim> reducedDims;
  for (int64_t axis : axes)
    reducedDims.push_back(operandDims[axis]);

  Dim items = getWorkItemCount(k.fusion);
  LogicalResult built = k.gridStrideLoop(k.idx.sizeValue(items), [&](Value i) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    SmallVector<Value> kept = k.idx.delinearize(i, k.idx.shapeOf(resultType));
    Value init = buildScalarConstant(b, loc, acc.elementType, acc.identity());
    OpFoldResult reducedCount = k.idx.size(*elementCount(reducedDims));
    auto loop =
        scf::ForOp::create(b, loc, k.idx.constant(0), k.idx.value(reducedCount),
                           k.idx.constant(1), ValueRange{init});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> reduced =
          k.idx.delinearize(loop.getInductionVar(), reducedDims);
      // Interleave the kept and reduced coordinates into the operand's.
      SmallVector<Value> full;
      size_t nextKept = 0, nextReduced = 0;
      for (int64_t d = 0; d < static_cast<int64_t>(operandShape.size()); ++d)
        full.push_back(llvm::is_contained(axes, d) ? reduced[nextReduced++]
                                                   : kept[nextKept++]);
      ElementEmitter emitter = k.makeEmitter();
      FailureOr<Value> x = emitter.emit(operand, full);
      if (failed(x))
        return failure();
      scf::YieldOp::create(b, loc,
                           acc.combine(b, loc, loop.getRegionIterArg(0), *x));
    }
    Value value = acc.finish(b, loc, loop.getResult(0), reducedCount);
    k.store(value, k.results[0], kept, acc.elementType);
    return success();
  });
  if (failed(built))
    return failure();
  return k.launchShape(items);
}

/// One thread per output element: the dot product accumulates in the
/// compute type (f32 for narrow floats); operands may be computed by the
/// fusion (prologue) and results by its epilogue. Every size may be given
/// at run time.
static FailureOr<LaunchShape> buildMatmulKernel(KernelContext &k) {
  // A group's results differ in shape; fk-group-matmuls forms groups for
  // the wgmma kernel only.
  if (k.fusion.isMatmulGroup())
    return k.fusion.emitOpError()
           << "is a matmul group, which only the wgmma kernel computes";
  // A pair's matmuls share the result type.
  auto resultType = tensorType(k.fusion.getMatmul().getResult());
  Type elementType = resultType.getElementType();

  Dim items = getWorkItemCount(k.fusion);
  LogicalResult built = k.gridStrideLoop(k.idx.sizeValue(items), [&](Value i) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    SmallVector<Value> coords = k.idx.delinearize(i, k.idx.shapeOf(resultType));
    ElementEmitter epilogue = k.makeEmitter();
    epilogue.contractionHook = [&](Operation *op,
                                   ArrayRef<Value> at) -> FailureOr<Value> {
      auto matmul = cast<MatmulOp>(op);
      SmallVector<Dim> lhsShape = getDims(tensorType(matmul.getLhs())),
                       rhsShape = getDims(tensorType(matmul.getRhs()));
      Dim depth = lhsShape.back();
      ArrayRef<Value> batch = at.drop_back(2);
      Value row = at[at.size() - 2], column = at.back();
      SmallVector<Value> lhsCoords =
          k.idx.broadcastSource(batch, ArrayRef(lhsShape).drop_back(2));
      SmallVector<Value> rhsCoords =
          k.idx.broadcastSource(batch, ArrayRef(rhsShape).drop_back(2));
      Value init = buildScalarConstant(b, loc, elementType, 0.0);
      auto loop =
          scf::ForOp::create(b, loc, k.idx.constant(0), k.idx.sizeValue(depth),
                             k.idx.constant(1), ValueRange{init});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value p = loop.getInductionVar();
        SmallVector<Value> lhsAt(lhsCoords), rhsAt(rhsCoords);
        lhsAt.append({row, p});
        rhsAt.append({p, column});
        ElementEmitter emitter = k.makeEmitter();
        FailureOr<Value> x = emitter.emit(matmul.getLhs(), lhsAt);
        FailureOr<Value> y = emitter.emit(matmul.getRhs(), rhsAt);
        if (failed(x) || failed(y))
          return failure();
        Value acc = loop.getRegionIterArg(0), sum;
        if (isa<FloatType>(elementType))
          sum = arith::AddFOp::create(b, loc, acc,
                                      arith::MulFOp::create(b, loc, *x, *y));
        else
          sum = arith::AddIOp::create(b, loc, acc,
                                      arith::MulIOp::create(b, loc, *x, *y));
        scf::YieldOp::create(b, loc, sum);
      }
      return roundToElementType(b, loc, loop.getResult(0), elementType);
    };
    for (auto [value, buffer] : llvm::zip(yieldedValues(k.fusion), k.results)) {
      FailureOr<Value> element = epilogue.emit(value, coords);
      if (failed(element))
        return failure();
      k.store(*element, buffer, coords, tensorType(value).getElementType());
    }
    return success();
  });
  if (failed(built))
    return failure();
  return k.launchShape(items);
}

//===----------------------------------------------------------------------===//
// Row kernels
//===----------------------------------------------------------------------===//

namespace {
/// Block-wide reductions of one value per thread: a butterfly of warp
/// shuffles, then the warps' partial results through shared memory, which
/// every warp reduces again so that all threads get the total.
class BlockReducer {
public:
  BlockReducer(KernelContext &k, gpu::GPUFuncOp kernel, int64_t threads)
      : k(k), kernel(kernel), threads(threads) {}

  Value reduce(Value partial, const Accumulation &acc) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    Value value = reduceWarp(partial, acc);
    if (threads <= 32)
      return value;
    Value scratch = getScratch(value.getType());
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value lane = arith::RemUIOp::create(b, loc, tid, k.idx.constant(32));
    Value warp = arith::DivUIOp::create(b, loc, tid, k.idx.constant(32));
    // Nobody may still read the scratch of a previous reduction.
    gpu::BarrierOp::create(b, loc);
    Value isFirstLane = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, lane, k.idx.constant(0));
    auto ifFirst = scf::IfOp::create(b, loc, isFirstLane, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifFirst.thenBlock());
      memref::StoreOp::create(b, loc, value, scratch, ValueRange{warp});
    }
    gpu::BarrierOp::create(b, loc);
    int64_t warps = (threads + 31) / 32;
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          lane, k.idx.constant(warps));
    Value slot = arith::SelectOp::create(b, loc, inRange, lane,
                                         k.idx.constant(0));
    Value loaded = memref::LoadOp::create(b, loc, scratch, ValueRange{slot});
    Value identity =
        buildScalarConstant(b, loc, acc.elementType, acc.identity());
    return reduceWarp(arith::SelectOp::create(b, loc, inRange, loaded, identity),
                      acc);
  }

private:
  Value reduceWarp(Value value, const Accumulation &acc) {
    for (int32_t offset = 16; offset >= 1; offset /= 2)
      value = acc.combine(k.b, k.loc, value, shuffleXor(value, offset));
    return value;
  }

  /// The `value` of the lane `offset` away (XOR). Shuffles move 32 bits, so
  /// an i64 moves as its two halves.
  Value shuffleXor(Value value, int32_t offset) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    auto shuffle = [&](Value v) -> Value {
      return gpu::ShuffleOp::create(b, loc, v, offset, 32,
                                    gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    if (!value.getType().isInteger(64))
      return shuffle(value);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value thirtyTwo =
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
    Value low = shuffle(arith::TruncIOp::create(b, loc, i32, value));
    Value high = shuffle(arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, value, thirtyTwo)));
    return arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, low),
        arith::ShLIOp::create(b, loc,
                              arith::ExtUIOp::create(b, loc, i64, high),
                              thirtyTwo));
  }

  /// 32 slots of `type` in shared memory, one buffer per type per kernel.
  Value getScratch(Type type) {
    auto it = scratch.find(type);
    if (it != scratch.end())
      return it->second;
    auto space = gpu::AddressSpaceAttr::get(k.b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto memrefType = MemRefType::get({32}, type, MemRefLayoutAttrInterface(),
                                      space);
    Value buffer = kernel.addWorkgroupAttribution(memrefType, k.loc);
    scratch[type] = buffer;
    return buffer;
  }

  KernelContext &k;
  gpu::GPUFuncOp kernel;
  int64_t threads;
  DenseMap<Type, Value> scratch;
};
} // namespace

static Accumulation accumulationOf(Operation *reduction) {
  Type elementType = tensorType(reduction->getResult(0)).getElementType();
  if (isa<ReduceSumOp>(reduction))
    return {Accumulation::Sum, elementType};
  if (isa<ReduceMaxOp>(reduction))
    return {Accumulation::Max, elementType};
  if (isa<ReduceMinOp>(reduction))
    return {Accumulation::Min, elementType};
  return {Accumulation::Mean, elementType};
}

/// The coordinates of the element of the current row in a value of reduced
/// `shape` (the leading shape up to unit dimensions).
static SmallVector<Value> reducedCoords(IndexBuilder &idx,
                                        ArrayRef<Value> leading,
                                        ArrayRef<int64_t> leadingShape,
                                        ArrayRef<int64_t> shape) {
  SmallVector<Value> nonUnit;
  for (auto [coord, size] : llvm::zip(leading, leadingShape))
    if (size != 1)
      nonUnit.push_back(coord);
  SmallVector<Value> coords;
  size_t next = 0;
  for (int64_t size : shape)
    coords.push_back(size == 1 ? idx.constant(0) : nonUnit[next++]);
  return coords;
}

/// One block per row (a grid-stride loop over rows beyond the grid). Each
/// thread holds up to kElementsPerThread elements of the row, strided by the
/// block size so that a warp's loads are coalesced; every value of the row
/// is computed once, in registers, and reductions combine the threads'
/// partial results with a block reduction. The row is read from device
/// memory once, however many reductions and consumers it has.
///
/// Rows of a length given at run time are held in registers as rows of
/// their bound's length, the elements past the run's masked out. Looped
/// rows (isLoopedRowFusion: too long for registers, or of a run-time
/// length without a bound that keeps them short) are instead read in loops
/// of `threads`-element rounds: one per reduction, in the order of the
/// fusion's body (a reduction's loop uses those before it), then one that
/// writes the fusion's rows, the row's elements computed again in each.
static FailureOr<LaunchShape> buildRowKernel(KernelContext &k,
                                             const RowSpace &rows,
                                             gpu::GPUFuncOp kernel,
                                             TilingAttr tiling) {
  bool looped = isLoopedRowFusion(k.fusion, rows);
  SmallVector<Dim> rowDims = rows.rowDims();
  Dim lengthDim = *elementCount(rowDims);
  ArrayRef<int64_t> leadingShape = rows.leadingShape();
  // A thread takes runs of `width` adjacent elements (vector accesses) when
  // the row is one dimension of static length; runs of a block are
  // adjacent (coalesced).
  int64_t width = tiling.getTile()[0];
  int64_t threads = tiling.getThreads();
  if ((width > 1 && (rowDims.size() != 1 || !lengthDim.isStatic() ||
                     lengthDim.getCoefficient() % width != 0)) ||
      threads < 32 || threads > 1024 || threads % 32 != 0)
    return k.fusion.emitOpError()
           << "cannot be computed by " << threads << "-thread blocks in runs "
           << "of " << width << " elements";
  OpBuilder &b = k.b;
  Location loc = k.loc;
  // The row's length and runs, and each thread's rounds over them: values
  // of the run's sizes for a row of a length given at run time.
  OpFoldResult length = k.idx.size(lengthDim);
  OpFoldResult runs = length, rounds;
  int64_t threadRuns = 0, perThread = 0;
  if (lengthDim.isStatic()) {
    runs = b.getIndexAttr(lengthDim.getCoefficient() / width);
    threadRuns = llvm::divideCeil(lengthDim.getCoefficient() / width, threads);
    perThread = threadRuns * width;
    rounds = b.getIndexAttr(threadRuns);
  } else if (!looped) {
    // Held in registers as rows of the bound's length, masked at the run's.
    threadRuns = llvm::divideCeil(*getLongestRow(k.fusion, rows), threads);
    perThread = threadRuns;
  } else {
    rounds =
        arith::DivUIOp::create(
            b, loc, k.idx.add(k.idx.value(length), k.idx.constant(threads - 1)),
            k.idx.constant(threads))
            .getResult();
  }
  // The leading dimensions, symbolic ones included.
  SmallVector<Dim> leadingDims = rows.leadingDims();
  Dim rowCount = *elementCount(leadingDims);
  SmallVector<OpFoldResult> leadingSizes = k.idx.shapeOf(leadingDims);
  SmallVector<OpFoldResult> rowSizes = k.idx.shapeOf(rowDims);
  BlockReducer reducer(k, kernel, threads);
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto rowLoop =
      scf::ForOp::create(b, loc, blockId, k.idx.sizeValue(rowCount), gridDim);
  LogicalResult built = success();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rowLoop.getBody());
    Value row = rowLoop.getInductionVar();
    SmallVector<Value> leading = k.idx.delinearize(row, leadingSizes);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    // The row's code: its elements held in registers, or (`readInLoops`) read
    // in loops of `rowRounds` rounds.
    auto buildRow = [&](bool readInLoops,
                        OpFoldResult rowRounds) -> LogicalResult {
      // The row elements of this thread: run r = tid + q * threads holds
      // elements r * width + e.
      ElementEmitter emitter = k.makeEmitter();
      emitter.vectorStart.width = width;
      SmallVector<Value> valid, runValid;
      SmallVector<SmallVector<Value>> coords;
      // The coordinates of a run of the row: run r holds elements r * width +
      // e; a run past the row computes on element 0 and is masked out
      // (`inRow` says which).
      auto runCoordinates = [&](Value r, Value &inRow, Value &start,
                                SmallVector<Value> &runCoords) {
        inRow = k.idx.inRange(r, runs);
        Value safe =
            arith::SelectOp::create(b, loc, inRow, r, k.idx.constant(0));
        start = width == 1 ? safe : k.idx.mul(safe, k.idx.constant(width));
        SmallVector<SmallVector<Value>> elements;
        for (int64_t e = 0; e < width; ++e) {
          Value j = e == 0 ? start : k.idx.add(start, k.idx.constant(e));
          SmallVector<Value> full(leading);
          full.append(width == 1 ? k.idx.delinearize(j, rowSizes)
                                 : SmallVector<Value>{j});
          runCoords.push_back(full.back());
          elements.push_back(std::move(full));
        }
        return elements;
      };
      // A looped row is read in the loops below; a row held in registers is
      // read here, run by run.
      // The loop's registers must leave room for the block's 1024 threads:
      // ptxas holds the kernel to its block size once it knows it.
      if (readInLoops)
        kernel.setKnownBlockSizeAttr(
            b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
      for (int64_t q = 0; q < (readInLoops ? 0 : threadRuns); ++q) {
        Value r = k.idx.add(tid, k.idx.constant(q * threads));
        Value inRow, start;
        SmallVector<Value> runCoords;
        for (SmallVector<Value> &full :
             runCoordinates(r, inRow, start, runCoords)) {
          valid.push_back(inRow);
          coords.push_back(std::move(full));
        }
        runValid.push_back(inRow);
        if (width > 1)
          emitter.vectorStart.addRun(start, runCoords);
      }

      // The reductions of the current row, each computed once.
      DenseMap<Operation *, Value> reduced;
      auto knownReduction = [&](Operation *op) -> FailureOr<Value> {
        if (Value known = reduced.lookup(op))
          return known;
        return op->emitOpError() << "is used before it is reduced";
      };
      // Calls `body(inner, inRow, elements)` in a loop over this thread's
      // rowRounds of the row: `inner` emits in the loop's body (its values do
      // not outlive it; reductions already computed are known to it),
      // `elements` the coordinates of the round's run, valid where `inRow`.
      auto loopOverRow = [&](ValueRange inits,
                             function_ref<FailureOr<SmallVector<Value>>(
                                 ElementEmitter &, Value,
                                 ArrayRef<SmallVector<Value>>, ValueRange)>
                                 body) -> FailureOr<ValueRange> {
        auto loop = scf::ForOp::create(b, loc, k.idx.constant(0),
                                       k.idx.value(rowRounds),
                                       k.idx.constant(1), inits);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value r = k.idx.add(
            tid, k.idx.mul(loop.getInductionVar(), k.idx.constant(threads)));
        Value inRow, start;
        SmallVector<Value> runCoords;
        SmallVector<SmallVector<Value>> elements =
            runCoordinates(r, inRow, start, runCoords);
        ElementEmitter inner = k.makeEmitter();
        inner.vectorStart.width = width;
        if (width > 1)
          inner.vectorStart.addRun(start, runCoords);
        inner.reductionHook = knownReduction;
        FailureOr<SmallVector<Value>> carried =
            body(inner, inRow, elements, loop.getRegionIterArgs());
        if (failed(carried))
          return failure();
        // A loop without results has its terminator from the builder.
        if (!inits.empty())
          scf::YieldOp::create(b, loc, *carried);
        return ValueRange(loop.getResults());
      };

      auto reduce = [&](Operation *op) -> FailureOr<Value> {
        if (Value known = reduced.lookup(op))
          return known;
        Accumulation acc = accumulationOf(op);
        Value identity =
            buildScalarConstant(b, loc, acc.elementType, acc.identity());
        Value partial = identity;
        if (readInLoops) {
          FailureOr<ValueRange> result = loopOverRow(
              identity,
              [&](ElementEmitter &inner, Value inRow,
                  ArrayRef<SmallVector<Value>> elements,
                  ValueRange running) -> FailureOr<SmallVector<Value>> {
                Value total = running[0];
                for (const SmallVector<Value> &element : elements) {
                  FailureOr<Value> x = inner.emit(op->getOperand(0), element);
                  if (failed(x))
                    return failure();
                  Value masked =
                      arith::SelectOp::create(b, loc, inRow, *x, identity);
                  total = acc.combine(b, loc, total, masked);
                }
                return SmallVector<Value>{total};
              });
          if (failed(result))
            return failure();
          partial = (*result)[0];
        }
        for (int64_t p = 0; p < (readInLoops ? 0 : perThread); ++p) {
          FailureOr<Value> x = emitter.emit(op->getOperand(0), coords[p]);
          if (failed(x))
            return failure();
          Value masked =
              arith::SelectOp::create(b, loc, valid[p], *x, identity);
          partial = acc.combine(b, loc, partial, masked);
        }
        Value total = acc.finish(b, loc, reducer.reduce(partial, acc), length);
        reduced[op] = total;
        return total;
      };
      emitter.reductionHook = reduce;

      Value isFirstThread = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, tid, k.idx.constant(0));
      // A looped row's reductions, in order, before the loop that writes its
      // rows: each a block-wide reduction that every thread takes part in.
      if (readInLoops)
        for (Operation &op : k.fusion.getBody().front())
          if (isReduction(&op) && failed(reduce(&op)))
            return failure();
      auto isRowValue = [&](Value value) {
        return rows.isRowType(tensorType(value));
      };
      // Every result element first, then the stores, a run under one
      // condition so that its stores can merge into a vector store.
      SmallVector<SmallVector<Value>> values;
      for (Value value : yieldedValues(k.fusion)) {
        auto type = tensorType(value);
        values.emplace_back();
        bool isRow = isRowValue(value);
        if (isRow && readInLoops)
          continue;
        for (int64_t p = 0; p < (isRow ? perThread : 1); ++p) {
          FailureOr<Value> element = emitter.emit(
              value, isRow
                         ? ArrayRef<Value>(coords[p])
                         : ArrayRef<Value>(reducedCoords(
                               k.idx, leading, leadingShape, type.getShape())));
          if (failed(element))
            return failure();
          values.back().push_back(*element);
        }
      }
      for (auto [value, buffer, computed] :
           llvm::zip(yieldedValues(k.fusion), k.results, values)) {
        auto type = tensorType(value);
        Type elementType = type.getElementType();
        bool isRow = isRowValue(value);
        if (isRow && readInLoops)
          continue;
        int64_t groups = isRow ? threadRuns : 1;
        for (int64_t q = 0; q < groups; ++q) {
          auto ifOp =
              scf::IfOp::create(b, loc, isRow ? runValid[q] : isFirstThread,
                                /*withElse=*/false);
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          FlatAddressing addressing(k.idx, k.flatViews);
          if (!isRow) {
            k.store(
                computed[0], buffer,
                reducedCoords(k.idx, leading, leadingShape, type.getShape()),
                elementType, VectorStart(), addressing);
            continue;
          }
          for (int64_t e = 0; e < width; ++e) {
            int64_t p = q * width + e;
            k.store(computed[p], buffer, coords[p], elementType,
                    emitter.vectorStart, addressing);
          }
        }
      }
      // A looped row's rows, written in one more loop over the row.
      if (readInLoops && llvm::any_of(yieldedValues(k.fusion), isRowValue)) {
        FailureOr<ValueRange> written = loopOverRow(
            {},
            [&](ElementEmitter &inner, Value inRow,
                ArrayRef<SmallVector<Value>> elements,
                ValueRange) -> FailureOr<SmallVector<Value>> {
              auto ifOp = scf::IfOp::create(b, loc, inRow, /*withElse=*/false);
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(ifOp.thenBlock());
              for (auto [value, buffer] :
                   llvm::zip(yieldedValues(k.fusion), k.results)) {
                if (!isRowValue(value))
                  continue;
                for (const SmallVector<Value> &element : elements) {
                  FailureOr<Value> x = inner.emit(value, element);
                  if (failed(x))
                    return failure();
                  k.store(*x, buffer, element,
                          tensorType(value).getElementType(), &inner);
                }
              }
              return SmallVector<Value>{};
            });
        if (failed(written))
          return failure();
      }
      return success();
    };
    if (lengthDim.isStatic() || looped ||
        getSmallestSize(lengthDim, getDimLowerBounds(k.fusion)) > 0) {
      built = buildRow(looped, rounds);
    } else {
      // Rows held in registers compute their masked elements on the row's
      // first, which an empty row (a run's length 0) does not have: it is
      // built as rows read in loops of no rounds, its reductions their
      // identities.
      Value empty =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                k.idx.value(length), k.idx.constant(0));
      auto ifEmpty = scf::IfOp::create(b, loc, empty, /*withElse=*/true);
      b.setInsertionPointToStart(ifEmpty.thenBlock());
      built = buildRow(/*readInLoops=*/true, b.getIndexAttr(0));
      if (succeeded(built)) {
        b.setInsertionPointToStart(ifEmpty.elseBlock());
        built = buildRow(/*readInLoops=*/false, OpFoldResult());
      }
    }
  }
  gpu::ReturnOp::create(b, loc);
  if (failed(built))
    return failure();
  // One block per row.
  return k.launchShape(rowCount, threads, /*itemsPerBlock=*/1);
}

FailureOr<LaunchShape> mlir::fk::buildFusionKernel(FusionOp fusion,
                                                   TilingAttr tiling,
                                                   gpu::GPUFuncOp kernel,
                                                   gpu::GPUModuleOp kernels) {
  KernelContext k(fusion, kernel, kernels);
  switch (fusion.getKind()) {
  case FusionKind::Loop:
    if (fusion->hasAttr(kWindowInPlaceAttrName))
      return buildWindowKernel(k, tiling);
    return buildLoopKernel(k, tiling);
  case FusionKind::Reduction:
    if (tiling.getStrategy() == KernelStrategy::Rows) {
      std::optional<RowSpace> rows = getFusionRowSpace(fusion);
      if (!rows)
        return fusion.emitOpError() << "has no rows for a row kernel";
      return buildRowKernel(k, *rows, kernel, tiling);
    }
    return buildReductionKernel(k);
  case FusionKind::Matmul:
    return buildMatmulKernel(k);
  }
  llvm_unreachable("unknown fusion kind");
}
