//===- SimtMatmul.cpp - f32 matmul fusions, tiled on the CUDA cores -------===//
//
// One block of (tileM / 8) x (tileN / 8) threads per output tile; thread
// (r, c) owns the 8 x 8 accumulators of rows r + (tileM / 8) i and of
// columns 4c + j and tileN / 2 + 4c + j (j < 4), or, where B is read
// K-major, columns c + (tileN / 8) j:
//
//   prologue   every thread issues cp.async copies of 16-byte pieces of K
//              steps 0 .. stages-2 of A and B (WarpMma.h's swizzled tiles),
//              one commit group per K step
//   main loop  per K step: wait for it, a CTA barrier, the copies of the K
//              step stages-1 ahead; then per 4 of K, the thread's 8 rows of
//              A as 16-byte reads (4 of K each), B's 8 columns per K as two
//              16-byte reads (or, K-major, 8 reads of 4 of K), and 8 x 8 x 4
//              f32 FMAs
//   epilogue   the accumulators go to an f32 tile in shared memory (reusing
//              the ring), then the fusion's epilogue (TileEpilogue)
//
// Rows of the thread's are (tileM / 8) apart, so the two rows of a warp's
// A reads are different rows of one chunk column, which the swizzle puts
// in different banks; B's 16-byte reads of a K row are adjacent chunks.
// Pieces outside the operands are zero-filled by the copies; outputs
// outside are not stored.
//
//===----------------------------------------------------------------------===//

#include "Codegen/SimtMatmul.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/SharedMemory.h"
#include "Codegen/WarpMma.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fk;

/// f32 elements in a 16-byte chunk.
static constexpr int64_t kChunkFloats = 4;
/// f32 columns the accumulator tile's rows are padded by.
static constexpr int64_t kAccumulatorPadding = 4;

SimtTiling SimtTiling::get(TilingAttr tiling, int64_t stages) {
  ArrayRef<int64_t> tile = tiling.getTile();
  return {tile[0], tile[1], tile[2], stages};
}

int64_t SimtTiling::getSharedBytes() const {
  int64_t accumulator = tileM * (tileN + kAccumulatorPadding) * 4;
  return std::max(stages * getStageBytes(), accumulator) + kRingAlignment;
}

std::string mlir::fk::whyNotSimtMatmul(FusionOp fusion, TargetAttr target) {
  if (target.getComputeCapability() < 80)
    return "target " + target.getChip().str() +
           " predates sm_80 (cp.async)";
  MatmulOp matmul = fusion.getMatmul();
  if (!matmul)
    return "not a matmul fusion";
  if (!tensorType(matmul.getLhs()).getElementType().isF32())
    return "operands are not f32";
  return whyNotOperandTiles(fusion);
}

std::string mlir::fk::checkSimtTile(ArrayRef<int64_t> tile) {
  if (tile.size() != 3)
    return "expects tile sizes M,N,K";
  // 8 x 8 accumulators per thread; the column groups of 4 span half a tile.
  if (tile[0] != 64 && tile[0] != 128)
    return "tile M must be 64 or 128 (8 rows a thread)";
  if (tile[1] != 64 && tile[1] != 128)
    return "tile N must be 64 or 128 (8 columns a thread)";
  if (tile[2] != 16 && tile[2] != 32)
    return "tile K must be 16 or 32 (16-byte pieces of 4 f32)";
  return "";
}

SmallVector<int64_t> mlir::fk::chooseSimtTile(MatmulOp matmul,
                                              TargetAttr target) {
  if (prefersNarrowTiles(MatmulShape(matmul), target.getSmCount()))
    return {64, 64, 16};
  return {128, 128, 16};
}

namespace {
/// Builds the kernel body; see the file comment.
class SimtKernel {
public:
  SimtKernel(FusionOp fusion, const SimtTiling &tiling, gpu::GPUFuncOp kernel,
             gpu::GPUModuleOp kernels)
      : k(fusion, kernel, kernels), tiling(tiling), matmul(fusion.getMatmul()),
        shape(matmul), b(k.b), loc(k.loc), ctx(fusion.getContext()),
        kernel(kernel) {}

  FailureOr<LaunchShape> build();

private:
  Value index(int64_t v) { return k.idx.constant(v); }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }

  void loadStage(Value stage, Value kTile);
  /// The 4 f32 of chunk `chunk` of row `row` of `tile` at `tileStart`, read
  /// as one 16-byte load.
  SmallVector<Value, 4> readChunk(const SwizzledTile &tile, Value tileStart,
                                  Value row, Value chunk);
  SmallVector<Value> multiplyTile(Value aStart, Value bStart,
                                  ValueRange accumulators);
  SmallVector<Value> mainLoop();
  LogicalResult epilogue(ValueRange accumulators);
  /// The thread's j-th column of the tile.
  Value column(int64_t j);

  KernelContext k;
  const SimtTiling &tiling;
  MatmulOp matmul;
  MatmulShape shape;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  gpu::GPUFuncOp kernel;

  SwizzledTile aTile{}, bTile{};
  int64_t kTiles = 0, threads = 0, threadRows = 0, threadColumns = 0;
  DynamicSharedMemory shared;
  Value ring, ringAddress, lhs, rhs, lhsBase, rhsBase;
  Value thread, threadRow, threadColumn, tileRow, tileColumn;
  SmallVector<Value> batchCoords;
};
} // namespace

void SimtKernel::loadStage(Value stage, Value kTile) {
  int64_t stageElements = aTile.elements() + bTile.elements();
  Value aStart = mul(stage, index(stageElements));
  Value bStart = add(aStart, index(aTile.elements()));
  Value kStart = mul(kTile, index(tiling.tileK));
  auto copy = [&](const SwizzledTile &tile, Value start, Value global,
                  Value base, Value firstRow, Value firstColumn,
                  int64_t rows, int64_t columns) {
    copyTileAsync(k.idx, thread, threads, tile, ring, start, global, base,
                  firstRow, firstColumn, rows, columns, columns);
  };
  copy(aTile, aStart, lhs, lhsBase, tileRow, kStart, shape.m, shape.k);
  if (shape.rhsKMajor)
    copy(bTile, bStart, rhs, rhsBase, tileColumn, kStart, shape.n, shape.k);
  else
    copy(bTile, bStart, rhs, rhsBase, kStart, tileColumn, shape.k, shape.n);
}

SmallVector<Value, 4> SimtKernel::readChunk(const SwizzledTile &tile,
                                            Value tileStart, Value row,
                                            Value chunk) {
  // One ld.shared.v4.f32 at the chunk's address (16-byte aligned: the ring
  // is, and chunks are 16 bytes).
  Value element = tile.offset(k.idx, tileStart, row, chunk);
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), add(ringAddress, mul(element, index(4))));
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/3), address);
  auto vector = VectorType::get({kChunkFloats}, b.getF32Type());
  Value loaded = LLVM::LoadOp::create(b, loc, vector, pointer, /*alignment=*/16);
  SmallVector<Value, 4> values;
  for (int64_t e = 0; e < kChunkFloats; ++e)
    values.push_back(LLVM::ExtractElementOp::create(
        b, loc, loaded,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(e))));
  return values;
}

Value SimtKernel::column(int64_t j) {
  if (shape.rhsKMajor)
    return add(threadColumn, index(j * threadColumns));
  // Two groups of 4 adjacent columns, half a tile apart.
  return add(mul(threadColumn, index(kChunkFloats)),
             index(j / kChunkFloats * (tiling.tileN / 2) + j % kChunkFloats));
}

SmallVector<Value> SimtKernel::multiplyTile(Value aStart, Value bStart,
                                            ValueRange accumulators) {
  SmallVector<Value> next(accumulators);
  constexpr int64_t n = kSimtThreadTile;
  for (int64_t kc = 0; kc < tiling.tileK / kChunkFloats; ++kc) {
    Value chunk = index(kc);
    // a[i][kk]: the thread's row i, K kk of this chunk.
    SmallVector<SmallVector<Value, 4>> a;
    for (int64_t i = 0; i < n; ++i)
      a.push_back(readChunk(aTile, aStart,
                            add(threadRow, index(i * threadRows)), chunk));
    SmallVector<SmallVector<Value, 4>> bKMajor;
    if (shape.rhsKMajor)
      for (int64_t j = 0; j < n; ++j)
        bKMajor.push_back(readChunk(bTile, bStart, column(j), chunk));
    for (int64_t kk = 0; kk < kChunkFloats; ++kk) {
      SmallVector<Value> bValues;
      if (shape.rhsKMajor) {
        for (int64_t j = 0; j < n; ++j)
          bValues.push_back(bKMajor[j][kk]);
      } else {
        // B's K row: the thread's two groups of 4 columns.
        Value row = index(kc * kChunkFloats + kk);
        for (int64_t group = 0; group < 2; ++group)
          llvm::append_range(
              bValues,
              readChunk(bTile, bStart, row,
                        add(threadColumn,
                            index(group * tiling.tileN / 2 / kChunkFloats))));
      }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          Value &c = next[i * n + j];
          c = math::FmaOp::create(b, loc, a[i][kk], bValues[j], c);
        }
    }
  }
  return next;
}

SmallVector<Value> SimtKernel::mainLoop() {
  int64_t stages = tiling.stages;
  // One commit group per K step, empty beyond the last (WarpMmaMatmul.cpp).
  Value token;
  for (int64_t s = 0; s + 1 < stages; ++s) {
    if (s < kTiles)
      loadStage(index(s), index(s));
    token = commitAsyncCopies(b, loc);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> init(kSimtThreadTile * kSimtThreadTile, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(kTiles), index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    waitAsyncCopies(b, loc, token, stages - 2);
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(kTile, index(stages - 1));
    auto inRange = scf::IfOp::create(b, loc, k.idx.inRange(ahead, kTiles),
                                     /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&inRange.getThenRegion().front());
      loadStage(arith::RemUIOp::create(b, loc, ahead, index(stages)), ahead);
    }
    commitAsyncCopies(b, loc);
    int64_t stageElements = aTile.elements() + bTile.elements();
    Value aStart = mul(arith::RemUIOp::create(b, loc, kTile, index(stages)),
                       index(stageElements));
    Value bStart = add(aStart, index(aTile.elements()));
    scf::YieldOp::create(b, loc,
                         multiplyTile(aStart, bStart, loop.getRegionIterArgs()));
  }
  waitAsyncCopies(b, loc, token, 0);
  gpu::BarrierOp::create(b, loc);
  return loop.getResults();
}

LogicalResult SimtKernel::epilogue(ValueRange accumulators) {
  Value tile = shared.view(
      b, loc, index(0),
      getSharedMemRefType(ctx,
                          {tiling.tileM, tiling.tileN + kAccumulatorPadding},
                          b.getF32Type()));
  for (int64_t i = 0; i < kSimtThreadTile; ++i)
    for (int64_t j = 0; j < kSimtThreadTile; ++j)
      memref::StoreOp::create(
          b, loc, accumulators[i * kSimtThreadTile + j], tile,
          ValueRange{add(threadRow, index(i * threadRows)), column(j)});
  gpu::BarrierOp::create(b, loc);
  return emitMatmulEpilogue(k, shape, tile,
                            getLiveTileRows(tiling.tileM, shape.m),
                            tiling.tileN, tileRow, tileColumn, batchCoords,
                            threads);
}

FailureOr<LaunchShape> SimtKernel::build() {
  threads = tiling.getThreads();
  threadRows = tiling.tileM / kSimtThreadTile;
  threadColumns = tiling.tileN / kSimtThreadTile;
  // Chunks of 16 bytes: 4 f32.
  int64_t kChunks = tiling.tileK / kChunkFloats;
  aTile = {tiling.tileM, kChunks, kChunkFloats};
  bTile = shape.rhsKMajor
              ? SwizzledTile{tiling.tileN, kChunks, kChunkFloats}
              : SwizzledTile{tiling.tileK, tiling.tileN / kChunkFloats,
                             kChunkFloats};
  kTiles = llvm::divideCeil(shape.k, tiling.tileK);
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));

  lhs = collapseToOneDim(b, loc, k.buffers.lookup(matmul.getLhs()));
  rhs = collapseToOneDim(b, loc,
                         k.buffers.lookup(getTensorCoreRhsInput(matmul)));
  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  threadRow = arith::DivUIOp::create(b, loc, thread, index(threadColumns));
  threadColumn = arith::RemUIOp::create(b, loc, thread, index(threadColumns));
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

  int64_t sharedBytes = tiling.getSharedBytes();
  shared = DynamicSharedMemory::create(b, loc, k.kernels, sharedBytes);
  int64_t ringFloats = tiling.stages * tiling.getStageBytes() / 4;
  ring = shared.view(b, loc, index(0),
                     getSharedMemRefType(ctx, {ringFloats}, b.getF32Type()));
  ringAddress = add(shared.address, shared.base);
  SmallVector<Value> accumulators = mainLoop();
  if (failed(epilogue(accumulators)))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  launch.grid = {(shape.m + tiling.tileM - 1) / tiling.tileM,
                 (shape.n + tiling.tileN - 1) / tiling.tileN, shape.batches()};
  launch.block = {threads, 1, 1};
  launch.sharedBytes = sharedBytes;
  return launch;
}

FailureOr<LaunchShape>
mlir::fk::buildSimtMatmulKernel(FusionOp fusion, const SimtTiling &tiling,
                                gpu::GPUFuncOp kernel,
                                gpu::GPUModuleOp kernels) {
  return SimtKernel(fusion, tiling, kernel, kernels).build();
}
