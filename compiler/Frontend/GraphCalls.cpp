//===- GraphCalls.cpp - graphs that call graphs ---------------------------===//

#include "Frontend/GraphCalls.h"
#include "fk/IR/FkInlinedLocation.h"

#include "mlir/IR/IRMapping.h"
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

/// The dimensions the arguments of `call` give the symbols of `callee`'s
/// parameters (symbolic F4): a parameter dimension that is a symbol alone
/// takes its argument's dimension, the same in every argument; every symbol
/// needs one, within the callee's bounds.
static FailureOr<DimSubstitution>
bindCalleeSymbols(GraphBuilder &builder, const CallSite &call,
                  func::FuncOp callee) {
  llvm::StringRef name = call.opName;
  DimSubstitution dims;
  llvm::StringMap<unsigned> boundBy;
  bool valid = true;
  for (auto [index, operand] : llvm::enumerate(call.operands)) {
    auto parameter = cast<RankedTensorType>(callee.getArgumentTypes()[index]);
    // A mismatch of rank is graph call F4's.
    if (!operand.isTensor() || operand.getType().getRank() != parameter.getRank())
      continue;
    for (auto [formal, actual] :
         llvm::zip_equal(getDims(parameter), getDims(operand.getType()))) {
      if (formal.getCoefficient() != 1 || formal.getSymbols().size() != 1)
        continue;
      const std::string &symbol = formal.getSymbols().front();
      auto [it, inserted] = dims.try_emplace(symbol, actual);
      if (inserted) {
        boundBy[symbol] = index;
      } else if (it->second != actual) {
        builder.emitError(operand.loc)
            << "argument " << index + 1 << " of '" << name
            << "' makes its symbol '" << symbol << "' " << actual.str()
            << ", but argument " << boundBy[symbol] + 1 << " made it "
            << it->second.str();
        valid = false;
      }
    }
  }
  if (!valid)
    return failure();
  SmallVector<std::string> symbols;
  for (Type type : callee.getArgumentTypes())
    collectSymbols(type, symbols);
  for (const std::string &symbol : symbols)
    if (!dims.count(symbol)) {
      InFlightDiagnostic diag =
          builder.emitError(call.loc)
          << "the arguments of '" << name << "' give its symbol '" << symbol
          << "' no size: a parameter dimension that is '" << symbol
          << "' alone takes its argument's";
      diag.attachNote(callee.getLoc()) << "graph '" << name << "' is defined here";
      return failure();
    }
  for (const SymbolBound &bound : getSymbolBounds(callee)) {
    const Dim &dim = dims.find(bound.symbol)->second;
    if (!dim.isStatic() || bound.admits(dim.getCoefficient()))
      continue;
    builder.emitError(call.loc)
        << "the arguments of '" << name << "' make its symbol '"
        << bound.symbol << "' " << dim.getCoefficient() << ", "
        << bound.describe();
    return failure();
  }
  return dims;
}

/// The results of `callee`'s body copied at `call` with its symbols
/// replaced by `dims`: the callee instantiated for the call's sizes, in
/// place of a func.call (whose operand types must be its callee's). The
/// copies carry their callee locations under the call's, as fk-inline-calls
/// gives them.
static FailureOr<SmallVector<Expr>>
expandSymbolicCall(GraphBuilder &builder, const CallSite &call,
                   func::FuncOp callee, ValueRange arguments,
                   const DimSubstitution &dims) {
  Block &body = callee.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), arguments);
  Location callLoc = builder.getLocation(call.loc);
  bool overflow = false;
  for (Operation &op : body.without_terminator()) {
    Operation *copy = builder.getBuilder().clone(op, mapping);
    copy->walk([&](Operation *inner) {
      inner->setLoc(getInlinedLocation(inner->getLoc(), callLoc));
      for (Value result : inner->getResults()) {
        std::optional<Type> type = substitute(result.getType(), dims);
        overflow |= !type;
        if (type)
          result.setType(*type);
      }
    });
  }
  if (overflow) {
    builder.emitError(call.loc) << "the sizes the arguments of '"
                                << call.opName
                                << "' give its symbols overflow 64 bits";
    return failure();
  }
  SmallVector<Expr> results;
  for (Value returned : body.getTerminator()->getOperands())
    results.push_back(
        Expr::ofTensor(mapping.lookupOrDefault(returned), call.loc));
  return results;
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
  // symbolic F4: the callee's symbols take their sizes from the arguments.
  std::optional<DimSubstitution> dims;
  if (llvm::any_of(callee.getArgumentTypes(),
                   [](Type type) { return isSymbolic(type); })) {
    if (llvm::any_of(call.operands, [](const Expr &e) { return e.isInvalid(); }))
      return invalid;
    FailureOr<DimSubstitution> bound = bindCalleeSymbols(builder, call, callee);
    if (failed(bound))
      return invalid;
    dims = std::move(*bound);
  }
  // graph call F4: each argument of its parameter's type; a number becomes
  // a constant of that type, as in a statement with a written type.
  SmallVector<Value> arguments;
  for (auto [index, operand] : llvm::enumerate(call.operands)) {
    auto type = cast<RankedTensorType>(callee.getArgumentTypes()[index]);
    if (dims)
      type = cast<RankedTensorType>(substitute(type, *dims).value_or(type));
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
  if (dims) {
    FailureOr<SmallVector<Expr>> results =
        expandSymbolicCall(builder, call, callee, arguments, *dims);
    return succeeded(results) ? *results : invalid;
  }
  auto op = func::CallOp::create(
      builder.getBuilder(), builder.getLocation(call.loc), callee, arguments);
  SmallVector<Expr> results;
  for (Value result : op.getResults())
    results.push_back(Expr::ofTensor(result, call.loc));
  return results;
}
