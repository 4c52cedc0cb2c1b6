//===- ArtifactWriter.h - the .ptx artifact with its manifest ---*- C++ -*-===//
//
// Writes what `fkc` delivers: the PTX of the kernel module, led by the JSON
// manifest (docs/artifact.md) that tells the runtime each graph's signature,
// workspace, buffers and launch sequence.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_ARTIFACT_ARTIFACTWRITER_H
#define FKC_ARTIFACT_ARTIFACTWRITER_H

#include "Codegen/NvvmLowering.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fk {

/// The manifest format versions written, see docs/artifact.md: version 3
/// only when an output aliases an input (an inout parameter), version 4
/// only when a graph takes sizes at run time (symbols), version 5 only when
/// a workspace buffer is placed per run (sized by a symbol without a
/// bound), version 6 only when a launch limits a run's sizes (an
/// attention's lengths without a bound), so that runtimes that read
/// version 2 still load every other artifact.
inline constexpr int kArtifactVersion = 2;
inline constexpr int kAliasingArtifactVersion = 3;
inline constexpr int kSymbolsArtifactVersion = 4;
inline constexpr int kRunWorkspaceArtifactVersion = 5;
inline constexpr int kLimitsArtifactVersion = 6;

/// Writes the artifact of `module`, which must hold the host functions of
/// `fk-lower-to-gpu` and the kernel module as a `gpu.binary` of PTX, for
/// the module's `fk.target`. Emits an error on the module for what the
/// manifest cannot express. Fails if the PTX calls libdevice functions that
/// were not linked (`ptxOptions` says where libdevice was looked for).
LogicalResult writeArtifact(ModuleOp module, const PtxOptions &ptxOptions,
                            llvm::raw_ostream &os);

} // namespace mlir::fk

#endif // FKC_ARTIFACT_ARTIFACTWRITER_H
