//===- FkKernelLimits.h - what fkc's kernels can compute --------*- C++ -*-===//
//
// The limits of the kernels that passes consult before code generation:
// fk-decompose keeps an attention whole only where the flash-attention
// kernel (compiler/Codegen/FlashAttention.cpp) computes it; fk-tile, the
// checks of hand-written tilings and the kernel read the same limits. Where
// the answer depends on the GPU, the functions take the module's target.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKKERNELLIMITS_H
#define FK_IR_FKKERNELLIMITS_H

#include "fk/IR/FkOps.h"

#include <string>

namespace mlir::fk {

/// The query rows one warpgroup of the flash kernel owns.
inline constexpr int64_t kFlashRowsPerWarpgroup = 64;

/// Why `target` cannot run the kernels built on wgmma and TMA (the
/// tensor-core matmul and flash attention), or "" if it can.
std::string whyNoWarpgroupKernels(TargetAttr target);

/// Whether `transpose` swaps its operand's last two dimensions and keeps
/// the others: `x @ transpose(w)` (nn.Linear's [out, in] weights, an LM
/// head tied to the embedding), whose right operand the tensor-core kernel
/// reads directly in w's layout, K-major, so the transpose costs nothing.
bool swapsLastTwoDims(TransposeOp transpose);

/// Why the flash kernel cannot compute `attention` on `target`, or "" if it
/// can.
std::string whyNotFlashAttention(AttentionOp attention, TargetAttr target);

} // namespace mlir::fk

#endif // FK_IR_FKKERNELLIMITS_H
