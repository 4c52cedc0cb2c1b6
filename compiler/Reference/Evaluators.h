//===- Evaluators.h - reference evaluators of fk ops ------------*- C++ -*-===//
//
// Private to the reference interpreter: the evaluators of the fk dialect's
// ops, which its constructor installs.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_EVALUATORS_H
#define FKC_REFERENCE_EVALUATORS_H

namespace mlir::fk {
class ReferenceInterpreter;

/// Registers an evaluator for every op of the fk dialect with `interpreter`.
void registerFkEvaluators(ReferenceInterpreter &interpreter);
} // namespace mlir::fk

#endif // FKC_REFERENCE_EVALUATORS_H
