//===- KernelBuilder.cpp - the GPU kernel of a fusion ---------------------===//

#include "Codegen/KernelBuilder.h"
#include "Codegen/ScalarLowering.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>
#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::fk;

/// Threads per block of the element-per-thread kernels.
static constexpr int64_t kBlockSize = 256;
/// Blocks beyond this many loop over the remaining work (grid-stride).
static constexpr int64_t kMaxBlocks = int64_t(1) << 20;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

int64_t mlir::fk::getWorkItemCount(FusionOp fusion) {
  return tensorType(fusion.getResult(0)).getNumElements();
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

namespace {
/// Builds index arithmetic on `index` values.
struct IndexBuilder {
  OpBuilder &b;
  Location loc;

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }

  /// The row-major coordinates of `linear` in `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape) {
    SmallVector<Value> coords(shape.size());
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (shape[d] == 1) {
        coords[d] = constant(0);
        continue;
      }
      if (d == 0) {
        coords[d] = linear;
        break;
      }
      Value size = constant(shape[d]);
      coords[d] = arith::RemUIOp::create(b, loc, linear, size);
      linear = arith::DivUIOp::create(b, loc, linear, size);
    }
    return coords;
  }

  /// The row-major linear index of `coords` in `shape`.
  Value linearize(ArrayRef<Value> coords, ArrayRef<int64_t> shape) {
    Value linear = constant(0);
    for (auto [coord, size] : llvm::zip(coords, shape))
      linear = add(mul(linear, constant(size)), coord);
    return linear;
  }

  /// The coordinates in an operand of `operandShape` that numpy-broadcasts
  /// to the shape of `coords`.
  SmallVector<Value> broadcastSource(ArrayRef<Value> coords,
                                     ArrayRef<int64_t> operandShape) {
    size_t offset = coords.size() - operandShape.size();
    SmallVector<Value> result;
    for (auto [i, size] : llvm::enumerate(operandShape))
      result.push_back(size == 1 ? constant(0) : coords[offset + i]);
    return result;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Element emission
//===----------------------------------------------------------------------===//

namespace {
/// Emits the compute-type scalar of a tensor value of a fusion's body at
/// given coordinates. Values are cached per (value, coordinates), so a value
/// used twice at one point is computed once. One emitter serves one block:
/// its cached values must dominate every later use.
class ElementEmitter {
public:
  ElementEmitter(OpBuilder &b, Location loc,
                 const DenseMap<Value, Value> &buffers,
                 gpu::GPUModuleOp kernels)
      : b(b), loc(loc), idx{b, loc}, buffers(buffers), kernels(kernels) {}

  FailureOr<Value> emit(Value tensor, ArrayRef<Value> coords);

  /// Loads element `coords` of `memref` (holding `elementType` elements)
  /// in compute type.
  Value load(Value memref, ArrayRef<Value> coords, Type elementType) {
    Value raw = memref::LoadOp::create(b, loc, memref, coords);
    if (elementType.isSignlessInteger(1) &&
        !cast<MemRefType>(memref.getType()).getElementType().isInteger(1))
      return arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, raw,
          arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0)));
    return extendToComputeType(b, loc, raw, elementType);
  }

private:
  FailureOr<Value> emitUncached(Value tensor, ArrayRef<Value> coords);
  Value emitIota(IotaOp iota, ArrayRef<Value> coords);

  OpBuilder &b;
  Location loc;
  IndexBuilder idx;
  const DenseMap<Value, Value> &buffers;
  gpu::GPUModuleOp kernels;
  std::map<std::vector<void *>, Value> cache;
};
} // namespace

FailureOr<Value> ElementEmitter::emit(Value tensor, ArrayRef<Value> coords) {
  std::vector<void *> key = {tensor.getAsOpaquePointer()};
  for (Value coord : coords)
    key.push_back(coord.getAsOpaquePointer());
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  FailureOr<Value> value = emitUncached(tensor, coords);
  if (succeeded(value))
    cache[key] = *value;
  return value;
}

Value ElementEmitter::emitIota(IotaOp iota, ArrayRef<Value> coords) {
  Type elementType = tensorType(iota.getResult()).getElementType();
  Value index = coords[iota.getDim()];
  Value asI32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  if (!isa<FloatType>(elementType))
    return asI32;
  Value asFloat = arith::SIToFPOp::create(b, loc, b.getF32Type(), asI32);
  return roundToElementType(b, loc, asFloat, elementType);
}

FailureOr<Value> ElementEmitter::emitUncached(Value tensor,
                                              ArrayRef<Value> coords) {
  Type elementType = tensorType(tensor).getElementType();
  if (auto it = buffers.find(tensor); it != buffers.end())
    return load(it->second, coords, elementType);

  Operation *op = tensor.getDefiningOp();
  if (!op)
    return emitError(loc) << "kernel input without a buffer";

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    if (dense.isSplat())
      return buildScalarConstant(
          b, loc, elementType,
          attributeToDouble(dense.getSplatValue<Attribute>()));
    DenseElementsAttr stored = dense;
    if (elementType.isSignlessInteger(1))
      stored = dense.mapValues(b.getI8Type(), [](const APInt &bit) {
        return APInt(8, bit.getZExtValue());
      });
    auto memrefType =
        MemRefType::get(tensorType(tensor).getShape(), stored.getElementType());
    memref::GlobalOp global;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kernels.getBody());
      global = memref::GlobalOp::create(
          b, loc, "fk_constant", b.getStringAttr("private"), memrefType,
          stored, /*constant=*/true, /*alignment=*/IntegerAttr());
      SymbolTable(kernels).insert(global);
    }
    Value memref =
        memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
    return load(memref, coords, elementType);
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return emitIota(iota, coords);
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return emit(broadcast.getOperand(),
                idx.broadcastSource(
                    coords, tensorType(broadcast.getOperand()).getShape()));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dimension i walks operand dimension perm[i].
    SmallVector<Value> source(coords.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
      source[p] = coords[i];
    return emit(transpose.getOperand(), source);
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Value linear =
        idx.linearize(coords, tensorType(reshape.getResult()).getShape());
    return emit(reshape.getOperand(),
                idx.delinearize(linear,
                                tensorType(reshape.getOperand()).getShape()));
  }
  if (op->hasTrait<OpTrait::Elementwise>()) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> value = emit(operand, coords);
      if (failed(value))
        return failure();
      operands.push_back(*value);
    }
    return buildElementwiseOp(b, op, operands);
  }
  return op->emitOpError()
         << "cannot be computed element by element inside a kernel";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {
/// What the kernels of every kind share: the argument buffers and the
/// grid-stride loop over work items.
class KernelContext {
public:
  KernelContext(FusionOp fusion, gpu::GPUFuncOp kernel,
                gpu::GPUModuleOp kernels)
      : fusion(fusion), kernels(kernels), loc(fusion.getLoc()),
        b(&kernel.getBody().front(), kernel.getBody().front().begin()),
        idx{b, loc} {
    Block &entry = kernel.getBody().front();
    Block &body = fusion.getBody().front();
    for (auto [arg, buffer] :
         llvm::zip(body.getArguments(),
                   entry.getArguments().take_front(body.getNumArguments())))
      buffers[arg] = buffer;
    for (BlockArgument result :
         entry.getArguments().drop_front(body.getNumArguments()))
      results.push_back(result);
  }

  ElementEmitter makeEmitter() {
    return ElementEmitter(b, loc, buffers, kernels);
  }

  /// Emits `for (i = global thread id; i < count; i += thread count)` and
  /// calls `body(i)` inside; then `gpu.return`.
  LogicalResult gridStrideLoop(int64_t count,
                               function_ref<LogicalResult(Value)> body) {
    Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value start = idx.add(idx.mul(blockId, blockDim), threadId);
    Value step = idx.mul(gridDim, blockDim);
    auto loop = scf::ForOp::create(b, loc, start, idx.constant(count), step);
    LogicalResult result = success();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      result = body(loop.getInductionVar());
    }
    gpu::ReturnOp::create(b, loc);
    return result;
  }

  LaunchShape launchShape() const {
    int64_t count = getWorkItemCount(fusion);
    LaunchShape shape;
    shape.block[0] = kBlockSize;
    shape.grid[0] =
        std::max<int64_t>(1, std::min(kMaxBlocks, (count + kBlockSize - 1) /
                                                      kBlockSize));
    return shape;
  }

  void store(Value value, Value memref, ArrayRef<Value> coords,
             Type elementType) {
    Value stored = truncateToElementType(b, loc, value, elementType);
    if (elementType.isSignlessInteger(1) &&
        !cast<MemRefType>(memref.getType()).getElementType().isInteger(1))
      stored = arith::ExtUIOp::create(b, loc, b.getI8Type(), stored);
    memref::StoreOp::create(b, loc, stored, memref, coords);
  }

  FusionOp fusion;
  gpu::GPUModuleOp kernels;
  Location loc;
  OpBuilder b;
  IndexBuilder idx;
  DenseMap<Value, Value> buffers;
  SmallVector<Value> results;
};
} // namespace

static ValueRange yieldedValues(FusionOp fusion) {
  return cast<YieldOp>(fusion.getBody().front().getTerminator()).getValues();
}

static LogicalResult buildLoopKernel(KernelContext &k) {
  ArrayRef<int64_t> shape = tensorType(k.fusion.getResult(0)).getShape();
  for (Value result : k.fusion.getResults())
    if (tensorType(result).getShape() != shape)
      return k.fusion.emitOpError()
             << "loop fusion results of different shapes are not supported";
  return k.gridStrideLoop(getWorkItemCount(k.fusion), [&](Value i) {
    ElementEmitter emitter = k.makeEmitter();
    SmallVector<Value> coords = k.idx.delinearize(i, shape);
    for (auto [value, buffer] : llvm::zip(yieldedValues(k.fusion), k.results)) {
      FailureOr<Value> element = emitter.emit(value, coords);
      if (failed(element))
        return failure();
      k.store(*element, buffer, coords, tensorType(value).getElementType());
    }
    return success();
  });
}

namespace {
/// The accumulation of one reduction kind.
struct Accumulation {
  enum Kind { Sum, Max, Min, Mean } kind;
  Type elementType;

  double identity() const {
    bool isInteger = elementType.isSignlessInteger(32);
    switch (kind) {
    case Max:
      return isInteger ? std::numeric_limits<int32_t>::min()
                       : -std::numeric_limits<double>::infinity();
    case Min:
      return isInteger ? std::numeric_limits<int32_t>::max()
                       : std::numeric_limits<double>::infinity();
    case Sum:
    case Mean:
      return 0.0;
    }
    llvm_unreachable("unknown reduction");
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

static LogicalResult buildReductionKernel(KernelContext &k) {
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

  SmallVector<int64_t> reducedShape;
  int64_t reducedCount = 1;
  for (int64_t axis : axes) {
    reducedShape.push_back(operandShape[axis]);
    reducedCount *= operandShape[axis];
  }

  return k.gridStrideLoop(getWorkItemCount(k.fusion), [&](Value i) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    SmallVector<Value> kept = k.idx.delinearize(i, resultType.getShape());
    Value init = buildScalarConstant(b, loc, acc.elementType, acc.identity());
    auto loop = scf::ForOp::create(b, loc, k.idx.constant(0),
                                   k.idx.constant(reducedCount),
                                   k.idx.constant(1), ValueRange{init});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> reduced =
          k.idx.delinearize(loop.getInductionVar(), reducedShape);
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
    Value value = loop.getResult(0);
    if (acc.kind == Accumulation::Mean)
      value = arith::DivFOp::create(
          b, loc, value,
          buildScalarConstant(b, loc, acc.elementType,
                              static_cast<double>(reducedCount)));
    value = roundToElementType(b, loc, value, acc.elementType);
    k.store(value, k.results[0], kept, acc.elementType);
    return success();
  });
}

static LogicalResult buildMatmulKernel(KernelContext &k) {
  if (k.fusion.getNumResults() != 1)
    return k.fusion.emitOpError()
           << "matmul fusions with several results are not supported yet";
  auto matmul = cast<MatmulOp>(k.fusion.getRoot());
  auto resultType = tensorType(matmul.getResult());
  ArrayRef<int64_t> lhsShape = tensorType(matmul.getLhs()).getShape(),
                    rhsShape = tensorType(matmul.getRhs()).getShape();
  int64_t depth = lhsShape.back();
  Type elementType = resultType.getElementType();

  return k.gridStrideLoop(getWorkItemCount(k.fusion), [&](Value i) {
    OpBuilder &b = k.b;
    Location loc = k.loc;
    SmallVector<Value> coords = k.idx.delinearize(i, resultType.getShape());
    ArrayRef<Value> batch = ArrayRef(coords).drop_back(2);
    Value row = coords[coords.size() - 2], column = coords.back();
    SmallVector<Value> lhsCoords =
        k.idx.broadcastSource(batch, lhsShape.drop_back(2));
    SmallVector<Value> rhsCoords =
        k.idx.broadcastSource(batch, rhsShape.drop_back(2));

    Value init = buildScalarConstant(b, loc, elementType, 0.0);
    auto loop = scf::ForOp::create(b, loc, k.idx.constant(0),
                                   k.idx.constant(depth), k.idx.constant(1),
                                   ValueRange{init});
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
    Value value = roundToElementType(b, loc, loop.getResult(0), elementType);
    k.store(value, k.results[0], coords, elementType);
    return success();
  });
}

FailureOr<LaunchShape> mlir::fk::buildFusionKernel(FusionOp fusion,
                                                   gpu::GPUFuncOp kernel,
                                                   gpu::GPUModuleOp kernels) {
  KernelContext k(fusion, kernel, kernels);
  LogicalResult built = failure();
  switch (fusion.getKind()) {
  case FusionKind::Loop:
    built = buildLoopKernel(k);
    break;
  case FusionKind::Reduction:
    built = buildReductionKernel(k);
    break;
  case FusionKind::Matmul:
    built = buildMatmulKernel(k);
    break;
  }
  if (failed(built))
    return failure();
  return k.launchShape();
}
