//===- ScalarLowering.h - fk element semantics as arith/math ----*- C++ -*-===//
//
// Kernels compute each element with scalar arith and math ops. These helpers
// give those scalars the semantics that docs/language.md states and the
// reference interpreter implements: f16 and bf16 compute in f32 and round to
// their type after every op, i32 wraps around, division by zero and casts of
// NaN or out-of-range floats to i32 have defined results.
//
// Scalars are held in their *compute type*: f32 for every float dtype, i32,
// and i1.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_SCALARLOWERING_H
#define FKC_CODEGEN_SCALARLOWERING_H

#include "mlir/IR/Builders.h"

namespace mlir::fk {

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

/// Emits the scalar computation of the elementwise fk op `op` on `operands`
/// (compute-type scalars of its operands' element types), rounded to the
/// op's result element type. Fails with an error at `op` for an op that is
/// not elementwise.
FailureOr<Value> buildElementwiseOp(OpBuilder &b, Operation *op,
                                    ArrayRef<Value> operands);

} // namespace mlir::fk

#endif // FKC_CODEGEN_SCALARLOWERING_H
