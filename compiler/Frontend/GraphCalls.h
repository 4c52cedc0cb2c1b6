//===- GraphCalls.h - graphs that call graphs -------------------*- C++ -*-===//
//
// A graph may call any graph of its file, defined before or after it, like
// an operation: `h = layer(x, w, g)`. The parser builds callees first (in
// the order `orderCalleesFirst` gives), so a call always sees its callee's
// signature, and builds the call as a `func.call` that `fk-inline-calls`
// later replaces by the callee's body.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_FRONTEND_GRAPHCALLS_H
#define FKC_FRONTEND_GRAPHCALLS_H

#include "Frontend/GraphBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fk::frontend {

/// A call of one graph by another, as the parser finds it in the tokens.
struct GraphCallEdge {
  /// The index of the called graph.
  unsigned callee;
  /// Where the call names it.
  llvm::SMLoc loc;
};

/// A graph of the file as the order of building sees it.
struct GraphNode {
  llvm::StringRef name;
  /// The calls in its body, in source order.
  SmallVector<GraphCallEdge> calls;
};

/// The order in which to build the graphs: each after the graphs it calls,
/// and otherwise in source order. A call that closes a cycle (recursion,
/// direct or through other graphs) is reported there, naming the cycle
/// (graph call F5); the graphs of a cycle are still ordered, so that their
/// other errors are reported too.
SmallVector<unsigned> orderCalleesFirst(GraphBuilder &builder,
                                        ArrayRef<GraphNode> graphs);

/// Builds `call` of the graph `callee` (graph call F2 to F4): no
/// attributes, one argument per parameter, each of its parameter's type; a
/// number takes its parameter's type. Returns one expression per result of
/// the callee, or an invalid one after an error.
SmallVector<Expr> buildGraphCall(GraphBuilder &builder, const CallSite &call,
                                 func::FuncOp callee);

} // namespace mlir::fk::frontend

#endif // FKC_FRONTEND_GRAPHCALLS_H
