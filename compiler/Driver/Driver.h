//===- Driver.h - what fkc does, as a library -------------------*- C++ -*-===//
//
// The fkc tool parses its command line and calls `runDriver`; keeping the
// work here lets tests and other tools drive the compiler without a shell.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_DRIVER_DRIVER_H
#define FKC_DRIVER_DRIVER_H

#include "Pipelines/Pipeline.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fk {

/// The chip fkc compiles for unless told otherwise.
inline constexpr llvm::StringLiteral kDefaultChip = "sm_90a";

struct DriverOptions {
  /// A .graph file, or a .mlir file holding fk IR; "-" reads stdin.
  std::string inputFile = "-";
  std::string outputFile = "-";
  Stage emit = Stage::Ptx;
  /// The chip to compile for (--target, one of getSupportedChips()): the
  /// driver gives the module its description as `fk.target` before the
  /// first stage. None: kDefaultChip, or the target a .mlir input carries.
  std::optional<std::string> chip;
  /// The GPU's SM count where it differs from the chip's in the target
  /// table (--sm-count: an H100 PCIe's 114 for sm_90a, whose table entry
  /// is the SXM parts' 132): persistent grids and the tiling heuristics
  /// count on it. None: the table's, or a .mlir input's own target's.
  std::optional<int64_t> smCount;
  /// Allow f32 matmuls on TF32 tensor cores (--allow-tf32): the driver marks
  /// the module `fk.allow_tf32` (fk/IR/FkNumerics.h).
  bool allowTf32 = false;
  /// How the PTX is generated, and whether ops are fused.
  PipelineOptions pipeline;
  /// Write the fused graph as Graphviz DOT here (and an SVG next to it when
  /// Graphviz is installed); empty: nowhere.
  std::string fusionGraphFile;
  /// Write the wgmma matmuls' tiles and ring depths as a tuning file here
  /// (Codegen/Tuning.h); empty: nowhere.
  std::string writeTuningFile;
  /// Print the reference interpreter's results instead of IR.
  bool interpret = false;
  /// Check every stage against the graph stage on random inputs.
  bool verifyStages = false;
  uint64_t seed = 1;
  /// .safetensors files whose tensors are the inputs of --interpret,
  /// --verify-stages and --reference, by parameter name
  /// (docs/safetensors.md); empty: random inputs of `seed`.
  std::vector<std::string> inputFiles;
  /// The graph to interpret; empty: every graph.
  std::string graph;
  /// Where --interpret writes the results as a .safetensors file; empty:
  /// nowhere.
  std::string outputsFile;
  /// Where to write the graphs' inputs and reference outputs as a tensor
  /// bundle; empty: nowhere.
  std::string referenceFile;
  /// Check diagnostics against `expected-error` comments in the input.
  bool verifyDiagnostics = false;
  /// Process each `// -----` separated chunk of the input on its own.
  bool splitInputFile = false;
};

/// Runs the compiler as `options` says; returns the process exit code.
int runDriver(const DriverOptions &options);

/// Registers MLIR's command-line options (--mlir-print-ir-after-all and
/// friends) so that `llvm::cl` parses them for the driver.
void registerDriverCLOptions();

} // namespace mlir::fk

#endif // FKC_DRIVER_DRIVER_H
