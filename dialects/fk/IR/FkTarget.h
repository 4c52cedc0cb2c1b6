//===- FkTarget.h - the GPU a module is compiled for ------------*- C++ -*-===//
//
// A module carries its target as `fk.target`, a #fk.target attribute: the
// chip and the facts about it that the passes' decisions depend on. The
// driver derives it from `--target` right after the front end; every pass
// that depends on the target reads it from the module, so the IR says what
// it is compiled for and a test may give a module any target, real or made
// up. Today the passes read whether the target has wgmma and TMA (which
// kernels exist), its shared memory per block and per SM (tiles and rings)
// and its chip (the PTX); the SM count and registers per thread are
// recorded for grid sizing and register-aware tiles to come.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKTARGET_H
#define FK_IR_FKTARGET_H

#include "fk/IR/FkOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir::fk {

/// The name of the module attribute that holds the target.
inline constexpr llvm::StringLiteral kTargetAttrName = "fk.target";

/// The chips fkc generates PTX for, oldest first.
llvm::ArrayRef<llvm::StringRef> getSupportedChips();

/// Whether fkc supports `chip`; otherwise sets `message` to why not.
bool isSupportedChip(llvm::StringRef chip, std::string &message);

/// What fkc knows of `chip` (the flagship part of its architecture), or
/// null if fkc does not support it.
TargetAttr getTargetDescription(MLIRContext *context, llvm::StringRef chip);

/// The target of the nearest module that is or holds `op`; if that module
/// has none, an error at `op` saying that `user` (a pass) needs it.
FailureOr<TargetAttr> getTarget(Operation *op, llvm::StringRef user);

} // namespace mlir::fk

#endif // FK_IR_FKTARGET_H
