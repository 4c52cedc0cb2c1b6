//===- FkGatherSemantics.h - what an fk.gather index selects -*- C++ -*-===//
//
// An index of fk.gather along an axis of n elements selects `index mod n`
// when it lies in [-n, n) (negative indices count from the end, as in numpy
// and PyTorch) and is clamped into [0, n - 1] otherwise (as in XLA), so no
// index reads outside the table. Stated once in double (the reference
// interpreter) and once as arith ops (kernels), side by side.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKGATHERSEMANTICS_H
#define FK_IR_FKGATHERSEMANTICS_H

#include "mlir/IR/Builders.h"
#include <cstdint>

namespace mlir::fk {

/// The coordinate along an axis of `size` (> 0) elements that the integral
/// `index` selects.
int64_t normalizeGatherIndex(double index, int64_t size);

/// The same as an `index` value, from a compute-type (i32 or i64) `index`.
Value buildGatherCoordinate(OpBuilder &b, Location loc, Value index,
                            int64_t size);
/// The same along an axis whose size (> 0) is the i64 `size`, a size
/// given at run time.
Value buildGatherCoordinate(OpBuilder &b, Location loc, Value index,
                            Value size);

} // namespace mlir::fk

#endif // FK_IR_FKGATHERSEMANTICS_H
