//===- TensorCoreTiles.cpp - the wgmma matmul kernel's tiles --------------===//
//
// The tiles of the wgmma matmul kernel (TensorCoreMatmul.cpp): which tiles
// and blocks it can take (checkTensorCoreTile, whyNotSplitK) and which
// fk-tile gives a product (chooseTensorCoreTile, chooseTensorCoreThreads),
// each choice with the measurements behind it. docs/tiling.md describes
// them.
//
//===----------------------------------------------------------------------===//

#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/MatmulShape.h"

using namespace mlir;
using namespace mlir::fk;

int64_t mlir::fk::getTensorCoreRows(MatmulOp matmul) {
  return MatmulShape(matmul).m;
}

TensorCoreTiling TensorCoreTiling::get(TilingAttr tiling, int64_t stages) {
  return get(tiling.getTile(), tiling.getThreads(), stages);
}

TensorCoreTiling TensorCoreTiling::get(ArrayRef<int64_t> tile,
                                       int64_t threads, int64_t stages) {
  TensorCoreTiling result;
  result.tileM = tile[0];
  result.tileN = tile[1];
  if (tile.size() > 2)
    result.tileK = tile[2];
  if (tile.size() > 3)
    result.splits = tile[3];
  result.stages = stages;
  result.consumers = threads / kThreadsPerWarpgroup - 1;
  return result;
}

/// The most consumer warpgroups of the warp-specialized kernel.
static constexpr int64_t kMaxConsumers = 2;

/// Whether a pair's tile of `n` columns holds whole 64-column TMA boxes of
/// each product.
static bool isPairTileColumns(int64_t n) { return n == 128 || n == 256; }

std::string mlir::fk::checkTensorCoreTile(ArrayRef<int64_t> tile,
                                          int64_t elementBytes,
                                          int64_t threads, bool paired) {
  if (tile.size() != 3 && tile.size() != 4)
    return "expects tile sizes M,N,K and optionally the K splits";
  int64_t m = tile[0], n = tile[1], k = tile[2];
  if (threads % kThreadsPerWarpgroup ||
      threads > kThreadsPerWarpgroup * (1 + kMaxConsumers))
    return "a tensor-core kernel is one warpgroup (128 threads), or a "
           "producer and one or two consumer warpgroups (256 or 384)";
  TensorCoreTiling blocked =
      TensorCoreTiling::get(tile, threads, /*stages=*/1);
  int64_t consumers = blocked.consumers;
  // Each computing warpgroup holds 64 or 128 rows (wgmma's 64-row slices):
  // the tile's, or its share of them (cooperative consumers: 128 x 192 or
  // 128 x 256, 64 rows each).
  int64_t rows = blocked.getWarpgroupRows();
  if (m != 64 && m != 128)
    return "tile M must be 64 or 128 (64-row wgmma)";
  if (n < 64 || n > 256 || n % 64)
    return "tile N must be 64, 128, 192 or 256 (64-column TMA boxes)";
  if (k * elementBytes != kSwizzleBytes)
    return "tile K must be " + std::to_string(kSwizzleBytes / elementBytes) +
           " (one 128-byte swizzled row)";
  // The f32 accumulator: rows * N / 128 registers per thread, which must
  // leave room for addressing and the epilogue.
  if (rows * n / kThreadsPerWarpgroup >
      TensorCoreTiling::kMaxAccumulatorRegisters)
    return "the accumulator tile needs more than 128 registers per thread" +
           std::string(consumers ? "" : " (two consumer warpgroups, 384 "
                                        "threads, share a larger tile)");
  if (consumers && tile.size() > 3 && tile[3] != 1)
    return "the warp-specialized kernel does not split K";
  if (paired && !isPairTileColumns(n))
    return "a matmul pair's tile N must be 128 or 256 (64 or 128 columns of "
           "each product; --no-matmul-pairs keeps the products apart)";
  if (paired && tile.size() > 3 && tile[3] != 1)
    return "a matmul pair does not split K (--no-matmul-pairs keeps the "
           "products apart)";
  if (consumers && elementBytes != 2)
    return "the warp-specialized kernel takes 16-bit operands";
  return "";
}

/// The K tiles from which a product takes the warp-specialized kernel's
/// 128 x 256 tiles (chooseTensorCoreTile).
static constexpr int64_t kMinKTilesForWideTiles = 16;
/// The most K tiles, and the fewest waves of 64 x 256 tiles (one per SM),
/// of products that take ping-pong consumers (prefersPingPong); a matmul
/// pair keeps the four waves it was measured with.
static constexpr int64_t kMaxKTilesForPingPong = 32, kMinPingPongWaves = 2,
                         kMinPairPingPongWaves = 4;

/// Whether fk-tile gives `matmul` 64 x 256 tiles on ping-pong consumers:
/// 16-bit products of at most 32 K tiles (K <= 2048) and at least two
/// waves of such tiles, whose epilogues then run under the other
/// consumer's main loop.
static bool prefersPingPong(MatmulOp matmul, TargetAttr target) {
  // Each tile's epilogue weighs as much as a good part of a short main
  // loop, and ping-pong consumers run one's epilogue under the other's
  // main loop, where the cooperative 128 x 256 kernel's consumers issue no
  // wgmma. Measured on an H200 (fkc-run --bench, 64 x 256 ping-pong
  // against the cooperative 128 x 256 kernel, one session; docs/tiling.md,
  // "Ping-pong consumers"): 16 K tiles, nn.Linear 4096 x 1024 x 4096,
  // 0.0553 against 0.0600 ms; 32, the 16 x 2048^3 batched product 0.378
  // against 0.382 ms; 64, 4096^3, 0.200 against 0.183 ms, where the
  // cooperative tile's reuse of B over 128 rows wins. With 12 (the LM head
  // 2048 x 768 x 50257) ping-pong took 0.254 ms, the 128 x 128
  // one-warpgroup tile 0.389 ms in an earlier session. From two waves
  // (fkc-tune, H200, GPT-2's 2048-token layers, against the 128 x 128
  // one-warpgroup tile): [2048, 768] @ [768, 2304] 0.0218 -> 0.0192 ms
  // (2.2 waves), @ [768, 3072] 0.0230 -> 0.0197 ms; below, at 1.5 waves
  // ([1024, 768] @ [768, 3072]), 64 x 192 tiles took 0.0141 ms and
  // ping-pong 0.0150.
  MatmulShape shape(matmul);
  int64_t tileK = kSwizzleBytes / shape.elementBytes();
  int64_t waves = shape.paired ? kMinPairPingPongWaves : kMinPingPongWaves;
  return shape.elementBytes() == 2 &&
         llvm::divideCeil(shape.k, tileK) <= kMaxKTilesForPingPong &&
         shape.tiles(64, 256) >= waves * target.getSmCount();
}

/// The most f32 bytes of a tile the combining kernel holds in static shared
/// memory.
static constexpr int64_t kMaxCombineTileBytes = 48 * 1024;

std::string mlir::fk::whyNotSplitK(MatmulOp matmul, ArrayRef<int64_t> tile) {
  int64_t splits = tile.size() > 3 ? tile[3] : 1;
  if (splits == 1)
    return "";
  MatmulShape shape(matmul);
  if (shape.grouped())
    return "a matmul group does not split K (--no-matmul-groups keeps the "
           "products apart)";
  if (shape.batched())
    return "a batched product (the grid's z walks the batches) cannot split K";
  if (!shape.rowsBounded)
    return "a product whose rows are given at run time without a bound "
           "cannot split K (the splits' partial sums are sized at the "
           "bound)";
  int64_t kTiles = (shape.k + tile[2] - 1) / tile[2];
  if (kTiles % splits)
    return std::to_string(splits) + " splits do not divide the matmul's " +
           std::to_string(kTiles) + " K tiles of " + std::to_string(tile[2]) +
           " evenly";
  if (splits > 65535)
    return "at most 65535 splits (the grid's z)";
  if (tile[0] * tile[1] * 4 > kMaxCombineTileBytes)
    return "a split tile's f32 sum must fit in 48 KiB of shared memory "
           "(M x N at most 12288)";
  return "";
}

SmallVector<int64_t> mlir::fk::chooseTensorCoreTile(MatmulOp matmul,
                                                    TargetAttr target,
                                                    bool *pingPong) {
  MatmulShape shape(matmul);
  if (pingPong)
    *pingPong = false;
  int64_t sms = target.getSmCount();
  // A 128-row tile of a product with at most 64 rows computes half zeros;
  // and where 128 x 128 tiles would occupy at most a quarter of the SMs, 64
  // x 64 tiles spread the reads over four times the blocks. Above that, 128
  // x 128 tiles' better reuse wins (measured on an H100, GPT-2's layers:
  // [128, 768] @ [768, 768] took 11.7 us on 6 blocks and 6.5 us on 24, while
  // [1024, 768] @ [768, 768] was faster on 48 blocks of 128 x 128 than on
  // 192 of 64 x 64; docs/tiling.md, "Split-K").
  // A K step is one 128-byte swizzled row: 64 16-bit elements, 32 TF32.
  int64_t tileK = kSwizzleBytes / shape.elementBytes();
  // Products of at most 64 rows keep 64 x 64 tiles even over many
  // columns. Alone, 64 x 256 ping-pong tiles ran faster with the weight in
  // L2 (fkc-tune, H200: [1, 768] @ [768, 50257] 0.0451 -> 0.0274 ms,
  // [1, 768] @ [768, 3072] 0.0148 -> 0.0106 ms), but in GPT-2's decode
  // step, whose weights stream from memory, they slowed the step by
  // 13-24% (bench/results/hf-inference/2026-11-29-h200-gpt2-skinny-*):
  // fewer blocks keep fewer loads in flight.
  SmallVector<int64_t> tile = {128, 128, tileK};
  if (prefersNarrowTiles(shape, sms))
    tile = {64, 64, tileK};
  // Where 128 x 128 tiles leave some of the two blocks per SM idle (GPT-2's
  // 1024-token layers: 48 to 192 blocks on 132 SMs), 64-row tiles of 128,
  // 192 or 256 columns give more blocks: the one with the most blocks that
  // still run in one wave of two per SM. Measured on an H100 (fkc-run,
  // docs/tiling.md): [1024, 3072] @ [3072, 768] 0.0244 -> 0.0188 ms with
  // 64 x 128 tiles, [1024, 768] @ [768, 2304] 0.0176 -> 0.0149 ms with
  // 64 x 192, [1024, 768] @ [768, 3072] 0.0207 -> 0.0182 ms with 64 x 192.
  else if (shape.tiles(128, 128) < 2 * sms && shape.m > 64) {
    int64_t best = 0;
    for (int64_t n : {128, 192, 256}) {
      if (shape.paired && !isPairTileColumns(n))
        continue;
      int64_t count = shape.tiles(64, n);
      if (count <= 2 * sms && count > best) {
        best = count;
        tile = {64, n, tileK};
      }
    }
  }
  // Short K loops (at most 32 K tiles) over many tiles take 64 x 256 tiles on
  // ping-pong consumers (chooseTensorCoreThreads).
  else if (prefersPingPong(matmul, target)) {
    tile = {64, 256, tileK};
    if (pingPong)
      *pingPong = true;
  }
  // Products of at least a wave of 128 x 256 tiles and a longer K loop take
  // them on the persistent warp-specialized kernel (a producer and two
  // consumer warpgroups, one block per SM): half the A reads per FLOP of
  // 128 x 128 and no CTA barrier per K step. Measured on an H100 (fkc-run,
  // 128 x 128 one-warpgroup tiles against these): 4096^3 0.220 -> 0.190
  // ms, 8192^3 1.662 -> 1.447 ms, 16 x 2048^3 0.467 -> 0.412 ms; with 16 K
  // tiles, 4096 x 1024 x 4096, 0.0701 -> 0.0697 ms and 0.0686 -> 0.0652
  // ms in two sessions; with 12, the LM head 2048 x 768 x 50257, 0.397 ->
  // 0.399 ms and 0.400 -> 0.396 ms (docs/tiling.md, "The warp-specialized
  // kernel"). Ping-pong, above, now wins both and takes them first.
  else if (shape.elementBytes() == 2 &&
           llvm::divideCeil(shape.k, tileK) >= kMinKTilesForWideTiles &&
           shape.tiles(128, 256) >= sms)
    tile = {128, 256, tileK};
  // A pair's tile holds as many columns of each product (and does not
  // split K: the partial sums would hold both).
  if (shape.paired) {
    if (!isPairTileColumns(tile[1]))
      tile[1] = 128;
    return tile;
  }
  // Nor does a group's (its products' partial sums would need a workspace
  // each).
  if (shape.grouped())
    return tile;
  int64_t tileBlocks = shape.tiles(tile[0], tile[1]);
  // The combining kernel holds 64 x 64 f32 tiles (whyNotSplitK). Rows
  // given at run time split as for their bound (a decode step's B <= 16
  // rows), whose partial sums the workspace holds.
  if (tileBlocks >= sms || shape.batched() || !shape.rowsBounded ||
      tile[0] != 64 || tile[1] != 64)
    return tile;
  // Too few tiles to occupy the GPU (a decode step reads all of B on a
  // dozen SMs): where the K loop is long, the fewest splits of K that give
  // every SM a block, each split at least kMinSplitKTiles K tiles; else
  // the most splits that keep that many. The splits' sum costs a second
  // kernel, about 2.7 us on an H100 even for one row, which shortening a
  // loop of 12 K tiles (K = 768) does not earn back, and one of 48 does
  // (measured on GPT-2's layers: docs/tiling.md, "Split-K").
  constexpr int64_t kMinKTilesToSplit = 24, kMinSplitKTiles = 4;
  int64_t kTiles = (shape.k + tile[2] - 1) / tile[2];
  if (kTiles < kMinKTilesToSplit)
    return tile;
  int64_t splits = 1;
  for (int64_t d = 2; d <= std::min<int64_t>(kTiles / kMinSplitKTiles, 65535);
       ++d) {
    if (kTiles % d)
      continue;
    splits = d;
    if (tileBlocks * d >= sms)
      break;
  }
  if (splits > 1)
    tile.push_back(splits);
  return tile;
}

int64_t mlir::fk::chooseTensorCoreThreads(ArrayRef<int64_t> tile,
                                          bool pingPong) {
  if (pingPong ||
      (tile.size() >= 2 &&
       !TensorCoreTiling::get(tile, kThreadsPerWarpgroup, /*stages=*/1)
            .fitsOneWarpgroup()))
    return kThreadsPerWarpgroup * (1 + kMaxConsumers);
  return kThreadsPerWarpgroup;
}
