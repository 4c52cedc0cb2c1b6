//===- FusionGraph.h - the fused graph as a Graphviz drawing ----*- C++ -*-===//
//
// `fkc --fusion-graph=FILE.dot` draws each graph after fusion: every op a
// node, every kernel (fusion) a cluster around its ops, values flowing
// between kernels as edges that cross clusters, graph inputs and outputs as
// ellipses.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_DRIVER_FUSIONGRAPH_H
#define FKC_DRIVER_FUSIONGRAPH_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fk {

/// Writes the fused graphs of `module` (the `fused` stage) in DOT.
void printFusionGraph(ModuleOp module, llvm::raw_ostream &os);

/// Writes the drawing to `path` and, when Graphviz's `dot` is on the PATH,
/// renders it to `path` + ".svg". Emits an error on the module on failure.
LogicalResult writeFusionGraph(ModuleOp module, llvm::StringRef path);

} // namespace mlir::fk

#endif // FKC_DRIVER_FUSIONGRAPH_H
