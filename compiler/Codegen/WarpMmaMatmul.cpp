//===- WarpMmaMatmul.cpp - matmul fusions on warp-level tensor cores ------===//
//
// One block of four warps (128 threads) per output tile of tileM x tileN,
// each warp computing a (tileM / 2) x (tileN / 2) quarter of it as a grid
// of 16 x 8 mma.sync tiles whose f32 accumulators stay in registers:
//
//   prologue   every thread issues cp.async copies of 16-byte pieces of the
//              first stages-1 K tiles of A and B into the shared-memory
//              ring, one commit group per K tile
//   main loop  per K tile: wait until at most stages-2 groups are pending
//              (this tile's has landed), a CTA barrier (every thread's
//              copies are visible, and every warp is done with the stage
//              refilled next), the copies of the K tile stages-1 ahead into
//              the stage read in the previous iteration, then per 16 of K:
//              ldmatrix of the warp's A and B fragments and the mma.syncs
//   epilogue   the accumulators go to an f32 tile in shared memory (reusing
//              the ring); each thread takes runs of adjacent output elements,
//              evaluates the fusion's epilogue on them and stores every result
//
// Shared-memory tiles are rows of 16-byte chunks, the chunk index XORed
// with bits of the row (a swizzle), so that the eight rows one ldmatrix
// phase reads, each a chunk at the same column, fall in eight different
// bank groups.
//
// The right operand B [K, N] is copied as stored (N innermost) and read by
// ldmatrix.trans; where the fusion computes it as transpose(w) of an input
// w [N, K] (x @ transpose(w)), w's rows are copied as A's are and read by
// plain ldmatrix, the layout mma.sync takes for B: no transposing copy.
//
// Out-of-bounds pieces of operand tiles (M, N, K not multiples of the tile)
// are zero-filled by the copy (cp.async with a source size of 0), so they
// add nothing; out-of-bounds outputs are not stored. Batches are the grid's
// z, or rows of one product where B has no batch dims (MatmulShape).
//
//===----------------------------------------------------------------------===//

#include "Codegen/WarpMmaMatmul.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/SharedMemory.h"
#include "Codegen/WarpMma.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::fk;

/// f32 columns the accumulator tile's rows are padded by: a half-warp's
/// 8-byte stores of a fragment (4 rows x 4 column pairs) then cover the 32
/// banks once.
static constexpr int64_t kAccumulatorPadding = 8;

WarpMmaTiling WarpMmaTiling::get(TilingAttr tiling, int64_t stages) {
  ArrayRef<int64_t> tile = tiling.getTile();
  return {tile[0], tile[1], tile[2], stages};
}

int64_t WarpMmaTiling::getSharedBytes(int64_t elementBytes) const {
  int64_t accumulator = tileM * (tileN + kAccumulatorPadding) * 4;
  return std::max(stages * getStageBytes(elementBytes), accumulator) +
         kRingAlignment;
}

std::string mlir::fk::whyNotWarpMmaMatmul(FusionOp fusion, TargetAttr target) {
  // mma.sync m16n8k16 on 16-bit floats and cp.async came with sm_80.
  if (target.getComputeCapability() < 80)
    return "target " + target.getChip().str() +
           " predates sm_80 (mma.sync m16n8k16 and cp.async)";
  return whyNotTensorCoreOperands(fusion);
}

std::string mlir::fk::checkWarpMmaTile(ArrayRef<int64_t> tile) {
  if (tile.size() != 3)
    return "expects tile sizes M,N,K (the mma.sync kernel does not split K)";
  int64_t m = tile[0], n = tile[1], k = tile[2];
  // Four warps, 2 x 2, each at least 32 x 32 (two ldmatrix.x4 of B); the
  // copies give each thread whole 16-byte pieces of every tile.
  if (m != 64 && m != 128)
    return "tile M must be 64 or 128 (2 x 2 warps of 16-row mma tiles)";
  if (n != 64 && n != 128)
    return "tile N must be 64 or 128 (2 x 2 warps, B fragments 16 wide)";
  if (k != 32 && k != 64)
    return "tile K must be 32 or 64 (16-byte pieces, mma.sync's K of 16)";
  return "";
}

SmallVector<int64_t> mlir::fk::chooseWarpMmaTile(MatmulOp matmul,
                                                 TargetAttr target) {
  // The Hopper kernel's rule (chooseTensorCoreTile), with K steps of 32: a
  // 64-byte row of 16-bit elements per operand tile row, so that four
  // stages of 128 x 128 tiles take 64 KiB.
  if (prefersNarrowTiles(MatmulShape(matmul), target.getSmCount()))
    return {64, 64, 32};
  return {128, 128, 32};
}

namespace {
/// Builds the kernel body; see the file comment.
class WarpMmaKernel {
public:
  WarpMmaKernel(FusionOp fusion, const WarpMmaTiling &tiling,
                gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels)
      : k(fusion, kernel, kernels), tiling(tiling), matmul(fusion.getMatmul()),
        shape(matmul), b(k.b), loc(k.loc), ctx(fusion.getContext()),
        kernel(kernel) {}

  FailureOr<LaunchShape> build();

private:
  Value index(int64_t v) { return k.idx.constant(v); }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y));
  }
  Value less(Value x, int64_t bound) { return k.idx.inRange(x, bound); }

  /// Issues the copies of the K tile `kTile` of A and B into `stage`.
  void loadStage(Value stage, Value kTile);
  /// The mma.syncs of one K tile on the stage at those ring offsets.
  SmallVector<Value> multiplyTile(Value aStart, Value bStart,
                                  ValueRange accumulators);
  /// copyTileAsync of `tile` at `tileStart` by the block's threads.
  void copyTile(const SwizzledTile &tile, Value tileStart, Value global,
                Value base, Value firstRow, Value firstColumn,
                int64_t rowBound, int64_t columnBound) {
    copyTileAsync(k.idx, thread, kWarpMmaThreads, tile, ring, tileStart,
                  global, base, firstRow, firstColumn, rowBound, columnBound,
                  columnBound);
  }
  Value offset(const SwizzledTile &tile, Value tileStart, Value row,
               Value chunk) {
    return tile.offset(k.idx, tileStart, row, chunk);
  }
  SmallVector<Value, 4> loadMatrices(Value offset, bool transpose) {
    return fk::loadMatrices(b, loc, ring, offset, transpose,
                            shape.elementType);
  }
  SmallVector<Value> mainLoop();
  LogicalResult epilogue(ValueRange accumulators);

  KernelContext k;
  const WarpMmaTiling &tiling;
  MatmulOp matmul;
  MatmulShape shape;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  gpu::GPUFuncOp kernel;

  SwizzledTile aTile{}, bTile{};
  int64_t kTiles = 0, warpRows = 0, warpColumns = 0;
  /// The mma tiles of a warp's quarter: mTiles x nTiles.
  int64_t mTiles = 0, nTiles = 0;
  DynamicSharedMemory shared;
  Value ring, lhs, rhs, lhsBase, rhsBase;
  Value thread, lane, warpRow, warpColumn, tileRow, tileColumn;
  SmallVector<Value> batchCoords;
};
} // namespace

void WarpMmaKernel::loadStage(Value stage, Value kTile) {
  int64_t stageElements = aTile.elements() + bTile.elements();
  Value aStart = mul(stage, index(stageElements));
  Value bStart = add(aStart, index(aTile.elements()));
  Value kStart = mul(kTile, index(tiling.tileK));
  copyTile(aTile, aStart, lhs, lhsBase, tileRow, kStart, shape.m, shape.k);
  if (shape.rhsKMajor)
    copyTile(bTile, bStart, rhs, rhsBase, tileColumn, kStart, shape.n,
             shape.k);
  else
    copyTile(bTile, bStart, rhs, rhsBase, kStart, tileColumn, shape.k,
             shape.n);
}

SmallVector<Value> WarpMmaKernel::multiplyTile(Value aStart, Value bStart,
                                               ValueRange accumulators) {
  SmallVector<Value> next(accumulators);
  Value laneRow16 = rem(lane, 16), laneHalf = div(lane, 16);
  Value laneRow8 = rem(lane, 8), laneQuarter = rem(div(lane, 8), 2);
  for (int64_t step = 0; step < tiling.tileK / kMmaK; ++step) {
    int64_t firstChunk = step * kMmaK / kChunkElements;
    // A, per 16-row mma tile: matrices (rows 0-7, K 0-7), (rows 8-15, K
    // 0-7), (rows 0-7, K 8-15), (rows 8-15, K 8-15), lane l addressing row
    // l % 16 of chunk l / 16: the mma's a0..a3.
    SmallVector<SmallVector<Value, 4>> a;
    for (int64_t i = 0; i < mTiles; ++i) {
      Value row = add(warpRow, add(index(i * kMmaM), laneRow16));
      a.push_back(loadMatrices(
          offset(aTile, aStart, row, add(index(firstChunk), laneHalf)),
          /*transpose=*/false));
    }
    // B, per pair of 8-column mma tiles: two registers (K 0-7, K 8-15) for
    // each.
    SmallVector<SmallVector<Value, 4>> bPairs;
    for (int64_t j = 0; j < nTiles / 2; ++j) {
      Value column = add(warpColumn, index(j * 2 * kMmaN));
      if (shape.rhsKMajor) {
        // w's rows are B's columns: matrices (N 0-7, K 0-7), (N 0-7, K
        // 8-15), (N 8-15, K 0-7), (N 8-15, K 8-15).
        Value row = add(column, add(laneRow8, mul(laneHalf, index(8))));
        Value chunk = add(index(firstChunk), laneQuarter);
        bPairs.push_back(loadMatrices(offset(bTile, bStart, row, chunk),
                                      /*transpose=*/false));
        continue;
      }
      // K rows of B, transposed: matrices (K 0-7, N 0-7), (K 8-15, N 0-7),
      // (K 0-7, N 8-15), (K 8-15, N 8-15).
      Value row = add(index(step * kMmaK), add(laneRow8, mul(laneQuarter, index(8))));
      Value chunk = add(div(column, kChunkElements), laneHalf);
      bPairs.push_back(loadMatrices(offset(bTile, bStart, row, chunk),
                                    /*transpose=*/true));
    }
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        MutableArrayRef<Value> c =
            MutableArrayRef<Value>(next).slice((i * nTiles + j) * 4, 4);
        ArrayRef<Value> bRegisters =
            ArrayRef<Value>(bPairs[j / 2]).slice(j % 2 * 2, 2);
        SmallVector<Value, 4> d =
            mmaSync(b, loc, shape.elementType, a[i], bRegisters, c);
        llvm::copy(d, c.begin());
      }
  }
  return next;
}

SmallVector<Value> WarpMmaKernel::mainLoop() {
  int64_t stages = tiling.stages;
  // One commit group per K tile, empty beyond the last, so that "at most
  // stages-2 pending" always means "this iteration's tile has landed".
  Value token;
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < kTiles)
      loadStage(index(s), index(s));
    token = commitAsyncCopies(b, loc);
  }
  // Four f32 values per mma tile (WarpMma.h), zeros.
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> init(mTiles * nTiles * 4, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(kTiles), index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    waitAsyncCopies(b, loc, token, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(kTile, index(stages - 1));
    auto inRange = scf::IfOp::create(b, loc, less(ahead, kTiles),
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
                         multiplyTile(aStart, bStart, loop.getRegionIterArgs()));
  }
  // Every copy has landed (the last groups are empty) and every warp is
  // done reading the ring before it holds the accumulator tile.
  waitAsyncCopies(b, loc, token, 0);
  gpu::BarrierOp::create(b, loc);
  return loop.getResults();
}

LogicalResult WarpMmaKernel::epilogue(ValueRange accumulators) {
  int64_t rowStride = tiling.tileN + kAccumulatorPadding;
  Value tile = shared.view(
      b, loc, index(0),
      getSharedMemRefType(ctx, {tiling.tileM, rowStride}, b.getF32Type()));
  // Each lane holds (row l / 4, columns 2 (l % 4) + 0, 1) and the same 8
  // rows down of every mma tile.
  Value laneRow = div(lane, 4), laneColumn = mul(rem(lane, 4), index(2));
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j) {
      Value row = add(warpRow, add(index(i * kMmaM), laneRow));
      Value column = add(warpColumn, add(index(j * kMmaN), laneColumn));
      for (int64_t e = 0; e < 4; ++e)
        memref::StoreOp::create(
            b, loc, accumulators[(i * nTiles + j) * 4 + e], tile,
            ValueRange{e < 2 ? row : add(row, index(8)),
                       e % 2 ? add(column, index(1)) : column});
    }
  gpu::BarrierOp::create(b, loc);
  return emitMatmulEpilogue(k, shape, tile,
                            getLiveTileRows(tiling.tileM, shape.m),
                            tiling.tileN, tileRow, tileColumn, batchCoords,
                            kWarpMmaThreads);
}

FailureOr<LaunchShape> WarpMmaKernel::build() {
  int64_t bytes = shape.elementBytes();
  int64_t kChunks = tiling.tileK * bytes / 16;
  aTile = {tiling.tileM, kChunks};
  bTile = shape.rhsKMajor ? SwizzledTile{tiling.tileN, kChunks}
                          : SwizzledTile{tiling.tileK, tiling.tileN * bytes / 16};
  kTiles = llvm::divideCeil(shape.k, tiling.tileK);
  warpRows = tiling.tileM / 2;
  warpColumns = tiling.tileN / 2;
  mTiles = warpRows / kMmaM;
  nTiles = warpColumns / kMmaN;
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({kWarpMmaThreads, 1, 1}));

  lhs = collapseToOneDim(b, loc, k.buffers.lookup(matmul.getLhs()));
  rhs = collapseToOneDim(b, loc,
                         k.buffers.lookup(getTensorCoreRhsInput(matmul)));
  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(thread, 32);
  Value warp = div(thread, 32);
  // Warps 2 x 2 over the tile.
  warpRow = mul(rem(warp, 2), index(warpRows));
  warpColumn = mul(div(warp, 2), index(warpColumns));
  std::tie(tileRow, tileColumn) =
      emitOutputTileOrigin(k, shape, tiling.tileM, tiling.tileN);
  lhsBase = rhsBase = index(0);
  if (shape.batched()) {
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    batchCoords = k.idx.delinearize(batch, shape.batch);
    lhsBase = mul(k.idx.broadcastLinear(batchCoords, shape.lhsBatch),
                  index(shape.m * shape.k));
    rhsBase = mul(k.idx.broadcastLinear(batchCoords, shape.rhsBatch),
                  index(shape.k * shape.n));
  }

  int64_t sharedBytes = tiling.getSharedBytes(bytes);
  shared = DynamicSharedMemory::create(b, loc, k.kernels, sharedBytes);
  int64_t ringElements =
      tiling.stages * (aTile.elements() + bTile.elements());
  ring = shared.view(b, loc, index(0),
                     getSharedMemRefType(ctx, {ringElements}, shape.elementType));
  SmallVector<Value> accumulators = mainLoop();
  if (failed(epilogue(accumulators)))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  launch.grid = {(shape.m + tiling.tileM - 1) / tiling.tileM,
                 (shape.n + tiling.tileN - 1) / tiling.tileN, shape.batches()};
  launch.block = {kWarpMmaThreads, 1, 1};
  launch.sharedBytes = sharedBytes;
  return launch;
}

FailureOr<LaunchShape>
mlir::fk::buildWarpMmaMatmulKernel(FusionOp fusion,
                                   const WarpMmaTiling &tiling,
                                   gpu::GPUFuncOp kernel,
                                   gpu::GPUModuleOp kernels) {
  return WarpMmaKernel(fusion, tiling, kernel, kernels).build();
}
