//===- FusionGraph.cpp - the fused graph as a Graphviz drawing ------------===//

#include "Driver/FusionGraph.h"
#include "fk/IR/FkOps.h"
#include "fk/Analysis/Descriptions.h"
#include "fk/Transforms/FusionBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::fk;

static std::string typeLabel(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  std::string text;
  llvm::raw_string_ostream os(text);
  tensor.getElementType().print(os);
  os << "[";
  llvm::interleaveComma(tensor.getShape(), os);
  os << "]";
  return text;
}

static std::string opLabel(Operation *op) {
  std::string name;
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name = loc.getName().str() + "\\n";
  return name + op->getName().getStringRef().str() + "\\n" +
         typeLabel(op->getResult(0).getType());
}

namespace {
/// Names the nodes of one graph and writes its clusters and edges.
class GraphDrawing {
public:
  GraphDrawing(func::FuncOp fn, llvm::raw_ostream &os) : fn(fn), os(os) {}

  void print() {
    std::string prefix = fn.getSymName().str();
    os << "  subgraph cluster_" << prefix << " {\n    label=\"graph "
       << prefix << "\";\n";
    for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
      std::string id = llvm::formatv("{0}_in{1}", prefix, i);
      auto name = fn.getArgAttrOfType<StringAttr>(i, "fk.name");
      os << "    " << id << " [shape=ellipse, label=\""
         << (name ? name.str() : id) << "\\n" << typeLabel(arg.getType())
         << "\"];\n";
      source[arg] = id;
    }
    int64_t kernel = 0;
    for (auto fusion : fn.getBody().front().getOps<FusionOp>())
      printFusion(fusion, prefix, kernel++);
    auto ret = fn.getBody().front().getTerminator();
    for (auto [i, value] : llvm::enumerate(ret->getOperands())) {
      std::string id = llvm::formatv("{0}_out{1}", prefix, i);
      auto name = fn.getResultAttrOfType<StringAttr>(i, "fk.name");
      os << "    " << id << " [shape=ellipse, label=\""
         << (name ? name.str() : id) << "\"];\n";
      edge(source.lookup(value), id);
    }
    os << "  }\n";
  }

private:
  void edge(StringRef from, StringRef to) {
    if (!from.empty())
      os << "    " << from << " -> " << to << ";\n";
  }

  void printFusion(FusionOp fusion, StringRef prefix, int64_t index) {
    int64_t bytes = 0;
    for (Value v : fusion.getInputs())
      bytes += getTensorBytes(v);
    for (Value v : fusion.getResults())
      bytes += getTensorBytes(v);
    std::string cluster = llvm::formatv("{0}_k{1}", prefix, index);
    os << "    subgraph cluster_" << cluster << " {\n      label=\"kernel "
       << cluster << " (" << stringifyFusionKind(fusion.getKind())
       << ")\\nmoves " << formatBytes(bytes)
       << "\";\n      style=filled; fillcolor=\"#eef3fb\";\n";
    Block &body = fusion.getBody().front();
    DenseMap<Value, std::string> inside;
    for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
      inside[arg] = source.lookup(input);
    int64_t node = 0;
    SmallVector<std::pair<std::string, std::string>> edges;
    for (Operation &op : body.without_terminator()) {
      if (isSplatConstant(&op))
        continue;
      std::string id = llvm::formatv("{0}_n{1}", cluster, node++);
      os << "      " << id << " [label=\"" << opLabel(&op) << "\"];\n";
      for (Value operand : op.getOperands())
        if (auto it = inside.find(operand); it != inside.end())
          edges.push_back({it->second, id});
      inside[op.getResult(0)] = id;
    }
    os << "    }\n";
    for (auto &[from, to] : edges)
      edge(from, to);
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [result, value] :
         llvm::zip(fusion.getResults(), yield.getValues()))
      source[result] = inside.lookup(value);
  }

  func::FuncOp fn;
  llvm::raw_ostream &os;
  /// The node that produces each value of the graph.
  DenseMap<Value, std::string> source;
};
} // namespace

void mlir::fk::printFusionGraph(ModuleOp module, llvm::raw_ostream &os) {
  os << "digraph fkc {\n  node [shape=box, fontname=\"monospace\", "
        "fontsize=10];\n";
  for (auto fn : module.getOps<func::FuncOp>())
    GraphDrawing(fn, os).print();
  os << "}\n";
}

LogicalResult mlir::fk::writeFusionGraph(ModuleOp module,
                                         llvm::StringRef path) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return module.emitError() << "cannot write '" << path
                              << "': " << error.message();
  printFusionGraph(module, file.os());
  file.keep();
  file.os().close();
  llvm::ErrorOr<std::string> dot = llvm::sys::findProgramByName("dot");
  if (!dot)
    return success();
  std::string svg = (path + ".svg").str();
  llvm::StringRef args[] = {*dot, "-Tsvg", path, "-o", svg};
  std::string message;
  if (llvm::sys::ExecuteAndWait(*dot, args, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return module.emitError() << "graphviz could not render '" << path
                              << "': " << message;
  return success();
}
