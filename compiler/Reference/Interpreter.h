//===- Interpreter.h - CPU reference interpreter of fk IR -------*- C++ -*-===//
//
// Evaluates a function of fk ops on the CPU, op by op, with float64
// accumulation, and rounds every op's result to its element type. It is the
// oracle that proves the compiler's rewrites: a later stage of the pipeline
// must compute what the `graph` stage computes on the same inputs.
//
// Ops plug in through `ReferenceInterpreter::registerEvaluator`; region ops
// (such as a fusion) evaluate their body with `evaluateBlock`.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_INTERPRETER_H
#define FKC_REFERENCE_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <functional>
#include <vector>

namespace mlir::fk {

/// A tensor value: row-major elements held as doubles, each exactly
/// representable in the element type of `type`.
struct RefTensor {
  RankedTensorType type;
  std::vector<double> values;
};

class ReferenceInterpreter;

/// Computes the results of one op from its operands' values. Emits an error
/// at the op and returns failure for what it cannot evaluate.
using OpEvaluator = std::function<FailureOr<SmallVector<RefTensor>>(
    ReferenceInterpreter &, Operation *, ArrayRef<RefTensor>)>;

class ReferenceInterpreter {
public:
  /// An interpreter that knows every op of the fk dialect.
  ReferenceInterpreter();

  /// Makes `evaluator` the evaluator of ops named `opName`.
  void registerEvaluator(StringRef opName, OpEvaluator evaluator);

  /// Evaluates `fn` on `arguments` (one per function argument, of the
  /// argument's type) and returns the values of its `func.return`.
  FailureOr<SmallVector<RefTensor>> run(func::FuncOp fn,
                                        ArrayRef<RefTensor> arguments);

  /// Evaluates the ops of `block` with its arguments bound to `arguments`
  /// and returns the operands of its terminator.
  FailureOr<SmallVector<RefTensor>> evaluateBlock(Block &block,
                                                  ArrayRef<RefTensor> arguments);

private:
  llvm::StringMap<OpEvaluator> evaluators;
};

/// Deterministic random inputs for `fn`, the same on every platform for a
/// given seed: floats uniform in [-1, 1) (rounded to their dtype), i32 in
/// [-8, 8], i1 true or false with equal odds.
SmallVector<RefTensor> makeRandomInputs(func::FuncOp fn, uint64_t seed);

/// How far `actual` is from `expected`.
struct TensorDifference {
  /// max |a - e| over elements where both are finite.
  double maxAbsError = 0;
  /// ||a - e||_2 / max(||e||_2, tiny) over finite elements.
  double relativeNormError = 0;
  /// Elements where one is NaN (or infinite) and the other is not the same.
  int64_t nonFiniteMismatches = 0;
};
TensorDifference compareTensors(const RefTensor &expected,
                                const RefTensor &actual);

/// The relative norm error two correct evaluations of a graph may differ by
/// for a result of `elementType`: rounding to f16/bf16 in different places
/// moves results by a few units in the last place.
double defaultTolerance(Type elementType);

/// Prints `tensor<2x3xf32> [[1, 2, 3], [4, 5, 6]]`, eliding the middle of
/// tensors with more than `maxElements` elements.
void printTensor(llvm::raw_ostream &os, const RefTensor &tensor,
                 int64_t maxElements = 64);

} // namespace mlir::fk

#endif // FKC_REFERENCE_INTERPRETER_H
