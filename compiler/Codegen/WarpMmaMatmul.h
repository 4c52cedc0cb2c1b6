//===- WarpMmaMatmul.h - matmul fusions on warp-level tensor cores -*- C++ -*-===//
//
// The kernel of a `matmul` fusion on every GPU from sm_80 on: each block of
// four warps computes one output tile with `mma.sync` (m16n8k16, f32
// accumulation in registers), its operand tiles brought into a ring of
// shared-memory stages by `cp.async` and read into registers by
// `ldmatrix`; the fusion's epilogue (bias, activation, residual, casts) runs
// on the accumulator tile before the one store of each result element, as
// in the Hopper kernel (TensorCoreMatmul.h), which sm_90a uses instead.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_WARPMMAMATMUL_H
#define FKC_CODEGEN_WARPMMAMATMUL_H

#include "Codegen/KernelBuilder.h"

#include <string>

namespace mlir::fk {

/// The tile one block of the mma.sync kernel computes and the depth of its
/// shared-memory ring (see fk-tile and fk-promote).
struct WarpMmaTiling {
  int64_t tileM = 128, tileN = 128, tileK = 32;
  /// Operand tiles in flight: cp.async fills `stages - 1` while the warps
  /// read one.
  int64_t stages = 4;

  /// The tiling of a `#fk.tiling<mma_sync, tile = [M, N, K]>` with `stages`
  /// from the fusion's promotion.
  static WarpMmaTiling get(TilingAttr tiling, int64_t stages);

  /// The operand tiles of one stage, in bytes.
  int64_t getStageBytes(int64_t elementBytes) const {
    return (tileM + tileN) * tileK * elementBytes;
  }
  /// Dynamic shared memory: the ring, or the f32 accumulator tile that
  /// reuses it for the epilogue when that is larger, plus the ring's
  /// alignment slack.
  int64_t getSharedBytes(int64_t elementBytes) const;
};

/// fk-promote's ring depth for the kernel.
inline constexpr int64_t kWarpMmaStages = 4;

/// Threads of a block of the mma.sync kernel: four warps, 2 x 2 over the
/// output tile.
inline constexpr int64_t kWarpMmaThreads = 128;

/// Why the mma.sync kernel cannot compute `fusion` on `target` (the target
/// predates sm_80, the operands are f32 and the module does not allow TF32,
/// or the kernel cannot read the operands), or "".
std::string whyNotWarpMmaMatmul(FusionOp fusion, TargetAttr target);

/// Why the mma.sync kernel cannot take `tile` = [M, N, K] of operands of
/// `elementBytes` (2, or 4: f32 on TF32), or "".
std::string checkWarpMmaTile(ArrayRef<int64_t> tile, int64_t elementBytes = 2);

/// fk-tile's mma.sync tile for `matmul` on `target`: [128, 128, K], or
/// [64, 64, K] where the product has at most 64 rows or 128 x 128 tiles
/// would occupy at most a quarter of the SMs; K 32 (16 for f32 on TF32).
SmallVector<int64_t> chooseWarpMmaTile(MatmulOp matmul, TargetAttr target);

/// Fills `kernel`, whose arguments are the fusion's input and result
/// buffers (as for buildFusionKernel), and returns its launch.
FailureOr<LaunchShape> buildWarpMmaMatmulKernel(FusionOp fusion,
                                                const WarpMmaTiling &tiling,
                                                gpu::GPUFuncOp kernel,
                                                gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_WARPMMAMATMUL_H
