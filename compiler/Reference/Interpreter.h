//===- Interpreter.h - CPU reference interpreter of fk IR -------*- C++ -*-===//
//
// Evaluates a function of fk ops on the CPU, op by op, with float64
// accumulation, and rounds every op's result to its element type. It is the
// oracle that proves the compiler's rewrites: a later stage of the pipeline
// must compute what the `graph` stage computes on the same inputs.
//
// Ops plug in through `ReferenceInterpreter::registerEvaluator`; region ops
// (such as a fusion) evaluate their body with `evaluateBlock`. A `func.call`
// (a graph calling a graph) evaluates its callee.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_INTERPRETER_H
#define FKC_REFERENCE_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
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
  /// and returns the operands of its terminator. `block` must belong to an
  /// op. Its ops may use the values of the blocks being evaluated around it,
  /// so a region op's evaluator can call this on its body.
  FailureOr<SmallVector<RefTensor>>
  evaluateBlock(Block &block, ArrayRef<RefTensor> arguments);

private:
  /// Evaluates the callee of `call` on `arguments`.
  FailureOr<SmallVector<RefTensor>> evaluateCall(func::CallOp call,
                                                 ArrayRef<RefTensor> arguments);
  /// Evaluates `op` on the values of its operands.
  FailureOr<SmallVector<RefTensor>> evaluateOp(Operation &op);
  /// The value of `value` in the innermost block being evaluated that has
  /// one, or null.
  const RefTensor *lookup(Value value) const;

  llvm::StringMap<OpEvaluator> evaluators;
  /// The values of the blocks being evaluated, outermost first.
  SmallVector<llvm::DenseMap<Value, RefTensor> *> scopes;
  /// How many calls are being evaluated.
  unsigned callDepth = 0;
};

/// Deterministic random inputs for `fn`, the same on every platform for a
/// given seed: floats uniform in [-1, 1) (rounded to their dtype), i32 and
/// i64 in [-8, 8], i1 true or false with equal odds. An argument that is not a
/// statically shaped tensor gets a RefTensor with a null type, which `run`
/// rejects.
SmallVector<RefTensor> makeRandomInputs(func::FuncOp fn, uint64_t seed);

/// How far `actual` is from `expected`. Tensors of different element counts
/// differ by an infinite relative error.
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
/// moves results by a few units in the last place. 1e-5 for f32, 1e-2 for f16,
/// 8e-2 for bf16 and 0 (exact) for i32, i64 and i1.
double defaultTolerance(Type elementType);

/// Prints `tensor<2x3xf32> [[1, 2, 3], [4, 5, 6]]`: floats as `%.6g` (and
/// `nan`, `inf`, `-inf`), i32 and i64 as integers, i1 as `true`/`false`.
/// Tensors with more than `maxElements` elements print flat, as their first
/// and last `maxElements / 2` elements around `...`.
void printTensor(llvm::raw_ostream &os, const RefTensor &tensor,
                 int64_t maxElements = 64);

} // namespace mlir::fk

#endif // FKC_REFERENCE_INTERPRETER_H
