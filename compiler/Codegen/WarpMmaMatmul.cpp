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
#include "Codegen/RingMatmul.h"
#include "fk/IR/FkNumerics.h"

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
  // mma.sync m16n8k16 on 16-bit floats (m16n8k8 on TF32) and cp.async came
  // with sm_80.
  if (target.getComputeCapability() < 80)
    return "target " + target.getChip().str() +
           " predates sm_80 (mma.sync m16n8k16 and cp.async)";
  if (fusion.getPairedMatmul())
    return "a matmul pair runs on the wgmma kernel only";
  if (fusion.isMatmulGroup())
    return "a matmul group runs on the wgmma kernel only";
  // f32 on TF32 where the module allows it (fk/IR/FkNumerics.h).
  MatmulOp matmul = fusion.getMatmul();
  if (!matmul || !tensorType(matmul.getLhs()).getElementType().isF32())
    return whyNotTensorCoreOperands(fusion);
  std::string why = whyNoTf32(fusion);
  return why.empty() ? whyNotOperandTiles(fusion) : why;
}

std::string mlir::fk::checkWarpMmaTile(ArrayRef<int64_t> tile,
                                       int64_t elementBytes) {
  if (tile.size() != 3)
    return "expects tile sizes M,N,K (the mma.sync kernel does not split K)";
  int64_t m = tile[0], n = tile[1], k = tile[2];
  // Four warps, 2 x 2, each at least 32 x 32 (two ldmatrix.x4 of B); the
  // copies give each thread whole 16-byte pieces of every tile.
  if (m != 64 && m != 128)
    return "tile M must be 64 or 128 (2 x 2 warps of 16-row mma tiles)";
  if (n != 64 && n != 128)
    return "tile N must be 64 or 128 (2 x 2 warps, B fragments 16 wide)";
  // Rows of 64 or 128 bytes.
  if (elementBytes == 4 && k != 16 && k != 32)
    return "tile K must be 16 or 32 for f32 (16-byte pieces, TF32 "
           "mma.sync's K of 8)";
  if (elementBytes == 2 && k != 32 && k != 64)
    return "tile K must be 32 or 64 (16-byte pieces, mma.sync's K of 16)";
  return "";
}

SmallVector<int64_t> mlir::fk::chooseWarpMmaTile(MatmulOp matmul,
                                                 TargetAttr target) {
  // The Hopper kernel's rule (chooseTensorCoreTile), with K steps of 64
  // bytes (32 16-bit elements, 16 f32) per operand tile row, so that four
  // stages of 128 x 128 tiles take 64 KiB.
  MatmulShape shape(matmul);
  int64_t tileK = 64 / shape.elementBytes();
  if (prefersNarrowTiles(shape, target.getSmCount()))
    return {64, 64, tileK};
  return {128, 128, tileK};
}

namespace {
/// Builds the kernel body; see the file comment.
class WarpMmaKernel : RingMatmulKernel {
public:
  WarpMmaKernel(FusionOp fusion, const WarpMmaTiling &tiling,
                gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels)
      : RingMatmulKernel(fusion, kernel, kernels,
                         {tiling.tileM, tiling.tileN, tiling.tileK,
                          tiling.stages, kWarpMmaThreads}),
        tiling(tiling) {}

  FailureOr<LaunchShape> build();

private:
  /// The mma.syncs of one K tile on the stage at those ring offsets.
  SmallVector<Value> multiplyTile(Value aStart, Value bStart,
                                  ValueRange accumulators);

  const WarpMmaTiling &tiling;
  std::optional<WarpFragments> fragments;
  int64_t warpRows = 0, warpColumns = 0;
  /// The mma tiles of a warp's quarter: mTiles x nTiles.
  int64_t mTiles = 0, nTiles = 0;
  Value lane, warpRow, warpColumn;
};
} // namespace

SmallVector<Value> WarpMmaKernel::multiplyTile(Value aStart, Value bStart,
                                               ValueRange accumulators) {
  SmallVector<Value> next(accumulators);
  int64_t stepK = fragments->getStepK();
  int64_t chunkElements = aTile.chunkElements;
  for (int64_t step = 0; step < tiling.tileK / stepK; ++step) {
    Value firstChunk = index(step * stepK / chunkElements);
    // A per 16-row mma tile, B per pair of 8-column mma tiles.
    SmallVector<SmallVector<Value, 4>> a;
    for (int64_t i = 0; i < mTiles; ++i)
      a.push_back(fragments->loadA(aTile, aStart,
                                   add(warpRow, index(i * kMmaM)),
                                   firstChunk));
    SmallVector<SmallVector<Value, 4>> bPairs;
    for (int64_t j = 0; j < nTiles / 2; ++j) {
      Value column = add(warpColumn, index(j * 2 * kMmaN));
      bPairs.push_back(
          shape.rhsKMajor
              // w's rows are B's columns.
              ? fragments->loadBFromColumns(bTile, bStart, column, firstChunk)
              : fragments->loadBFromRows(bTile, bStart,
                                         index(step * stepK),
                                         div(column, chunkElements)));
    }
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles / 2; ++j)
        fragments->multiplyPair(
            a[i], bPairs[j],
            MutableArrayRef<Value>(next).slice((i * nTiles + 2 * j) * 4, 8));
  }
  return next;
}

FailureOr<LaunchShape> WarpMmaKernel::build() {
  int64_t bytes = shape.elementBytes();
  int64_t kChunks = tiling.tileK * bytes / 16, chunkElements = 16 / bytes;
  warpRows = tiling.tileM / 2;
  warpColumns = tiling.tileN / 2;
  mTiles = warpRows / kMmaM;
  nTiles = warpColumns / kMmaN;
  int64_t sharedBytes = tiling.getSharedBytes(bytes);
  setUp({tiling.tileM, kChunks, chunkElements},
        shape.rhsKMajor
            ? SwizzledTile{tiling.tileN, kChunks, chunkElements}
            : SwizzledTile{tiling.tileK, tiling.tileN * bytes / 16,
                           chunkElements},
        sharedBytes, shape.elementType);
  lane = rem(thread, 32);
  Value warp = div(thread, 32);
  // Warps 2 x 2 over the tile.
  warpRow = mul(rem(warp, 2), index(warpRows));
  warpColumn = mul(div(warp, 2), index(warpColumns));
  fragments.emplace(k.idx, ring, lane, shape.elementType);

  // Four f32 values per mma tile (WarpMma.h), zeros.
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> init(mTiles * nTiles * 4, zero);
  SmallVector<Value> accumulators =
      mainLoop(init, [&](Value aStart, Value bStart, ValueRange acc) {
        return multiplyTile(aStart, bStart, acc);
      });
  // Each lane holds (row l / 4, columns 2 (l % 4) + 0, 1) and the same 8
  // rows down of every mma tile.
  Value laneRow = div(lane, 4), laneColumn = mul(rem(lane, 4), index(2));
  auto place = [&](int64_t i) -> std::pair<Value, Value> {
    int64_t tileIndex = i / 4, e = i % 4;
    Value row = add(warpRow, add(index(tileIndex / nTiles * kMmaM), laneRow));
    Value column =
        add(warpColumn, add(index(tileIndex % nTiles * kMmaN), laneColumn));
    return {e < 2 ? row : add(row, index(8)),
            e % 2 ? add(column, index(1)) : column};
  };
  if (failed(epilogue(accumulators, kAccumulatorPadding, place)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return getLaunch(sharedBytes);
}

FailureOr<LaunchShape>
mlir::fk::buildWarpMmaMatmulKernel(FusionOp fusion,
                                   const WarpMmaTiling &tiling,
                                   gpu::GPUFuncOp kernel,
                                   gpu::GPUModuleOp kernels) {
  return WarpMmaKernel(fusion, tiling, kernel, kernels).build();
}
