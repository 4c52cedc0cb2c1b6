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
// In double, every f32/f16/bf16/i32/i1 value is exact, and i64 values of
// magnitude up to 2^53; larger i64 values round to the nearest double (2^63
// stands for INT64_MAX), so the interpreter is no exact oracle of i64
// arithmetic beyond 2^53 (docs/language.md, "Integers"). In kernels, scalars
// are held in their *compute type*: f32 for every float dtype, i32, i64 and
// i1; f16 and bf16 round to their type after every op.
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

/// Whether `elementType` is an integer that holds numbers: i32 or i64 (i1 is
/// the boolean).
bool isIntegerNumber(Type elementType);

/// The integral `value` as an int64 modulo 2^64, 2^63 itself giving
/// INT64_MAX (the double nearest to it): the bits that a store of an i32 or
/// i64 element holds. NaN and infinities, which no integer holds, give 0.
int64_t wrapToInt64(double value);

/// The i32 or i64 value whose two's complement bits are the low bits of
/// `bits` (wrap-around), as a double.
double fromWrappedBits(uint64_t bits, Type elementType);

/// Rounds `value` to the nearest value of `elementType` (round to nearest
/// even for floats, wrap-around for i32 and i64, `value != 0` for i1).
double roundToElementType(double value, Type elementType);

/// Whether the number `value` is a value of `elementType` as a number of a
/// graph must be: an integer in range for i32 or i64, 0 or 1 for i1, and
/// for floats anything but a finite number that rounds to infinity
/// (infinities and NaN are values of every float type).
bool isRepresentable(double value, Type elementType);

/// Converts `value` of element type `from` to `to`, as `fk.cast` does:
/// float to i32 or i64 truncates toward zero, saturates, and maps NaN to 0;
/// a narrower integer wraps, a wider one sign extends.
double castScalar(double value, Type from, Type to);

/// The least and greatest values of `elementType` (infinities for floats),
/// the identities of max and min reductions.
double lowestValue(Type elementType);
double highestValue(Type elementType);

/// Evaluates the elementwise op `op` on one element of each operand, rounded
/// to the result's element type; nullopt if `op` does not implement
/// ScalarElementwiseOpInterface.
std::optional<double> evaluateElementwise(Operation *op,
                                          llvm::ArrayRef<double> operands);

/// The value of one element of a constant (a FloatAttr or IntegerAttr).
double attributeToDouble(Attribute element);

/// The FloatAttr or IntegerAttr of `elementType` holding `value`.
Attribute doubleToAttribute(Type elementType, double value);

/// The splat of `value` (rounded or wrapped to the element type) in `type`,
/// the value of a constant with one value everywhere.
DenseElementsAttr getSplatAttribute(ShapedType type, double value);

/// `value` at every element of `type`: a splat constant, or where the shape
/// is sized at run time (a constant cannot hold its elements) a rank-0
/// constant broadcast to it.
Value buildSplatTensor(OpBuilder &b, Location loc, RankedTensorType type,
                       double value);

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

/// A compute-type constant of `elementType`'s compute type (integers as
/// wrapToInt64 gives them).
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
