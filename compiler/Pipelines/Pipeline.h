//===- Pipeline.h - the stages of the fkc compiler --------------*- C++ -*-===//
//
// The compiler is a sequence of stages; `fkc --emit=STAGE` stops after one
// and prints its IR. Each stage is a pass pipeline appended by
// `addStagePasses`, so tools and tests build the same pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_PIPELINES_PIPELINE_H
#define FKC_PIPELINES_PIPELINE_H

#include "Codegen/NvvmLowering.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace mlir::fk {

enum class Stage {
  /// The fk dialect as the front end built it.
  Graph,
  /// Folded and canonicalized, common subexpressions merged.
  Canonical,
  /// Composite ops (softmax, norms, attention) rewritten into reductions,
  /// matmuls and elementwise ops.
  Primitive,
  /// Ops grouped into fusions, each of which becomes one kernel.
  Fused,
  /// Each fusion with its kernel strategy and tiles (fk.tiling).
  Tiled,
  /// Tiled fusions with their shared-memory operand tiles (fk.promotion).
  Promoted,
  /// Host functions of kernel launches on memrefs, and the kernels as
  /// gpu.func ops.
  Gpu,
  /// The kernels in the LLVM and NVVM dialects.
  Nvvm,
  /// The kernels as PTX; what fkc writes is the artifact (PTX + manifest).
  Ptx,
};

/// Every stage, in pipeline order.
llvm::ArrayRef<Stage> getStages();
llvm::StringRef getStageName(Stage stage);
llvm::StringRef getStageDescription(Stage stage);
std::optional<Stage> parseStageName(llvm::StringRef name);

/// What the stages may be asked to do differently.
struct PipelineOptions {
  /// How the PTX is generated; what for is the module's `fk.target`.
  PtxOptions ptx;
  /// Group ops into kernels (the fusion pass); otherwise one kernel per op.
  bool fusion = true;
  /// Compute two matmuls of one left operand in one kernel where they pair
  /// (fk-pair-matmuls).
  bool matmulPairs = true;
  /// Compute the matmuls of one left operand in one kernel where they
  /// group (fk-group-matmuls).
  bool matmulGroups = true;
  /// Report every fusion decision as a remark.
  bool explainFusion = false;
  /// The tensor-core tile M,N,K (empty: the tiling heuristic's).
  SmallVector<int64_t> matmulTile;
  /// The wgmma kernel's block size (0: chosen per tile).
  int64_t matmulThreads = 0;
  /// A tuning file of measured wgmma tiles per matmul shape (empty: none).
  std::string tuningFile;
  /// The flash-attention tile: query rows, key block (empty: the
  /// heuristic's).
  SmallVector<int64_t> attentionTile;
  /// The wgmma flash kernel's block size (0: chosen per attention).
  int64_t attentionThreads = 0;
  /// The depth of shared-memory rings (0: the promotion heuristic's).
  int64_t stages = 0;
  /// The sizes of symbolic dimensions, NAME=INT each (`--bind`), which
  /// the `canonical` stage binds first.
  SmallVector<std::string> dimSizes;
};

/// Whether the IR of `stage` is fk ops on tensors, which the reference
/// interpreter can run.
bool isTensorStage(Stage stage);

/// Appends the passes that take the IR of the stage before `stage` to
/// `stage`.
void addStagePasses(OpPassManager &pm, Stage stage,
                    const PipelineOptions &options = {});

} // namespace mlir::fk

#endif // FKC_PIPELINES_PIPELINE_H
