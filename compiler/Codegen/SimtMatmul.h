//===- SimtMatmul.h - matmul fusions tiled on the CUDA cores ----*- C++ -*-===//
//
// The kernel of an f32, i32 or i64 `matmul` fusion on every GPU from sm_80:
// exact f32 FMAs (no TF32), or integer multiply-adds that wrap around as the
// language says, tiled as the tensor-core kernels are. Each block
// computes one output tile; operand tiles come into a ring of shared-memory
// stages by cp.async (WarpMma.h's swizzled tiles); each thread keeps an
// 8 x 8 block of the tile's accumulators in registers and reads its
// operands from shared memory 16 bytes at a time (4 f32 or i32, 2 i64); the
// fusion's epilogue runs on the accumulator tile, of the operands' type, as
// in the tensor-core kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_SIMTMATMUL_H
#define FKC_CODEGEN_SIMTMATMUL_H

#include "Codegen/KernelBuilder.h"

#include <string>

namespace mlir::fk {

/// Accumulators per thread along each side of the output tile.
inline constexpr int64_t kSimtThreadTile = 8;
/// fk-promote's ring depth for the kernel: the accumulator tile that reuses
/// the ring is larger than four stages of 128 x 128 tiles, so they cost no
/// shared memory (H100, 4096^3: 3.30 / 3.41 / 3.32 ms with 2 / 3 / 4).
inline constexpr int64_t kSimtStages = 4;

/// The tile one block of the kernel computes, its ring's depth and the
/// operands' (and accumulators') element size: 4 (f32, i32) or 8 (i64).
struct SimtTiling {
  int64_t tileM = 128, tileN = 128, tileK = 16;
  int64_t stages = kSimtStages;
  int64_t elementBytes = 4;

  static SimtTiling get(TilingAttr tiling, int64_t stages,
                        int64_t elementBytes);
  /// One thread per 8 x 8 accumulators.
  int64_t getThreads() const {
    return tileM / kSimtThreadTile * (tileN / kSimtThreadTile);
  }
  /// Elements in a 16-byte chunk, the unit of copies and shared reads.
  int64_t getChunkElements() const { return 16 / elementBytes; }
  int64_t getStageBytes() const {
    return (tileM + tileN) * tileK * elementBytes;
  }
  /// Dynamic shared memory: the ring, or the accumulator tile that reuses
  /// it for the epilogue when larger, plus the ring's alignment slack.
  int64_t getSharedBytes() const;
};

/// Why the kernel cannot compute `fusion` on `target` (before sm_80, 16-bit
/// operands, or operands it cannot copy), or "".
std::string whyNotSimtMatmul(FusionOp fusion, TargetAttr target);

/// Why the kernel cannot take `tile` = [M, N, K] of operands of
/// `elementBytes`, or "".
std::string checkSimtTile(ArrayRef<int64_t> tile, int64_t elementBytes);

/// fk-tile's tile for `matmul`: [128, 128, 16], or [64, 64, 16] where the
/// tensor-core kernels would take 64 x 64 tiles and for i64 (whose 128 x 128
/// accumulator tile would not fit the shared memory of sm_86 and later
/// consumer parts).
SmallVector<int64_t> chooseSimtTile(MatmulOp matmul, TargetAttr target);

/// Fills `kernel`, whose arguments are the fusion's input and result
/// buffers, and returns its launch.
FailureOr<LaunchShape> buildSimtMatmulKernel(FusionOp fusion,
                                             const SimtTiling &tiling,
                                             gpu::GPUFuncOp kernel,
                                             gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_SIMTMATMUL_H
