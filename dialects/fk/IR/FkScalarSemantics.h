//===- FkScalarSemantics.h - what one element of an fk op is ----*- C++ -*-===//
//
// The language's element semantics, on both sides of the compiler: in double
// (constant folding, the CPU reference interpreter) and as arith/math ops
// (GPU kernels). Each elementwise op states its own arithmetic through
// ScalarElementwiseOpInterface (FkElementwiseOps.cpp); this file holds what
// every op shares: the compute type, rounding to the element type after
// every op, and casts, so that folded constants, interpreted graphs and
// kernels agree.
//
// In double, every f32/f16/bf16/i32/i1 value is exact. In kernels, scalars
// are held in their *compute type*: f32 for every float dtype, i32, and i1;
// f16 and bf16 round to their type after every op.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKSCALARSEMANTICS_H
#define FK_IR_FKSCALARSEMANTICS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>

namespace mlir::fk {

//===----------------------------------------------------------------------===//
// In double
//===----------------------------------------------------------------------===//

/// Rounds `value` to the nearest value of `elementType` (round to nearest
/// even for floats, wrap-around for i32, `value != 0` for i1).
double roundToElementType(double value, Type elementType);

/// Whether the number `value` is a value of `elementType` as a number of a
/// graph must be: an integer in range for i32, 0 or 1 for i1, and for floats
/// anything but a finite number that rounds to infinity (infinities and
/// NaN are values of every float type).
bool isRepresentable(double value, Type elementType);

/// Converts `value` of some element type to `to`, as `fk.cast` does:
/// float to i32 truncates toward zero, saturates, and maps NaN to 0.
double castScalar(double value, Type to);

/// Evaluates the elementwise op `op` on one element of each operand, rounded
/// to the result's element type; nullopt if `op` does not implement
/// ScalarElementwiseOpInterface.
std::optional<double> evaluateElementwise(Operation *op,
                                          llvm::ArrayRef<double> operands);

/// The value of one element of a constant (a FloatAttr or IntegerAttr).
double attributeToDouble(Attribute element);

/// The FloatAttr or IntegerAttr of `elementType` holding `value`.
Attribute doubleToAttribute(Type elementType, double value);

//===----------------------------------------------------------------------===//
// As arith/math ops
//===----------------------------------------------------------------------===//

/// The type a scalar of element type `elementType` is computed in.
Type getComputeType(Type elementType);

/// Rounds `value` (in the compute type) to what `elementType` can hold, as
/// storing and reloading it would: a no-op but for f16 and bf16.
Value roundToElementType(OpBuilder &b, Location loc, Value value,
                         Type elementType);

/// Converts a loaded element of `elementType` to its compute type.
Value extendToComputeType(OpBuilder &b, Location loc, Value value,
                          Type elementType);
/// Converts a compute-type scalar to `elementType` for a store.
Value truncateToElementType(OpBuilder &b, Location loc, Value value,
                            Type elementType);

/// A compute-type constant of `elementType`'s compute type.
Value buildScalarConstant(OpBuilder &b, Location loc, Type elementType,
                          double value);

/// Emits the scalar computation of the elementwise op `op` on `operands`
/// (compute-type scalars of its operands' element types), rounded to the
/// op's result element type. Fails with an error at `op` for an op that does
/// not implement ScalarElementwiseOpInterface.
FailureOr<Value> buildElementwise(OpBuilder &b, Operation *op,
                                  ValueRange operands);

} // namespace mlir::fk

#endif // FK_IR_FKSCALARSEMANTICS_H
