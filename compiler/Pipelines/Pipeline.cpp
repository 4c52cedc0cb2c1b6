//===- Pipeline.cpp - the stages of the fkc compiler ----------------------===//

#include "Pipelines/Pipeline.h"

#include "Codegen/Passes.h"
#include "fk/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::fk;

llvm::ArrayRef<Stage> mlir::fk::getStages() {
  static const Stage stages[] = {Stage::Graph, Stage::Canonical, Stage::Primitive,
                                  Stage::Fused, Stage::Tiled,     Stage::Promoted,
                                  Stage::Gpu,   Stage::Nvvm,      Stage::Ptx};
  return stages;
}

llvm::StringRef mlir::fk::getStageName(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "graph";
  case Stage::Canonical:
    return "canonical";
  case Stage::Primitive:
    return "primitive";
  case Stage::Fused:
    return "fused";
  case Stage::Tiled:
    return "tiled";
  case Stage::Promoted:
    return "promoted";
  case Stage::Gpu:
    return "gpu";
  case Stage::Nvvm:
    return "nvvm";
  case Stage::Ptx:
    return "ptx";
  }
  llvm_unreachable("unknown stage");
}

llvm::StringRef mlir::fk::getStageDescription(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "the fk dialect as parsed";
  case Stage::Canonical:
    return "folded, canonicalized, duplicates merged";
  case Stage::Primitive:
    return "softmax, norms and attention as reductions, matmuls, elementwise";
  case Stage::Fused:
    return "ops grouped into fusions (kernels) by the fusion pass";
  case Stage::Tiled:
    return "each fusion's kernel strategy and tiles for the target";
  case Stage::Promoted:
    return "operand tiles that threads share placed in shared memory";
  case Stage::Gpu:
    return "launches on buffers; kernels in the gpu dialect";
  case Stage::Nvvm:
    return "kernels in the LLVM and NVVM dialects";
  case Stage::Ptx:
    return "the artifact: PTX led by its manifest (the default)";
  }
  llvm_unreachable("unknown stage");
}

std::optional<Stage> mlir::fk::parseStageName(llvm::StringRef name) {
  for (Stage stage : getStages())
    if (getStageName(stage) == name)
      return stage;
  return std::nullopt;
}

bool mlir::fk::isTensorStage(Stage stage) {
  return stage == Stage::Graph || stage == Stage::Canonical ||
         stage == Stage::Primitive || stage == Stage::Fused ||
         stage == Stage::Tiled || stage == Stage::Promoted;
}

void mlir::fk::addStagePasses(OpPassManager &pm, Stage stage,
                              const PipelineOptions &options) {
  switch (stage) {
  case Stage::Graph:
    return;
  case Stage::Canonical: {
    FkBindDimsOptions bind;
    bind.sizes = options.dimSizes;
    // Symbols without a size are left to run time (docs/language.md §4).
    bind.runtimeSizes = true;
    pm.addPass(createFkBindDims(bind));
    pm.addPass(createFkInlineCalls());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    FkRecognizeAttentionOptions recognize;
    recognize.explain = options.explainFusion;
    pm.addNestedPass<func::FuncOp>(createFkRecognizeAttention(recognize));
    pm.addPass(createFkCheckRuntimeSizes());
    return;
  }
  case Stage::Primitive: {
    FkDecomposeCompositeOpsOptions decompose;
    decompose.explain = options.explainFusion;
    pm.addNestedPass<func::FuncOp>(createFkDecomposeCompositeOps(decompose));
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    return;
  }
  case Stage::Fused:
    if (options.fusion) {
      FkFuseOptions fuse;
      fuse.explain = options.explainFusion;
      pm.addNestedPass<func::FuncOp>(createFkFuse(fuse));
      FkPairMatmulsOptions pair;
      pair.explain = options.explainFusion;
      if (options.matmulPairs)
        pm.addNestedPass<func::FuncOp>(createFkPairMatmuls(pair));
      FkGroupMatmulsOptions group;
      group.explain = options.explainFusion;
      if (options.matmulGroups)
        pm.addNestedPass<func::FuncOp>(createFkGroupMatmuls(group));
    } else {
      pm.addNestedPass<func::FuncOp>(createFkFormFusions());
    }
    return;
  case Stage::Tiled: {
    FkTileOptions tile;
    tile.matmulTile = options.matmulTile;
    tile.matmulThreads = options.matmulThreads;
    tile.tuningFile = options.tuningFile;
    tile.attentionTile = options.attentionTile;
    tile.attentionThreads = options.attentionThreads;
    tile.explain = options.explainFusion;
    pm.addNestedPass<func::FuncOp>(createFkTile(tile));
    return;
  }
  case Stage::Promoted: {
    FkPromoteOptions promote;
    promote.stages = options.stages;
    promote.tuningFile = options.tuningFile;
    promote.explain = options.explainFusion;
    pm.addNestedPass<func::FuncOp>(createFkPromote(promote));
    return;
  }
  case Stage::Gpu:
    pm.addPass(createFkLowerToGpu());
    pm.addPass(createFkDedupKernels());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    return;
  case Stage::Nvvm:
    addNvvmLoweringPasses(pm, options.ptx);
    return;
  case Stage::Ptx:
    addPtxEmissionPasses(pm, options.ptx);
    return;
  }
}
