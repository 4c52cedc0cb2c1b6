//===- InlineCalls.cpp - graphs that call graphs, inlined -----------------===//
//
// Calls between graphs exist for the user (a layer written once, called
// twelve times); the passes after this one see each graph as one block of
// fk ops. A call is replaced by a copy of its callee's body whose
// locations say where it came from.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkInlinedLocation.h"
#include "fk/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKINLINECALLS
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

namespace {
class CallInliner {
public:
  explicit CallInliner(ModuleOp module) : symbols(module) {}

  /// Inlines every call in `function`, after inlining those of its callees.
  LogicalResult inlineCallsIn(func::FuncOp function);

private:
  void inlineCall(func::CallOp call, func::FuncOp callee);

  enum class State { InProgress, Done };
  SymbolTable symbols;
  DenseMap<Operation *, State> states;
};
} // namespace

LogicalResult CallInliner::inlineCallsIn(func::FuncOp function) {
  auto [it, inserted] = states.try_emplace(function, State::InProgress);
  if (!inserted)
    return success(it->second == State::Done);
  SmallVector<func::CallOp> calls;
  function.walk([&](func::CallOp call) { calls.push_back(call); });
  for (func::CallOp call : calls) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      return call.emitOpError()
             << "calls " << call.getCalleeAttr()
             << ", which is not a function with a body in the module";
    if (!callee.getBody().hasOneBlock())
      return call.emitOpError() << "calls " << call.getCalleeAttr()
                                << ", a function of several blocks; graphs "
                                   "are one block";
    auto state = states.find(callee);
    if (state != states.end() && state->second == State::InProgress)
      return call.emitOpError()
             << "calls " << call.getCalleeAttr()
             << " recursively; a graph is inlined where it is called, so "
                "calls cannot recurse";
    if (failed(inlineCallsIn(callee)))
      return failure();
    inlineCall(call, callee);
  }
  states[function] = State::Done;
  return success();
}

void CallInliner::inlineCall(func::CallOp call, func::FuncOp callee) {
  OpBuilder builder(call);
  Block &body = callee.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), call.getOperands());
  for (Operation &op : body.without_terminator()) {
    Operation *copy = builder.clone(op, mapping);
    copy->walk([&](Operation *inner) {
      inner->setLoc(getInlinedLocation(inner->getLoc(), call.getLoc()));
    });
  }
  for (auto [result, returned] :
       llvm::zip_equal(call.getResults(), body.getTerminator()->getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
  call.erase();
}

namespace {
struct InlineCallsPass : fk::impl::FkInlineCallsBase<InlineCallsPass> {
  void runOnOperation() override {
    CallInliner inliner(getOperation());
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (failed(inliner.inlineCallsIn(function)))
        return signalPassFailure();
  }
};
} // namespace
