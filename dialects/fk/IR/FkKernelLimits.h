//===- FkKernelLimits.h - what fkc's kernels can compute --------*- C++ -*-===//
//
// The limits of the kernels that passes consult before code generation:
// fk-decompose keeps an attention whole only where the flash-attention
// kernel (compiler/Codegen/FlashAttention.cpp) or the decode-attention
// kernel (compiler/Codegen/DecodeAttention.cpp) computes it; fk-tile, the
// checks of hand-written tilings and the kernel read the same limits. Where
// the answer depends on the GPU, the functions take the module's target.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKKERNELLIMITS_H
#define FK_IR_FKKERNELLIMITS_H

#include "fk/IR/FkOps.h"

#include <optional>
#include <string>

namespace mlir::fk {

/// The query rows one warpgroup of the flash kernel owns.
inline constexpr int64_t kFlashRowsPerWarpgroup = 64;

/// The most query rows or keys the attention kernels take: they compare
/// key and query indices in 32 bits, and TMA's coordinates are 32-bit.
/// Lengths given at run time without a bound below it are checked per run
/// (the launch's `limits`, docs/artifact.md).
inline constexpr int64_t kMaxAttentionLength = (int64_t(1) << 31) - 1;

/// Why `target` cannot run the kernels built on wgmma and TMA (the
/// tensor-core matmul and flash attention), or "" if it can.
std::string whyNoWarpgroupKernels(TargetAttr target);

/// The first op that reads `value`, directly or through other ops that
/// `isMember` accepts, other than elementwise with results of `shape`;
/// null if none does. The walk ends at ops `isMember` rejects and at
/// `end`. A contraction kernel's epilogue computes each result element from
/// the contraction's element at the same coordinates, so what it reads of
/// the contraction must be elementwise at the contraction's shape.
Operation *findNonElementwiseUse(Value value, ArrayRef<int64_t> shape,
                                 function_ref<bool(Operation *)> isMember,
                                 Operation *end = nullptr);

/// Whether `transpose` swaps its operand's last two dimensions and keeps
/// the others: `x @ transpose(w)` (nn.Linear's [out, in] weights, an LM
/// head tied to the embedding), whose right operand the tensor-core kernel
/// reads directly in w's layout, K-major, so the transpose costs nothing.
bool swapsLastTwoDims(TransposeOp transpose);

/// The head dims a head split moves the rows past, or 0: `transpose` takes
/// [..., T, H1, ..., Hk, D] to [..., H1, ..., Hk, T, D] and keeps the other
/// dims, k >= 1 (`perm = [0, 2, 1, 3]` at rank 4, the split of a
/// transformer's projection into heads; `perm = [0, 2, 3, 1, 4]` into
/// grouped-query heads [B, G, J, T, D], G key/value heads of J queries).
/// The heads are the flat head h = (h1 * H2 + h2) * ... of a [..., T,
/// H1 * ... * Hk, D] layout.
int64_t getHeadSplitDims(TransposeOp transpose);

/// The same for a head merge, the inverse permutation: [..., H1, ..., Hk,
/// T, D] -> [..., T, H1, ..., Hk, D] (`perm = [0, 2, 1, 3]` at rank 4,
/// `[0, 3, 1, 2, 4]` from grouped-query heads).
int64_t getHeadMergeDims(TransposeOp transpose);

/// Whether `reshape` splits its operand's last dimension into two or more
/// and keeps the others ([..., H * D] -> [..., H, D], [..., G * J * D] ->
/// [..., G, J, D]): the same bytes in the same order.
bool splitsLastDim(ReshapeOp reshape);

/// Whether `reshape` is the projection split under the head split `split`:
/// it gives `split` its operand, [..., T, H1, ..., Hk, D], from [..., T,
/// H1 * ... * Hk * D] (the same bytes).
bool isHeadSplitReshape(ReshapeOp reshape, TransposeOp split);

/// Whether `reshape` keeps its operand's last two dims and regroups the
/// others (grouped-query heads [B, H, T, D] -> [B, G, J, T, D]): the same
/// elements in the same order.
bool regroupsBatchDims(ReshapeOp reshape);

/// The value whose bytes the flash kernel reads for `operand` (a query, key
/// or value of an attention) when the operand is a head split: for
/// `transpose(x)` of a [..., T, H1, ..., Hk, D] `x` that moves the rows
/// past the heads (getHeadSplitDims), `x`, and for `transpose(reshape(y))`
/// whose reshape splits the last dim of a [..., T, H1 * ... * Hk * D] `y`
/// (isHeadSplitReshape), `y` (the same bytes); the same under a reshape
/// regrouping the batch dims of the transpose; null otherwise. The kernel
/// reads [..., H, T, D] through a tensor map over [..., T, H, D], H the
/// product of the head dims. `split`, when given, receives the transpose.
Value getHeadSplitInput(Value operand, TransposeOp *split = nullptr);

/// The value whose bytes the flash kernel reads for an attention operand:
/// the head split's input (getHeadSplitInput), the operand of a reshape
/// regrouping its batch dims (the same bytes), or the operand itself.
Value getAttentionOperandInput(Value operand);

/// The attention-shaped value `result` is the head merge of, or null:
/// `result` is `transpose(e)` moving the rows of a [..., H1, ..., Hk, T, D]
/// `e` before its heads (getHeadMergeDims), or a reshape of it merging the
/// heads and the last dim ([..., T, H1 * ... * Hk * D]); `e` may be a
/// reshape regrouping the batch dims of the value returned (grouped-query
/// heads [B, G, J, T, D] -> [B, G * J, T, D]: the same elements in the
/// same order). The flash kernel computes the value returned and stores it
/// at the permuted coordinates. `merge`, when given, receives the
/// transpose.
Value getHeadMergeSource(Value result, TransposeOp *merge = nullptr);

/// Why the flash kernel does not run `attention` on wgmma and TMA on
/// `target` (only sm_90a has them, for 16-bit operands and the head dims
/// getWarpgroupFlashHeadDim takes), or ""; elsewhere from sm_80 on it runs
/// on mma.sync and cp.async.
std::string whyNotWarpgroupFlash(AttentionOp attention, TargetAttr target);

/// The head dim the flash kernel's wgmma form computes an attention of head
/// dim `headDim` with: 64 and 128 as they are, 96 and 112 padded to 128
/// (TMA reads the columns past the head dim as zeros, which add nothing to
/// the scores and give output columns that are not stored); 0 for the head
/// dims it does not take.
int64_t getWarpgroupFlashHeadDim(int64_t headDim);

/// The dynamic shared memory of a flash block of `rows` query rows and
/// key blocks of `keys` in a ring of two: Q, two K and V blocks, 1 KiB of
/// alignment (FlashAttentionTiling::getSharedBytes), or the f32 output
/// tile that reuses them where larger.
inline int64_t getFlashSharedBytes(int64_t rows, int64_t keys,
                                   int64_t headDim, int64_t elementBytes) {
  int64_t operands = (rows + 2 * 2 * keys) * headDim * elementBytes;
  int64_t output = rows * (headDim + 4) * 4;
  return std::max(operands, output) + 1024;
}

/// Whether the flash kernel reads `attention`'s keys at every run's sizes:
/// their count is static, as many as the query rows (a self-attention), or
/// given at run time with a lower bound that keeps it from 0 (`where 1 <=
/// S`: a chunk of new tokens over a cache). A run with queries but no keys
/// would need an empty tensor map.
bool flashReadsKeys(AttentionOp attention);

/// Why the flash kernel cannot compute `attention` on `target`, or "" if it
/// can.
std::string whyNotFlashAttention(AttentionOp attention, TargetAttr target);

/// The most query rows (per batch) an attention may have to run on the
/// decode-attention kernel, which reads every key once per block of at
/// most kDecodeRowsPerBlock rows.
inline constexpr int64_t kDecodeMaxQueries = 16;
/// The query rows one block of the decode kernel owns: each thread holds
/// its slice of every row's query and output in registers.
inline constexpr int64_t kDecodeRowsPerBlock = 4;
/// The largest head dim of the decode kernel (a warp spans a key row).
inline constexpr int64_t kDecodeMaxHeadDim = 256;

/// Why the decode-attention kernel (any target: few query rows, keys split
/// among warps and blocks) cannot compute `attention`, or "" if it can.
std::string whyNotDecodeAttention(AttentionOp attention);

/// Whether `attention` runs on the decode-attention kernel: it has at most
/// kDecodeMaxQueries query rows and the kernel can compute it. fk-tile
/// prefers it to the flash kernel, whose blocks of 64 query rows would
/// compute mostly padding.
bool usesDecodeAttention(AttentionOp attention);

/// Why neither attention kernel computes `attention` on `target` (it is
/// then decomposed into matmuls and a softmax), or "" if one does.
std::string whyNoAttentionKernel(AttentionOp attention, TargetAttr target);

/// Why the kernels cannot compute `op` with the sizes of the symbols its
/// types hold given at run time, or "" if they can. Loop, row and
/// reduction kernels read such sizes (a reduced axis included), matmul
/// kernels too (whyNotTiledAtRuntimeSizes), attention kernels their batch
/// and lengths (whyNotRuntimeSizedAttention; other attentions are
/// decomposed, but for a causal mask over lengths of different symbolic
/// sizes); a gather or an argmax along a symbolic axis that may be empty
/// needs a lower bound or sizes.
std::string whyNotRuntimeSized(Operation *op);

/// Why the attention kernels cannot read `attention`'s sizes given at run
/// time, or "" if they can (or it has none): they read its batch, the
/// flash kernel its query rows and keys where they are as many (or the
/// keys of fixed ones), the decode kernel its keys, the runtime checking
/// per run that the batches fit the grid's y and the lengths
/// kMaxAttentionLength; head dims are fixed when compiled.
/// whyNoAttentionKernel gives this reason first: such an attention is
/// decomposed into naive kernels, which read every size.
std::string whyNotRuntimeSizedAttention(AttentionOp attention);

/// The causal diagonal's offset of `attention` (query i sees keys up to
/// i + offset): its key count less its query rows, when that is known when
/// compiled (static lengths, or lengths of one symbolic size).
std::optional<int64_t> getCausalOffset(AttentionOp attention);

/// Why `attention`, decomposed into naive kernels, cannot read its sizes
/// given at run time, or "" if it can: its causal mask needs the
/// difference of its lengths (getCausalOffset) when compiled.
std::string whyNotDecomposedAtRuntimeSizes(AttentionOp attention);

/// Why the tiled matmul kernels (wgmma, mma.sync, the tiled CUDA-core
/// kernel) cannot read the sizes of `matmul` given at run time, or "" if
/// they can (or it has none): they read only the rows of a left operand
/// [..., M, K] with K static, times a right operand [K, N] of static
/// sizes. The element-per-thread kernel reads every size.
std::string whyNotTiledAtRuntimeSizes(MatmulOp matmul);

/// Reports at `op` that the sizes of its symbols, left to run time, are
/// needed when compiled because of `why`, naming the --bind to give.
InFlightDiagnostic emitNeedsSizesError(Operation *op, StringRef why);

} // namespace mlir::fk

#endif // FK_IR_FKKERNELLIMITS_H
