//===- GraphCalls.cpp - graphs that call graphs ---------------------------===//

#include "Frontend/GraphCalls.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fk;
using namespace mlir::fk::frontend;

SmallVector<unsigned>
mlir::fk::frontend::orderCalleesFirst(GraphBuilder &builder,
                                      ArrayRef<GraphNode> graphs) {
  // A depth-first search in source order that emits each graph after its
  // callees. It keeps its own stack, so a long chain of calls cannot
  // exhaust the parser's.
  enum class State { Unvisited, OnPath, Done };
  SmallVector<State> state(graphs.size(), State::Unvisited);
  SmallVector<unsigned> order;
  struct Frame {
    unsigned graph;
    unsigned nextCall = 0;
  };
  SmallVector<Frame> path;
  for (unsigned root = 0; root < graphs.size(); ++root) {
    if (state[root] != State::Unvisited)
      continue;
    state[root] = State::OnPath;
    path.push_back({root});
    while (!path.empty()) {
      Frame &frame = path.back();
      ArrayRef<GraphCallEdge> calls = graphs[frame.graph].calls;
      if (frame.nextCall == calls.size()) {
        state[frame.graph] = State::Done;
        order.push_back(frame.graph);
        path.pop_back();
        continue;
      }
      const GraphCallEdge &call = calls[frame.nextCall++];
      if (state[call.callee] == State::Unvisited) {
        state[call.callee] = State::OnPath;
        path.push_back({call.callee});
        continue;
      }
      if (state[call.callee] != State::OnPath)
        continue;
      // The call closes a cycle: name it from the callee around to itself.
      SmallVector<llvm::StringRef> cycle;
      auto start = llvm::find_if(
          path, [&](const Frame &f) { return f.graph == call.callee; });
      for (const Frame &f : llvm::make_range(start, path.end()))
        cycle.push_back(graphs[f.graph].name);
      cycle.push_back(graphs[call.callee].name);
      builder.emitError(call.loc)
          << "graph '" << graphs[call.callee].name
          << "' calls itself: " << llvm::join(cycle, " -> ")
          << " (a graph is inlined where it is called, so calls cannot "
             "recurse)";
    }
  }
  return order;
}

/// The name a parameter of `graph` was declared with.
static llvm::StringRef getParameterName(func::FuncOp graph, unsigned index) {
  if (auto name = graph.getArgAttrOfType<StringAttr>(index, "fk.name"))
    return name.getValue();
  return "";
}

SmallVector<Expr> mlir::fk::frontend::buildGraphCall(GraphBuilder &builder,
                                                     const CallSite &call,
                                                     func::FuncOp callee) {
  SmallVector<Expr> invalid(callee.getNumResults(), Expr::invalid(call.loc));
  llvm::StringRef name = call.opName;
  bool valid = true;
  // graph call F2: a graph has parameters, not attributes.
  for (const NamedAttr &attr : call.attrs) {
    builder.emitError(attr.nameLoc)
        << "graph '" << name << "' takes no attributes, got '" << attr.name
        << "'";
    valid = false;
  }
  // graph call F3: one argument per parameter.
  unsigned expected = callee.getNumArguments();
  if (call.operands.size() != expected) {
    builder.emitError(call.loc) << "graph '" << name << "' expects " << expected
                                << (expected == 1 ? " argument" : " arguments")
                                << ", got " << call.operands.size();
    return invalid;
  }
  // symbolic F4: a callee's symbols would be bound at the call, which is
  // not built yet.
  if (llvm::any_of(callee.getArgumentTypes(),
                   [](Type type) { return isSymbolic(type); })) {
    InFlightDiagnostic diag =
        builder.emitError(call.loc)
        << "calling graph '" << name
        << "', whose parameters have symbolic dimensions, is not supported "
           "yet";
    diag.attachNote(callee.getLoc()) << "graph '" << name << "' is defined here";
    return invalid;
  }
  // graph call F4: each argument of its parameter's type; a number becomes
  // a constant of that type, as in a statement with a written type.
  SmallVector<Value> arguments;
  for (auto [index, operand] : llvm::enumerate(call.operands)) {
    auto type = cast<RankedTensorType>(callee.getArgumentTypes()[index]);
    llvm::StringRef parameter = getParameterName(callee, index);
    if (operand.isInvalid()) {
      valid = false;
      continue;
    }
    if (operand.isNumber()) {
      FailureOr<Value> constant =
          builder.materializeNumber(operand, type, name);
      valid &= succeeded(constant);
      if (succeeded(constant))
        arguments.push_back(*constant);
      continue;
    }
    if (operand.getType() != type) {
      InFlightDiagnostic diag = builder.emitError(operand.loc)
                                << "argument " << index + 1 << " of '" << name
                                << "' (parameter '" << parameter
                                << "') must be " << formatType(type) << ", got "
                                << formatType(operand.getType());
      diag.attachNote(callee.getArgument(index).getLoc())
          << "parameter '" << parameter << "' is declared here";
      valid = false;
      continue;
    }
    arguments.push_back(operand.tensor);
  }
  if (!valid)
    return invalid;
  auto op = func::CallOp::create(
      builder.getBuilder(), builder.getLocation(call.loc), callee, arguments);
  SmallVector<Expr> results;
  for (Value result : op.getResults())
    results.push_back(Expr::ofTensor(result, call.loc));
  return results;
}
