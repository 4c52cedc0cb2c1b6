//===- TransposeKernel.cpp - transposes through shared-memory tiles -------===//

#include "Codegen/TransposeKernel.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/SharedMemory.h"
#include "fk/IR/FkKernelLimits.h"

using namespace mlir;
using namespace mlir::fk;

/// The grid's y and z limit.
static constexpr int64_t kMaxGridYZ = 65535;

/// The fusion's transpose, when it is the only op and yields the only result
/// from a block argument.
static TransposeOp getTileTranspose(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::Loop || fusion.getNumResults() != 1)
    return {};
  Block &body = fusion.getBody().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return {};
  auto transpose = dyn_cast<TransposeOp>(body.front());
  if (!transpose || !swapsLastTwoDims(transpose) ||
      !isa<BlockArgument>(transpose.getOperand()) ||
      body.getTerminator()->getOperand(0) != transpose.getResult())
    return {};
  return transpose;
}

bool mlir::fk::isTileTranspose(FusionOp fusion) {
  TransposeOp transpose = getTileTranspose(fusion);
  if (!transpose)
    return false;
  ArrayRef<int64_t> shape = tensorType(transpose.getOperand()).getShape();
  int64_t rows = shape[shape.size() - 2];
  int64_t matrices = ShapedType::getNumElements(shape.drop_back(2));
  return ShapedType::getNumElements(shape) > 0 &&
         (rows + kTransposeTile - 1) / kTransposeTile <= kMaxGridYZ &&
         matrices <= kMaxGridYZ;
}

FailureOr<LaunchShape> mlir::fk::buildTransposeKernel(FusionOp fusion,
                                                      gpu::GPUFuncOp kernel,
                                                      gpu::GPUModuleOp kernels) {
  if (!isTileTranspose(fusion))
    return fusion.emitOpError()
           << "is not a transpose of the last two dimensions of an input, "
              "which the transpose kernel computes";
  TransposeOp transpose = getTileTranspose(fusion);
  KernelContext k(fusion, kernel, kernels);
  OpBuilder &b = k.b;
  Location loc = k.loc;
  ArrayRef<int64_t> shape = tensorType(transpose.getOperand()).getShape();
  // x [matrices, rows, columns] -> y [matrices, columns, rows].
  int64_t rows = shape[shape.size() - 2], columns = shape.back();
  int64_t matrices = ShapedType::getNumElements(shape.drop_back(2));
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {int32_t(kTransposeTile), int32_t(kTransposeRowsPerStep), 1}));

  Value input = collapseToOneDim(
      b, loc, k.buffers.lookup(cast<BlockArgument>(transpose.getOperand())));
  Value output = collapseToOneDim(b, loc, k.results.front());
  Type element = cast<MemRefType>(input.getType()).getElementType();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  auto tileType = getSharedMemRefType(
      b.getContext(), {kTransposeTile, kTransposeTile + 1}, element);
  int64_t sharedBytes =
      kTransposeTile * (kTransposeTile + 1) * elementBytes + kRingAlignment;
  DynamicSharedMemory shared =
      DynamicSharedMemory::create(b, loc, kernels, sharedBytes);
  Value tile = shared.view(b, loc, k.idx.constant(0), tileType);

  IndexBuilder &idx = k.idx;
  auto index = [&](int64_t v) { return idx.constant(v); };
  Value lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value step = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value firstColumn = idx.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                              index(kTransposeTile));
  Value firstRow = idx.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
                           index(kTransposeTile));
  Value matrixBase = idx.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z),
                             index(rows * columns));
  // `body` for the tile's rows step + 8 i, if `inside(row)`.
  auto forEachStep = [&](function_ref<Value(Value)> inside,
                         function_ref<void(Value)> body) {
    for (int64_t i = 0; i < kTransposeTile / kTransposeRowsPerStep; ++i) {
      Value local = idx.add(step, index(i * kTransposeRowsPerStep));
      auto guarded = scf::IfOp::create(b, loc, inside(local),
                                       /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
      body(local);
    }
  };
  auto both = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };

  // A warp reads 32 adjacent elements of row firstRow + local of x.
  Value column = idx.add(firstColumn, lane);
  Value columnInside = idx.inRange(column, columns);
  forEachStep(
      [&](Value local) {
        return both(idx.inRange(idx.add(firstRow, local), rows), columnInside);
      },
      [&](Value local) {
        Value row = idx.add(firstRow, local);
        Value at = idx.add(matrixBase, idx.add(idx.mul(row, index(columns)),
                                               column));
        Value value = memref::LoadOp::create(b, loc, input, ValueRange{at});
        memref::StoreOp::create(b, loc, value, tile, ValueRange{local, lane});
      });
  gpu::BarrierOp::create(b, loc);
  // And writes 32 adjacent elements of row firstColumn + local of y, from
  // column local of the tile.
  Value row = idx.add(firstRow, lane);
  Value rowInside = idx.inRange(row, rows);
  forEachStep(
      [&](Value local) {
        return both(idx.inRange(idx.add(firstColumn, local), columns),
                    rowInside);
      },
      [&](Value local) {
        Value outputRow = idx.add(firstColumn, local);
        Value at = idx.add(matrixBase,
                           idx.add(idx.mul(outputRow, index(rows)), row));
        Value value =
            memref::LoadOp::create(b, loc, tile, ValueRange{lane, local});
        memref::StoreOp::create(b, loc, value, output, ValueRange{at});
      });
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  launch.grid = {(columns + kTransposeTile - 1) / kTransposeTile,
                 (rows + kTransposeTile - 1) / kTransposeTile, matrices};
  launch.block = {kTransposeTile, kTransposeRowsPerStep, 1};
  launch.sharedBytes = sharedBytes;
  return launch;
}
