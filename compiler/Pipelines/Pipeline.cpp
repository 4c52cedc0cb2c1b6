//===- Pipeline.cpp - the stages of the fkc compiler ----------------------===//

#include "Pipelines/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fk;

llvm::ArrayRef<Stage> mlir::fk::getStages() {
  static const Stage stages[] = {Stage::Graph, Stage::Canonical};
  return stages;
}

llvm::StringRef mlir::fk::getStageName(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "graph";
  case Stage::Canonical:
    return "canonical";
  }
  llvm_unreachable("unknown stage");
}

llvm::StringRef mlir::fk::getStageDescription(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "the fk dialect as parsed";
  case Stage::Canonical:
    return "folded, canonicalized, duplicates merged";
  }
  llvm_unreachable("unknown stage");
}

std::optional<Stage> mlir::fk::parseStageName(llvm::StringRef name) {
  for (Stage stage : getStages())
    if (getStageName(stage) == name)
      return stage;
  return std::nullopt;
}

void mlir::fk::addStagePasses(OpPassManager &pm, Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return;
  case Stage::Canonical:
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    return;
  }
}
