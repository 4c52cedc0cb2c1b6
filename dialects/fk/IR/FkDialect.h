//===- FkDialect.h - the fk dialect -----------------------------*- C++ -*-===//

#ifndef FK_IR_FKDIALECT_H
#define FK_IR_FKDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fk/IR/FkDialect.h.inc"

namespace mlir::fk {
/// Lets every elementwise op fold on splat constants (FkFolds.cpp).
void addElementwiseFolding(FkDialect &dialect);
} // namespace mlir::fk

#endif // FK_IR_FKDIALECT_H
