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
// stays on the element-per-thread matmul kernel (KernelBuilder.cpp).
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

  /// Dynamic shared memory: the ring, plus 1 KiB to align its base to the
  /// 1024 bytes 128-byte-swizzled tiles need.
  int64_t getSharedBytes(int64_t elementBytes) const {
    return stages * (tileM + tileN) * tileK * elementBytes + kRingAlignment;
  }
};

/// Why the tensor-core kernel cannot compute `fusion` on `target` (the
/// target lacks wgmma or TMA, or the kernel cannot read the operands), or
/// an empty string when it can.
std::string whyNotTensorCoreMatmul(FusionOp fusion, TargetAttr target);

/// The fusion input the kernel reads `matmul`'s right operand from: the
/// operand, or `w` where the operand is transpose(w) of w's last two
/// dimensions (read K-major, in place).
Value getTensorCoreRhsInput(MatmulOp matmul);

/// The rows of the product the kernel computes for `matmul`: M, or batch x
/// M where the right operand has no batch dims (the batches are folded into
/// one product that reads B once).
int64_t getTensorCoreRows(MatmulOp matmul);

/// The tensor maps the kernel reads the matmul's operands through, made in
/// the host function at `b` for the operands' buffers: {lhs, rhs}.
SmallVector<Value, 2> buildOperandTensorMaps(OpBuilder &b, FusionOp fusion,
                                             const TensorCoreTiling &tiling,
                                             Value lhsBuffer,
                                             Value rhsBuffer);

/// Fills `kernel`, whose arguments are the two tensor maps then the
/// fusion's input and result buffers (as for buildFusionKernel), and
/// returns its launch.
FailureOr<LaunchShape>
buildTensorCoreMatmulKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                            gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TENSORCOREMATMUL_H
