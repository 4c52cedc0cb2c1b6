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

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::fk;

/// Elements of 16 bits in a 16-byte chunk, the unit of copies and of
/// ldmatrix rows.
static constexpr int64_t kChunkElements = 8;
/// f32 columns the accumulator tile's rows are padded by: a half-warp's
/// 8-byte stores of a fragment (4 rows x 4 column pairs) then cover the 32
/// banks once.
static constexpr int64_t kAccumulatorPadding = 8;
/// The mma.sync shape: 16 x 8 outputs, 16 of K.
static constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

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
/// An operand tile in the ring: `rows` rows of `rowChunks` 16-byte chunks.
struct RingTile {
  int64_t rows, rowChunks;
  /// The chunk's column bits XORed with the row's: rows one ldmatrix phase
  /// reads (8 consecutive, at one chunk column) land in 8 bank groups of a
  /// 128-byte span. Rows of 8 or more chunks are a span each, so the row's
  /// low 3 bits swizzle; with 4 (2) chunks a span holds 2 (4) rows, and the
  /// bits above those do.
  int64_t swizzleShift() const { return rowChunks >= 8 ? 0 : rowChunks == 4 ? 1 : 2; }
  int64_t swizzleMask() const { return std::min<int64_t>(rowChunks, 8) - 1; }
  int64_t elements() const { return rows * rowChunks * kChunkElements; }
};

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

  /// The element offset in the ring of chunk `chunk` of row `row` of
  /// `tile`, whose first element is at `tileStart`.
  Value ringOffset(const RingTile &tile, Value tileStart, Value row,
                   Value chunk);
  /// Issues the copies of the K tile `kTile` of A and B into `stage`.
  void loadStage(Value stage, Value kTile);
  /// Copies into `tile` at `tileStart` the tile.rows x tile.rowChunks
  /// pieces of the row-major [rowBound, columnBound] matrix at `base` of
  /// `global` whose first element is (firstRow, firstColumn); pieces
  /// outside the matrix are zeros.
  void copyTile(const RingTile &tile, Value tileStart, Value global,
                Value base, Value firstRow, Value firstColumn,
                int64_t rowBound, int64_t columnBound);
  Value commitGroup() {
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ValueRange{});
  }
  /// ldmatrix .x4 at `offset` of the ring: four 8 x 8 matrices, as four
  /// registers of two 16-bit elements (the operand type mma.sync takes).
  SmallVector<Value, 4> loadMatrices(Value offset, bool transpose);
  /// The mma.syncs of one K tile on the stage at those ring offsets.
  SmallVector<Value> multiplyTile(Value aStart, Value bStart,
                                  ValueRange accumulators);
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

  RingTile aTile{}, bTile{};
  int64_t kTiles = 0, warpRows = 0, warpColumns = 0;
  /// The mma tiles of a warp's quarter: mTiles x nTiles.
  int64_t mTiles = 0, nTiles = 0;
  DynamicSharedMemory shared;
  Value ring, lhs, rhs, lhsBase, rhsBase;
  Value thread, lane, warpRow, warpColumn, tileRow, tileColumn;
  SmallVector<Value> batchCoords;
  Type accumulatorType;
};
} // namespace

Value WarpMmaKernel::ringOffset(const RingTile &tile, Value tileStart,
                                Value row, Value chunk) {
  Value bits = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, row, index(tile.swizzleShift())),
      index(tile.swizzleMask()));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, bits);
  return add(tileStart,
             add(mul(row, index(tile.rowChunks * kChunkElements)),
                 mul(swizzled, index(kChunkElements))));
}

void WarpMmaKernel::copyTile(const RingTile &tile, Value tileStart,
                             Value global, Value base, Value firstRow,
                             Value firstColumn, int64_t rowBound,
                             int64_t columnBound) {
  // Adjacent threads take adjacent pieces of a row: coalesced reads.
  int64_t pieces = tile.rows * tile.rowChunks;
  for (int64_t i = 0; i < pieces / kWarpMmaThreads; ++i) {
    Value piece = add(thread, index(i * kWarpMmaThreads));
    Value row = div(piece, tile.rowChunks), chunk = rem(piece, tile.rowChunks);
    Value globalRow = add(firstRow, row);
    Value globalColumn = add(firstColumn, mul(chunk, index(kChunkElements)));
    // Rows are a multiple of 16 bytes long (whyNotTensorCoreOperands), so a
    // piece is wholly inside the matrix or wholly outside.
    Value inside = arith::AndIOp::create(b, loc, less(globalRow, rowBound),
                                         less(globalColumn, columnBound));
    // A piece outside reads nothing (a source size of 0) from the base.
    Value source = arith::SelectOp::create(
        b, loc, inside,
        add(base, add(mul(globalRow, index(columnBound)), globalColumn)),
        base);
    Value sourceElements = arith::SelectOp::create(
        b, loc, inside, index(kChunkElements), index(0));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(ctx), ring,
        ValueRange{ringOffset(tile, tileStart, row, chunk)}, global,
        ValueRange{source}, b.getIndexAttr(kChunkElements), sourceElements,
        /*bypassL1=*/b.getUnitAttr());
  }
}

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

SmallVector<Value, 4> WarpMmaKernel::loadMatrices(Value offset,
                                                  bool transpose) {
  Type element = shape.elementType;
  auto pair = VectorType::get({2}, element);
  Value matrices = nvgpu::LdMatrixOp::create(
      b, loc, VectorType::get({4, 2}, element), ring, ValueRange{offset},
      b.getBoolAttr(transpose), /*numTiles=*/b.getI32IntegerAttr(4));
  // The NVGPU lowering makes the vector an array of four pairs; the casts
  // cancel there.
  Value array = UnrealizedConversionCastOp::create(
                    b, loc, LLVM::LLVMArrayType::get(pair, 4), matrices)
                    .getResult(0);
  SmallVector<Value, 4> registers;
  for (int64_t i = 0; i < 4; ++i) {
    Value value = LLVM::ExtractValueOp::create(b, loc, array, i);
    // mma.sync takes bf16 pairs as 32-bit registers.
    if (element.isBF16())
      value = LLVM::BitcastOp::create(b, loc, b.getI32Type(), value);
    registers.push_back(value);
  }
  return registers;
}

SmallVector<Value> WarpMmaKernel::multiplyTile(Value aStart, Value bStart,
                                               ValueRange accumulators) {
  SmallVector<Value> next(accumulators);
  NVVM::MMATypes type = shape.elementType.isBF16() ? NVVM::MMATypes::bf16
                                                   : NVVM::MMATypes::f16;
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
          ringOffset(aTile, aStart, row, add(index(firstChunk), laneHalf)),
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
        bPairs.push_back(loadMatrices(ringOffset(bTile, bStart, row, chunk),
                                      /*transpose=*/false));
        continue;
      }
      // K rows of B, transposed: matrices (K 0-7, N 0-7), (K 8-15, N 0-7),
      // (K 0-7, N 8-15), (K 8-15, N 8-15).
      Value row = add(index(step * kMmaK), add(laneRow8, mul(laneQuarter, index(8))));
      Value chunk = add(div(column, kChunkElements), laneHalf);
      bPairs.push_back(loadMatrices(ringOffset(bTile, bStart, row, chunk),
                                    /*transpose=*/true));
    }
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        Value &c = next[i * nTiles + j];
        SmallVector<Value, 4> cValues;
        for (int64_t e = 0; e < 4; ++e)
          cValues.push_back(LLVM::ExtractValueOp::create(b, loc, c, e));
        ArrayRef<Value> bRegisters =
            ArrayRef<Value>(bPairs[j / 2]).slice(j % 2 * 2, 2);
        c = NVVM::MmaOp::create(
            b, loc, accumulatorType, a[i], bRegisters, cValues,
            ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
            /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
            std::array<NVVM::MMATypes, 2>{type, type},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
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
    token = commitGroup();
  }
  Value zero = LLVM::ZeroOp::create(b, loc, accumulatorType);
  SmallVector<Value> init(mTiles * nTiles, zero);
  auto loop =
      scf::ForOp::create(b, loc, index(0), index(kTiles), index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    nvgpu::DeviceAsyncWaitOp::create(b, loc, token,
                                     b.getI32IntegerAttr(stages - 2));
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(kTile, index(stages - 1));
    auto inRange = scf::IfOp::create(b, loc, less(ahead, kTiles),
                                     /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&inRange.getThenRegion().front());
      loadStage(rem(ahead, stages), ahead);
    }
    commitGroup();
    int64_t stageElements = aTile.elements() + bTile.elements();
    Value aStart = mul(rem(kTile, stages), index(stageElements));
    Value bStart = add(aStart, index(aTile.elements()));
    scf::YieldOp::create(b, loc,
                         multiplyTile(aStart, bStart, loop.getRegionIterArgs()));
  }
  // Every copy has landed (the last groups are empty) and every warp is
  // done reading the ring before it holds the accumulator tile.
  nvgpu::DeviceAsyncWaitOp::create(b, loc, token, b.getI32IntegerAttr(0));
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
      Value c = accumulators[i * nTiles + j];
      Value row = add(warpRow, add(index(i * kMmaM), laneRow));
      Value column = add(warpColumn, add(index(j * kMmaN), laneColumn));
      for (int64_t e = 0; e < 4; ++e) {
        Value value = LLVM::ExtractValueOp::create(b, loc, c, e);
        memref::StoreOp::create(
            b, loc, value, tile,
            ValueRange{e < 2 ? row : add(row, index(8)),
                       e % 2 ? add(column, index(1)) : column});
      }
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
  bTile = shape.rhsKMajor ? RingTile{tiling.tileN, kChunks}
                          : RingTile{tiling.tileK, tiling.tileN * bytes / 16};
  kTiles = llvm::divideCeil(shape.k, tiling.tileK);
  warpRows = tiling.tileM / 2;
  warpColumns = tiling.tileN / 2;
  mTiles = warpRows / kMmaM;
  nTiles = warpColumns / kMmaN;
  accumulatorType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(4, b.getF32Type()));
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
