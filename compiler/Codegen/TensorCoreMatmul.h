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

  /// The tiling of a `#fk.tiling<tensor_core, tile = [M, N, K(, splits)]>`
  /// with `stages` from the fusion's promotion.
  static TensorCoreTiling get(TilingAttr tiling, int64_t stages);

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
/// blocks per SM; then, while 64 x 64 blocks are fewer than the SMs and the
/// K loop is long, K split among more blocks (a fourth tile size).
SmallVector<int64_t> chooseTensorCoreTile(MatmulOp matmul, TargetAttr target);

/// The workspace of a split-K kernel: each split's f32 partial product,
/// [splits, rows (getTensorCoreRows), N].
MemRefType getSplitKPartialType(MatmulOp matmul,
                                const TensorCoreTiling &tiling);

/// The tensor maps the kernel reads the matmul's operands through, made in
/// the host function at `b` for the operands' buffers: {lhs, rhs}.
SmallVector<Value, 2> buildOperandTensorMaps(OpBuilder &b, FusionOp fusion,
                                             const TensorCoreTiling &tiling,
                                             Value lhsBuffer,
                                             Value rhsBuffer);

/// Fills `kernel`, whose arguments are the two tensor maps then the
/// fusion's input and result buffers (as for buildFusionKernel), and
/// returns its launch. With several splits, the arguments are the two
/// tensor maps, the partial buffer (getSplitKPartialType), then the
/// fusion's input buffers; the kernel writes the partial products.
FailureOr<LaunchShape>
buildTensorCoreMatmulKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                            gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

/// Fills `kernel` with the kernel that sums a split-K kernel's partial
/// products and runs the fusion's epilogue. Its arguments are the partial
/// buffer, then the fusion's input and result buffers.
FailureOr<LaunchShape>
buildSplitKCombineKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                         gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TENSORCOREMATMUL_H
