//===- FkScalarSemantics.h - what elementwise fk ops compute ----*- C++ -*-===//
//
// The one definition of each elementwise op's arithmetic on a single element.
// Constant folding and the CPU reference interpreter both use it, so folded
// constants and interpreted graphs agree by construction.
//
// Values travel as double: every f32/f16/bf16/i32/i1 value is exact in a
// double. Results are rounded to the element type with `roundToElementType`.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKSCALARSEMANTICS_H
#define FK_IR_FKSCALARSEMANTICS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>

namespace mlir::fk {

/// Rounds `value` to the nearest value of `elementType` (round to nearest
/// even for floats, wrap-around for i32, `value != 0` for i1).
double roundToElementType(double value, Type elementType);

/// Converts `value` of some element type to `to`, as `fk.cast` does:
/// float to i32 truncates toward zero, saturates, and maps NaN to 0.
double castScalar(double value, Type to);

/// Evaluates elementwise op `op` on one element of each operand, rounded to
/// the result's element type; nullopt if `op` is not an elementwise fk op.
std::optional<double> evaluateElementwise(Operation *op,
                                          llvm::ArrayRef<double> operands);

/// The value of one element of a constant (a FloatAttr or IntegerAttr).
double attributeToDouble(Attribute element);

/// The FloatAttr or IntegerAttr of `elementType` holding `value`.
Attribute doubleToAttribute(Type elementType, double value);

} // namespace mlir::fk

#endif // FK_IR_FKSCALARSEMANTICS_H
