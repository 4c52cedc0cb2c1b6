//===- Pipeline.h - the stages of the fkc compiler --------------*- C++ -*-===//
//
// The compiler is a sequence of stages; `fkc --emit=STAGE` stops after one
// and prints its IR. Each stage is a pass pipeline appended by
// `addStagePasses`, so tools and tests build the same pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_PIPELINES_PIPELINE_H
#define FKC_PIPELINES_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mlir::fk {

enum class Stage {
  /// The fk dialect as the front end built it.
  Graph,
  /// Folded and canonicalized, common subexpressions merged.
  Canonical,
};

/// Every stage, in pipeline order.
llvm::ArrayRef<Stage> getStages();
llvm::StringRef getStageName(Stage stage);
llvm::StringRef getStageDescription(Stage stage);
std::optional<Stage> parseStageName(llvm::StringRef name);

/// Appends the passes that take the IR of the stage before `stage` to
/// `stage`.
void addStagePasses(OpPassManager &pm, Stage stage);

} // namespace mlir::fk

#endif // FKC_PIPELINES_PIPELINE_H
