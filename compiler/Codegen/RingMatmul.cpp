//===- RingMatmul.cpp - matmul kernels fed by a cp.async ring -------------===//

#include "Codegen/RingMatmul.h"

using namespace mlir;
using namespace mlir::fk;

RingMatmulKernel::RingMatmulKernel(FusionOp fusion, gpu::GPUFuncOp kernel,
                                   gpu::GPUModuleOp kernels, Blocking blocking)
    : k(fusion, kernel, kernels), matmul(fusion.getMatmul()), shape(matmul),
      b(k.b), loc(k.loc), ctx(fusion.getContext()), kernel(kernel),
      blocking(blocking) {}

void RingMatmulKernel::setUp(SwizzledTile a, SwizzledTile bLayout,
                             int64_t sharedBytes, Type element) {
  aTile = a;
  bTile = bLayout;
  kTiles = llvm::divideCeil(shape.k, blocking.tileK);
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(blocking.threads), 1, 1}));
  lhs = collapseToOneDim(b, loc, k.buffers.lookup(matmul.getLhs()));
  rhs = collapseToOneDim(b, loc,
                         k.buffers.lookup(getTensorCoreRhsInput(matmul)));
  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  std::tie(tileRow, tileColumn) =
      emitOutputTileOrigin(k, shape, blocking.tileM, blocking.tileN);
  lhsBase = rhsBase = index(0);
  if (shape.batched()) {
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    batchCoords = k.idx.delinearize(batch, shape.batch);
    lhsBase = mul(k.idx.broadcastLinear(batchCoords, shape.lhsBatch),
                  index(shape.m * shape.k));
    rhsBase = mul(k.idx.broadcastLinear(batchCoords, shape.rhsBatch),
                  index(shape.k * shape.n));
  }
  shared = DynamicSharedMemory::create(b, loc, k.kernels, sharedBytes);
  int64_t ringElements =
      blocking.stages * (aTile.elements() + bTile.elements());
  ring = shared.view(b, loc, index(0),
                     getSharedMemRefType(ctx, {ringElements}, element));
}

void RingMatmulKernel::loadStage(Value stage, Value kTile) {
  int64_t stageElements = aTile.elements() + bTile.elements();
  Value aStart = mul(stage, index(stageElements));
  Value bStart = add(aStart, index(aTile.elements()));
  Value kStart = mul(kTile, index(blocking.tileK));
  // Rows of whole 16-byte pieces by cp.async; others element by element.
  auto copy = [&](bool aligned, const SwizzledTile &tile, Value start,
                  Value global, Value base, Value firstRow,
                  Value firstColumn, OpFoldResult rows, int64_t columns) {
    (aligned ? copyTileAsync : copyTileByElements)(
        k.idx, thread, blocking.threads, tile, ring, start, global, base,
        firstRow, firstColumn, rows, columns, columns);
  };
  copy(shape.lhsRowsAligned(), aTile, aStart, lhs, lhsBase, tileRow, kStart,
       k.idx.size(shape.rows), shape.k);
  // B [K, N] as stored, or K-major: w [N, K]'s rows, as A's.
  bool rhsAligned = shape.rhsRowsAligned();
  if (shape.rhsKMajor)
    copy(rhsAligned, bTile, bStart, rhs, rhsBase, tileColumn, kStart,
         b.getIndexAttr(shape.n), shape.k);
  else
    copy(rhsAligned, bTile, bStart, rhs, rhsBase, kStart, tileColumn,
         b.getIndexAttr(shape.k), shape.n);
}

SmallVector<Value> RingMatmulKernel::mainLoop(
    ArrayRef<Value> init,
    function_ref<SmallVector<Value>(Value, Value, ValueRange)> multiply) {
  int64_t stages = blocking.stages;
  Value token;
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < kTiles)
      loadStage(index(s), index(s));
    token = commitAsyncCopies(b, loc);
  }
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(kTiles), index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    // This thread's copies of the step have landed; the barrier makes every
    // thread's visible, and every warp is done with the stage refilled next
    // (the one read in the previous iteration).
    waitAsyncCopies(b, loc, token, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(kTile, index(stages - 1));
    auto inRange = scf::IfOp::create(b, loc, k.idx.inRange(ahead, kTiles),
                                     /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&inRange.getThenRegion().front());
      loadStage(rem(ahead, stages), ahead);
    }
    commitAsyncCopies(b, loc);
    int64_t stageElements = aTile.elements() + bTile.elements();
    Value aStart = mul(rem(kTile, stages), index(stageElements));
    Value bStart = add(aStart, index(aTile.elements()));
    scf::YieldOp::create(b, loc,
                         multiply(aStart, bStart, loop.getRegionIterArgs()));
  }
  // Every copy has landed (the last groups are empty) and every warp is
  // done reading the ring before it holds the accumulator tile.
  waitAsyncCopies(b, loc, token, 0);
  gpu::BarrierOp::create(b, loc);
  return loop.getResults();
}

LogicalResult RingMatmulKernel::epilogue(
    ValueRange accumulators, int64_t padding,
    function_ref<std::pair<Value, Value>(int64_t)> place) {
  // f32 accumulators, or the integer ones of integer operands.
  Value tile = shared.view(
      b, loc, index(0),
      getSharedMemRefType(ctx, {blocking.tileM, blocking.tileN + padding},
                          accumulators.front().getType()));
  for (auto [i, value] : llvm::enumerate(accumulators)) {
    auto [row, column] = place(i);
    memref::StoreOp::create(b, loc, value, tile, ValueRange{row, column});
  }
  gpu::BarrierOp::create(b, loc);
  return emitMatmulEpilogue(k, shape, tile,
                            getLiveTileRows(blocking.tileM, shape),
                            blocking.tileN, tileRow, tileColumn, batchCoords,
                            blocking.threads);
}

LaunchShape RingMatmulKernel::getLaunch(int64_t sharedBytes) const {
  LaunchShape launch;
  launch.grid = {0,
                 (shape.n + blocking.tileN - 1) / blocking.tileN,
                 shape.batches()};
  launch.block = {blocking.threads, 1, 1};
  launch.sharedBytes = sharedBytes;
  setRowTileGrid(launch, shape, blocking.tileM);
  return launch;
}
