//===- TensorCoreMatmul.h - matmul fusions on Hopper tensor cores -*- C++ -*-===//
//
// The kernel of a `matmul` fusion on sm_90a: each block computes one output
// tile with `wgmma` (nvgpu.warpgroup.mma, f32 accumulation) on operand tiles
// that TMA (cp.async.bulk.tensor) brings into a ring of shared-memory stages,
// each guarded by an mbarrier; the fusion's epilogue (bias, activation,
// residual, scaling, casts) runs on the accumulator tile before the one
// store of each result element.
//
// The operands are read through tensor maps, so they must be fusion inputs
// (buffers) in the layout the tensor map and wgmma take, the right one
// also as transpose(w) of an input w (K-major); everything else
// goes to the mma.sync kernel (WarpMmaMatmul.h), which copies rows that are
// not 16-byte multiples element by element.
//
// Products with a long K loop and many tiles take 128 x 256 tiles on a
// warp-specialized form of the kernel: a producer warpgroup issues the
// loads and two consumer warpgroups multiply, synchronized only by the
// ring's mbarriers.
//
// A product with too few output tiles to give every SM a block (a decode
// step's, a short prompt's) splits K among the blocks of each tile: every
// block writes its f32 partial tile to a workspace, and a second kernel sums
// the partials and runs the epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TENSORCOREMATMUL_H
#define FKC_CODEGEN_TENSORCOREMATMUL_H

#include "Codegen/KernelBuilder.h"
#include "Codegen/SharedMemory.h"

#include <string>

namespace mlir::fk {

/// The tile one block of the tensor-core kernel computes and the depth of
/// its shared-memory ring (see fk-tile and fk-promote).
struct TensorCoreTiling {
  int64_t tileM = 128, tileN = 128, tileK = 64;
  /// Operand tiles in flight: TMA fills `stages - 1` while wgmma reads one.
  int64_t stages = 3;
  /// Blocks that share each output tile, each over an equal part of K
  /// (split-K): they write f32 partial tiles to a workspace, and a second
  /// kernel sums them and runs the epilogue.
  int64_t splits = 1;
  /// Consumer warpgroups: 0 for the kernel of one warpgroup that both
  /// loads and computes the tile; n >= 1 for the warp-specialized kernel,
  /// a producer warpgroup issuing the loads and n consumer warpgroups each
  /// computing tileM / n rows of the tile.
  int64_t consumers = 0;

  /// The tiling of a `#fk.tiling<tensor_core, tile = [M, N, K(, splits)],
  /// threads = T>` (T = 128, or 128 more per consumer warpgroup) with
  /// `stages` from the fusion's promotion.
  static TensorCoreTiling get(TilingAttr tiling, int64_t stages);
  /// The same from the tile sizes (at least M and N) and the block size.
  static TensorCoreTiling get(ArrayRef<int64_t> tile, int64_t threads,
                              int64_t stages);

  /// The warp-specialized kernel is persistent: a block per SM walks the
  /// output tiles, its producer loading the next tile's K tiles while the
  /// consumers run the previous tile's epilogue.
  bool isWarpSpecialized() const { return consumers > 0; }
  /// Whether the consumers take turns on whole tiles (ping-pong: one's
  /// epilogue runs under the other's main loop), which they do where one
  /// warpgroup holds the tile's accumulator; else they share each tile's
  /// rows (cooperative).
  bool isPingPong() const { return consumers > 1 && fitsOneWarpgroup(); }
  /// Whether one warpgroup can hold the whole tile's f32 accumulator.
  bool fitsOneWarpgroup() const {
    return tileM * tileN / kThreadsPerWarpgroup <= kMaxAccumulatorRegisters;
  }
  /// The most f32 accumulator registers per thread of a warpgroup.
  static constexpr int64_t kMaxAccumulatorRegisters = 128;
  /// The block: one warpgroup, or the producer and the consumers.
  int64_t getThreads() const { return kThreadsPerWarpgroup * (1 + consumers); }
  /// The rows of the tile one computing warpgroup holds in registers.
  int64_t getWarpgroupRows() const {
    return consumers && !isPingPong() ? tileM / consumers : tileM;
  }

  /// The bytes of one stage of the ring: an A and a B tile.
  int64_t getStageBytes(int64_t elementBytes) const {
    return (tileM + tileN) * tileK * elementBytes;
  }
  /// The f32 tile the warp-specialized kernel's epilogue stages its
  /// accumulators through, kEpilogueColumns at a time, beside the ring
  /// (which the producer is already filling for the block's next tile);
  /// the one-warpgroup kernel stages its whole tile through the ring.
  int64_t getEpilogueColumns() const {
    return consumers ? std::min<int64_t>(tileN, kEpilogueColumns) : tileN;
  }
  /// One such tile of each consumer's rows (none without consumers).
  int64_t getEpilogueBytes() const {
    return consumers * getWarpgroupRows() * getEpilogueColumns() * 4;
  }
  /// Dynamic shared memory: the ring and the epilogue's tile, plus 1 KiB to
  /// align the base to the 1024 bytes 128-byte-swizzled tiles need.
  int64_t getSharedBytes(int64_t elementBytes) const {
    return stages * getStageBytes(elementBytes) + getEpilogueBytes() +
           kRingAlignment;
  }

  /// The most columns of the warp-specialized kernel's epilogue tile: 64
  /// leave room for a 4-stage ring of 128 x 256 tiles (32 KiB beside 192),
  /// 128 only for 3. Measured on an H100 (fkc-run, 128 x 256 tiles, 64 /
  /// 128 columns): 4096^3 0.190 / 0.195 ms, 8192^3 1.447 / 1.50 ms, 16 x
  /// 2048^3 0.412 / 0.418 ms.
  static constexpr int64_t kEpilogueColumns = 64;
};

/// Why the tensor-core kernel cannot compute `fusion` on `target` (the
/// target lacks wgmma or TMA, or the kernel cannot read the operands), or
/// an empty string when it can.
std::string whyNotTensorCoreMatmul(FusionOp fusion, TargetAttr target);

/// Why `tile` = [M, N, K(, splits)] on a block of `threads` cannot be a
/// tensor-core tile for operands of `elementBytes` (of a matmul pair's
/// kernel, if `paired`), or "".
std::string checkTensorCoreTile(ArrayRef<int64_t> tile, int64_t elementBytes,
                                int64_t threads = kThreadsPerWarpgroup,
                                bool paired = false);

/// The rows of the product the kernel computes for `matmul`: M, or batch x
/// M where the right operand has no batch dims (the batches are folded into
/// one product that reads B once).
int64_t getTensorCoreRows(MatmulOp matmul);

/// Why the blocks of `tile` = [M, N, K, splits] cannot split `matmul`'s K
/// among them, or "" (one split always can).
std::string whyNotSplitK(MatmulOp matmul, ArrayRef<int64_t> tile);

/// fk-tile's tensor-core tile for `matmul` on `target`: [128, 128, K step]
/// (K step: a 128-byte row, 64 16-bit elements or 32 TF32), or 64 x 64
/// where the product has at most 64 rows or 128 x 128 tiles would occupy at
/// most a quarter of the SMs, or 64 x 128 / 192 / 256 (the most blocks in
/// one wave of two per SM) where 128 x 128 tiles would give fewer than two
/// blocks per SM, or 64 x 256 on ping-pong consumers for 16-bit products of
/// at most 32 K tiles and four waves of such tiles (prefersPingPong), or
/// 128 x 256 (warp-specialized, chooseTensorCoreThreads) for 16-bit
/// products of at least 16 K tiles and a wave of such tiles; then, while
/// 64 x 64 blocks are fewer than the SMs and the K loop is long, K split
/// among more blocks (a fourth tile size).
/// `pingPong`, if given, says whether the tile is for ping-pong consumers.
SmallVector<int64_t> chooseTensorCoreTile(MatmulOp matmul, TargetAttr target,
                                          bool *pingPong = nullptr);

/// The wgmma kernel's block for `tile` unless asked otherwise: one
/// warpgroup where its accumulator fits in 128 registers per thread, else
/// (or for ping-pong consumers, `pingPong`) a producer and two consumer
/// warpgroups.
int64_t chooseTensorCoreThreads(ArrayRef<int64_t> tile, bool pingPong = false);

/// The workspace of a split-K kernel: each split's f32 partial product,
/// [splits, rows, N]: rows given at run time at their bound (whyNotSplitK
/// requires one).
MemRefType getSplitKPartialType(MatmulOp matmul,
                                const TensorCoreTiling &tiling);

/// The tensor maps the kernel reads the matmul's operands through, made in
/// the host function at `b` for the operands' buffers (`rhsBuffers`: the
/// right operand's, and a pair's second right operand's): {lhs, rhs...}.
/// `rows` is the product's rows in the host function where they are given
/// at run time (MatmulShape::hasRuntimeRows), else null.
SmallVector<Value, 3> buildOperandTensorMaps(OpBuilder &b, FusionOp fusion,
                                             const TensorCoreTiling &tiling,
                                             TargetAttr target,
                                             Value lhsBuffer,
                                             ValueRange rhsBuffers,
                                             Value rows = Value());

/// The blocks of a cluster of the warp-specialized kernel of `fusion`: 2
/// where its consumers share each tile (cooperative, not ping-pong), its
/// rows are known when compiled, K is not split, and row tiles and blocks
/// come in pairs, so that the two blocks of a cluster compute the two row
/// tiles of one column at every step and each loads half of their B tile
/// for both (TMA multicast); else 1.
int64_t getClusterBlocks(FusionOp fusion, const TensorCoreTiling &tiling,
                         TargetAttr target);

/// Whether the warp-specialized kernel of `fusion` stores its result by
/// TMA: its one result is the matmul's 16-bit product itself (no epilogue
/// ops, or elementwise ones reading no input but vectors along its
/// columns, such as a bias), or a group's results are its products each
/// as it is; unbatched (batches folded into the rows are consecutive rows
/// of the result), of rows known when compiled, and
/// its blocks compute more than one tile each (the stores drain under the
/// next tile's main loop; with one tile per block there is none, and the
/// f32 tile's path is kept). Its consumers then write
/// each 64-column slice of their accumulator as 16-bit values into a
/// swizzled tile and one thread stores it with cp.async.bulk.tensor, which
/// drains while they go on to the next tile, instead of staging f32 in
/// shared memory and storing from every thread.
bool storesResultByTma(FusionOp fusion, const TensorCoreTiling &tiling,
                       TargetAttr target);

/// What the wgmma kernel of `fusion` is, in words (fk-promote's remark):
/// its tile and K step, its warpgroups (one that copies and computes, or a
/// producer and consumers sharing each tile or taking turns on tiles), its
/// ring of TMA stages and how its results leave (by TMA from registers, or
/// through an f32 tile in shared memory).
std::string describeTensorCoreKernel(FusionOp fusion,
                                     const TensorCoreTiling &tiling,
                                     TargetAttr target);

/// The tensor maps the kernel stores its results through
/// (storesResultByTma), one per product (a group's), over `resultBuffers`
/// in the products' order: boxes of 64 columns x the consumer's rows.
SmallVector<Value> buildResultTensorMaps(OpBuilder &b, FusionOp fusion,
                                         const TensorCoreTiling &tiling,
                                         ValueRange resultBuffers);

/// Fills `kernel`, whose arguments are the two tensor maps then the
/// fusion's input and result buffers (as for buildFusionKernel), and
/// returns its launch. With several splits, the arguments are the two
/// tensor maps, the partial buffer (getSplitKPartialType), then the
/// fusion's input buffers; the kernel writes the partial products.
FailureOr<LaunchShape>
buildTensorCoreMatmulKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                            TargetAttr target, gpu::GPUFuncOp kernel,
                            gpu::GPUModuleOp kernels);

/// Fills `kernel` with the kernel that sums a split-K kernel's partial
/// products and runs the fusion's epilogue. Its arguments are the partial
/// buffer, then the fusion's input and result buffers.
FailureOr<LaunchShape>
buildSplitKCombineKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                         gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TENSORCOREMATMUL_H
