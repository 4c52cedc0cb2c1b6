//===- MergedMatmuls.h - what matmul pairs and groups both ask -*- C++ -*-===//
//
// fk-pair-matmuls and fk-group-matmuls both merge matmul kernels of one left
// operand into one wgmma kernel, moving each kernel's reads to the merged
// kernel's place. These are the questions both ask of their candidates.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_MERGEDMATMULS_H
#define FKC_CODEGEN_MERGEDMATMULS_H

#include "fk/IR/FkOps.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::fk {

/// The target whose wgmma kernel would compute `fn`'s merged matmuls: the
/// module's, or null (no target, or an external function: nothing to
/// merge).
TargetAttr getMergeTarget(func::FuncOp fn);

/// The summary remark of `fn` after `merged` pairs or groups (`kind`:
/// "pair", "group"): graph 'NAME': N matmul KINDs, M kernels.
void remarkMergedMatmuls(func::FuncOp fn, int64_t merged, StringRef kind);

/// The fusion input that `value` (a block argument of `fusion`'s body)
/// stands for, else null.
Value getFusionOuterValue(FusionOp fusion, Value value);

/// `matmul` named by its place in the source (a graph's matmuls are often
/// unnamed values): 'fk.matmul' (LINE:COLUMN).
std::string describeMatmul(MatmulOp matmul);

/// Why `fusion`'s one matmul would not run on the wgmma kernel with 16-bit
/// operands and K unsplit, or "".
std::string whyNotMergeableMatmul(FusionOp fusion, TargetAttr target);

/// Why the kernels `first` ... `last` (in program order, `last` reading
/// nothing `first` writes in place) cannot run at `last`'s place as one
/// kernel, `first` reading what it read at its own place: a kernel from
/// `first` to `last` writes a parameter in place that the kernels read, or
/// any kernel between them does (an update of a cache in place; a kernel
/// reading the parameter after it would see the new value). "" when they
/// can. `members` are the kernels that merge.
std::string whyNotMovableReads(ArrayRef<FusionOp> members);

} // namespace mlir::fk

#endif // FKC_CODEGEN_MERGEDMATMULS_H
