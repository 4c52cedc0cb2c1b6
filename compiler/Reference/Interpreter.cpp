//===- Interpreter.cpp - the driver of the reference interpreter ----------===//
//
// Walks a block op by op, looks each op's evaluator up by name (elementwise
// ops need none: they evaluate through their interface) and keeps the value
// of every SSA value the block defines. The evaluators themselves are
// in Evaluators.cpp.
//
//===----------------------------------------------------------------------===//

#include "Reference/Interpreter.h"
#include "Reference/Evaluators.h"
#include "fk/IR/FkOps.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::fk;

/// Graphs do not call themselves (the front end and fk-inline-calls reject
/// it), but IR given directly may; the bound turns that into an error.
static constexpr unsigned kMaxCallDepth = 256;

ReferenceInterpreter::ReferenceInterpreter() {
  registerFkEvaluators(*this);
  registerEvaluator(func::CallOp::getOperationName(),
                    [](ReferenceInterpreter &interpreter, Operation *op,
                       ArrayRef<RefTensor> operands) {
                      return interpreter.evaluateCall(cast<func::CallOp>(op),
                                                      operands);
                    });
}

FailureOr<SmallVector<RefTensor>>
ReferenceInterpreter::evaluateCall(func::CallOp call,
                                   ArrayRef<RefTensor> arguments) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee)
    return call.emitError() << "reference interpreter cannot find the callee "
                            << call.getCalleeAttr();
  if (callDepth == kMaxCallDepth)
    return call.emitError() << "reference interpreter: calls nested more than "
                            << kMaxCallDepth << " deep";
  ++callDepth;
  llvm::scope_exit leave([&] { --callDepth; });
  return run(callee, arguments);
}

void ReferenceInterpreter::registerEvaluator(StringRef opName,
                                             OpEvaluator evaluator) {
  evaluators[opName] = std::move(evaluator);
}

FailureOr<SmallVector<RefTensor>>
ReferenceInterpreter::run(func::FuncOp fn, ArrayRef<RefTensor> arguments) {
  if (fn.isExternal())
    return fn.emitError(
        "reference interpreter cannot evaluate a function without a body");
  // Graphs are straight-line code; a branch would end the first block.
  if (!fn.getBody().hasOneBlock())
    return fn.emitError(
        "reference interpreter cannot evaluate a function of several blocks");
  return evaluateBlock(fn.getBody().front(), arguments);
}

/// True if `value` holds one element of `type` per element, `type` being a
/// statically shaped tensor.
static bool holdsValueOf(const RefTensor &value, Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  return tensorType && tensorType.hasStaticShape() &&
         value.type == tensorType &&
         static_cast<int64_t>(value.values.size()) ==
             tensorType.getNumElements();
}

FailureOr<SmallVector<RefTensor>>
ReferenceInterpreter::evaluateBlock(Block &block,
                                    ArrayRef<RefTensor> arguments) {
  Operation *owner = block.getParentOp();
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    return owner->emitError(
        "reference interpreter needs a block that ends in a terminator");
  if (arguments.size() != block.getNumArguments())
    return owner->emitError()
           << "reference interpreter got " << arguments.size() << " values for "
           << block.getNumArguments() << " block arguments";

  llvm::DenseMap<Value, RefTensor> values;
  for (auto [i, argument] : llvm::enumerate(block.getArguments())) {
    if (!holdsValueOf(arguments[i], argument.getType()))
      return owner->emitError()
             << "reference interpreter needs a value of type "
             << argument.getType() << " for block argument #" << i;
    values[argument] = arguments[i];
  }

  scopes.push_back(&values);
  llvm::scope_exit popScope([&] { scopes.pop_back(); });

  for (Operation &op : block.without_terminator()) {
    FailureOr<SmallVector<RefTensor>> results = evaluateOp(op);
    if (failed(results))
      return failure();
    for (auto [result, value] : llvm::zip_equal(op.getResults(), *results))
      values[result] = std::move(value);
  }

  Operation &terminator = block.back();
  SmallVector<RefTensor> results;
  for (auto [i, operand] : llvm::enumerate(terminator.getOperands())) {
    const RefTensor *value = lookup(operand);
    if (!value)
      return terminator.emitError()
             << "reference interpreter has no value for operand #" << i;
    results.push_back(*value);
  }
  return results;
}

FailureOr<SmallVector<RefTensor>>
ReferenceInterpreter::evaluateOp(Operation &op) {
  auto it = evaluators.find(op.getName().getStringRef());
  bool isElementwise = isa<ScalarElementwiseOpInterface>(op);
  if (it == evaluators.end() && !isElementwise)
    return op.emitError() << "reference interpreter cannot evaluate '"
                          << op.getName() << "'";

  SmallVector<RefTensor> operands;
  for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
    const RefTensor *value = lookup(operand);
    if (!value)
      return op.emitError()
             << "reference interpreter has no value for operand #" << i;
    operands.push_back(*value);
  }

  FailureOr<SmallVector<RefTensor>> results =
      it != evaluators.end() ? it->second(*this, &op, operands)
                             : evaluateElementwiseOp(&op, operands);
  if (failed(results))
    return failure();
  // An evaluator registered from outside may get its results wrong; report
  // it here rather than let a later op read out of bounds.
  if (results->size() != op.getNumResults())
    return op.emitError() << "reference evaluator of '" << op.getName()
                          << "' gave " << results->size() << " results for "
                          << op.getNumResults();
  for (auto [i, result] : llvm::enumerate(op.getResults()))
    if (!holdsValueOf((*results)[i], result.getType()))
      return op.emitError()
             << "reference evaluator of '" << op.getName()
             << "' gave a value of the wrong type for result #" << i;
  return results;
}

const RefTensor *ReferenceInterpreter::lookup(Value value) const {
  for (const llvm::DenseMap<Value, RefTensor> *scope : llvm::reverse(scopes)) {
    auto it = scope->find(value);
    if (it != scope->end())
      return &it->second;
  }
  return nullptr;
}
