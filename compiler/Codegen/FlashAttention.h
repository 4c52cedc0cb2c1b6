//===- FlashAttention.h - attention fusions as one online-softmax kernel -*- C++ -*-===//
//
// The kernel of an `attention` fusion: on wgmma and TMA on sm_90a, and in
// an mma.sync and cp.async form on the other targets from sm_80 (and for
// head dims other than 64 and 128, and 96 and 112, which the wgmma form
// computes as 128: TMA reads the columns past the head dim as zeros, and
// the epilogue stores only the attention's columns). Each block owns
// `queryRows` query rows of one batch (a warpgroup per 64 rows) and walks
// the key axis in blocks of `keyBlock` keys, never writing the scores to
// device memory:
//
//   S = Q K^T            wgmma, Q and K from shared memory (TMA)
//   m' = max(m, rowmax S)
//   P = exp2(S * c - m' * c), c = scale * log2(e)
//   l = l * exp2((m - m') * c) + rowsum P
//   O = O * exp2((m - m') * c) + P V      wgmma, P from registers
//
// then O / l, the fusion's epilogue, and one store of each result element.
// Key blocks that a causal mask hides entirely are never loaded; only
// blocks that cross the diagonal or the end of the keys are masked. On
// wgmma the block may also have a producer warpgroup that does every copy
// while the two computing warpgroups overlap each block's softmax with the
// next block's products (FlashAttentionTiling::warpSpecialized).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_FLASHATTENTION_H
#define FKC_CODEGEN_FLASHATTENTION_H

#include "Codegen/KernelBuilder.h"
#include "Codegen/SharedMemory.h"
#include "fk/IR/FkKernelLimits.h"

namespace mlir::fk {

/// The tile of one block of the flash kernel and its ring's depth (see
/// fk-tile's `flash` strategy and fk-promote).
struct FlashAttentionTiling {
  /// `headDim` is the head dim the kernel computes with: the attention's,
  /// or in the wgmma form 128 for 96 and 112 (getWarpgroupFlashHeadDim).
  int64_t queryRows, keyBlock, headDim;
  /// K/V blocks in flight: TMA fills the others while one is read.
  int64_t stages;
  /// A producer warpgroup issues the copies and the query rows' warpgroups
  /// (two) only compute, taking turns on the tensor cores (see
  /// FlashAttention.cpp); otherwise every warpgroup computes and thread 0
  /// also copies.
  bool warpSpecialized = false;

  /// f32 elements added to each row of the output tile in shared memory,
  /// against bank conflicts (a multiple of 4 keeps rows 16-byte aligned).
  static constexpr int64_t kOutputRowPad = 4;
  /// Shared memory a block holds beyond the dynamic: its mbarriers (ptxas
  /// rounds static shared memory up to 1 KiB) and the 1 KiB the hardware
  /// reserves per block.
  static constexpr int64_t kSharedOverheadPerBlock = 2048;

  static FlashAttentionTiling get(TilingAttr tiling, int64_t stages) {
    ArrayRef<int64_t> tile = tiling.getTile();
    FlashAttentionTiling flash{tile[0], tile[1], tile[2], stages};
    flash.warpSpecialized = tiling.getThreads() == flash.getComputeThreads() +
                                                       kThreadsPerWarpgroup;
    return flash;
  }
  /// The warpgroups that compute: one per 64 query rows.
  int64_t getWarpgroups() const { return queryRows / kFlashRowsPerWarpgroup; }
  int64_t getComputeThreads() const {
    return getWarpgroups() * kThreadsPerWarpgroup;
  }
  /// The block: the computing warpgroups, and the producer's.
  int64_t getThreads() const {
    return getComputeThreads() + (warpSpecialized ? kThreadsPerWarpgroup : 0);
  }
  int64_t getQueryBytes(int64_t elementBytes) const {
    return queryRows * headDim * elementBytes;
  }
  /// One K block and one V block.
  int64_t getStageBytes(int64_t elementBytes) const {
    return 2 * keyBlock * headDim * elementBytes;
  }
  /// The f32 output tile, staged for the epilogue over Q and the ring.
  int64_t getOutputTileBytes() const {
    return queryRows * (headDim + kOutputRowPad) * 4;
  }
  /// Dynamic shared memory: Q, the ring, 1 KiB to align the base.
  int64_t getSharedBytes(int64_t elementBytes) const {
    return getQueryBytes(elementBytes) + stages * getStageBytes(elementBytes) +
           kRingAlignment;
  }
  /// Whether two blocks fit on one SM of `target`.
  bool twoBlocksFit(int64_t elementBytes, TargetAttr target) const {
    return 2 * (getSharedBytes(elementBytes) + kSharedOverheadPerBlock) <=
           target.getSharedMemoryPerSm();
  }
};

/// The tensor maps the kernel reads Q, K and V through, made in the host
/// function at `b` for their buffers; `hostSize` builds there the value of
/// a symbolic batch count.
SmallVector<Value, 3>
buildAttentionTensorMaps(OpBuilder &b, FusionOp fusion,
                         const FlashAttentionTiling &tiling, Value query,
                         Value key, Value value,
                         function_ref<Value(const Dim &)> hostSize);

/// Fills `kernel`, whose arguments are the three tensor maps then the
/// fusion's input and result buffers, for `target`, and returns its launch.
FailureOr<LaunchShape>
buildFlashAttentionKernel(FusionOp fusion, const FlashAttentionTiling &tiling,
                          TargetAttr target, gpu::GPUFuncOp kernel,
                          gpu::GPUModuleOp kernels);

/// The same kernel on mma.sync and cp.async, for targets from sm_80 without
/// wgmma: `kernel`'s arguments are the fusion's input and result buffers.
/// Each warp owns 16 query rows; the accumulators have the wgmma form's
/// layout, so the softmax is the same code.
FailureOr<LaunchShape> buildWarpMmaFlashAttentionKernel(
    FusionOp fusion, const FlashAttentionTiling &tiling, TargetAttr target,
    gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_FLASHATTENTION_H
