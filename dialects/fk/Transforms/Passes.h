//===- Passes.h - transformations of the fk dialect -------------*- C++ -*-===//

#ifndef FK_TRANSFORMS_PASSES_H
#define FK_TRANSFORMS_PASSES_H

#include "fk/IR/FkDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fk {

#define GEN_PASS_DECL
#include "fk/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fk/Transforms/Passes.h.inc"

} // namespace mlir::fk

#endif // FK_TRANSFORMS_PASSES_H
