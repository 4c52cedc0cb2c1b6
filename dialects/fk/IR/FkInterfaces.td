//===- FkInterfaces.td - interfaces of fk ops -----------------------------===//
//
// What the compiler asks of an op instead of listing ops by name.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKINTERFACES_TD
#define FK_IR_FKINTERFACES_TD

include "mlir/IR/OpBase.td"

def Fk_ScalarElementwiseOpInterface
    : OpInterface<"ScalarElementwiseOpInterface"> {
  let cppNamespace = "::mlir::fk";
  let description = [{
    An elementwise op whose result element depends only on the operand
    elements at the same position. The op says what one element is, twice:
    in double for constant folding and the reference interpreter
    (`evaluateScalar`), and as arith/math ops for kernels (`buildScalar`).
    Both implementations of an op sit side by side in
    dialects/fk/IR/FkElementwiseOps.cpp, so that folded constants,
    interpreted graphs and GPU kernels agree.

    Callers do not call these methods directly but
    `fk::evaluateElementwise` and `fk::buildElementwise`
    (FkScalarSemantics.h), which round the value to the result's element
    type as every elementwise op of the language does.
  }];
  let methods = [
    InterfaceMethod<[{
        The result element for one element of each operand, computed in
        double before rounding to the result's element type. Operands hold
        values of their element types (i32 and i64 as integral doubles, i1
        as 0 or 1).
      }],
      "double", "evaluateScalar", (ins "::llvm::ArrayRef<double>":$operands)>,
    InterfaceMethod<[{
        Emits the scalar ops computing the result element from `operands`,
        each in the compute type of its operand's element type (f32 for
        every float dtype; see fk::getComputeType), at the op's location.
        The caller rounds the value to the result's element type.
      }],
      "::mlir::Value", "buildScalar",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operands)>,
  ];
}

#endif // FK_IR_FKINTERFACES_TD
