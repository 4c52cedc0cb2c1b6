//===- FkDialect.h - the fk dialect -----------------------------*- C++ -*-===//

#ifndef FK_IR_FKDIALECT_H
#define FK_IR_FKDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fk/IR/FkDialect.h.inc"

#endif // FK_IR_FKDIALECT_H
