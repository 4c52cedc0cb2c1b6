//===- Evaluators.h - reference evaluators of fk ops ------------*- C++ -*-===//
//
// Private to the reference interpreter: the evaluators of the fk dialect's
// ops, which its constructor installs.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_EVALUATORS_H
#define FKC_REFERENCE_EVALUATORS_H

#include "Reference/Interpreter.h"

namespace mlir::fk {
/// Registers an evaluator with `interpreter` for every op of the fk dialect
/// but the elementwise ops, which `evaluateElementwiseOp` evaluates.
void registerFkEvaluators(ReferenceInterpreter &interpreter);

/// Evaluates an op of ScalarElementwiseOpInterface element by element; its
/// operands have the result's shape.
FailureOr<SmallVector<RefTensor>>
evaluateElementwiseOp(Operation *op, ArrayRef<RefTensor> operands);
} // namespace mlir::fk

#endif // FKC_REFERENCE_EVALUATORS_H
