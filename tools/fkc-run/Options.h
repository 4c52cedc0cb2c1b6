//===- Options.h - fkc-run's command line -----------------------*- C++ -*-===//
//
// Parsed by hand rather than with CLI11: fkc-run is built with the runtime
// alone (-DFKC_BUILD_COMPILER=OFF), on GPU machines that have a compiler and
// CMake but not necessarily CLI11, and its options need no more than a
// loop. Both "--opt VALUE" and "--opt=VALUE" are accepted; "--" ends the
// options.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_OPTIONS_H
#define FKC_RUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fkcrun {

struct Options {
  std::string artifact;
  /// Empty: every graph of the artifact.
  std::string graph;
  uint64_t seed = 1;
  bool seedGiven = false;
  /// A tensor bundle to take the inputs from and compare the outputs with.
  std::string check;
  /// .safetensors files to take the inputs from, by parameter name.
  std::vector<std::string> inputs;
  /// A .safetensors file to write the outputs of the first run to.
  std::string outputs;
  bool bench = false;
  uint64_t iterations = 100;
  uint64_t warmup = 10;
  int device = 0;
  bool list = false;
  /// The sizes of a graph's symbols for random inputs (--sizes S=7,B=2),
  /// in order given; with --check or --inputs the inputs' shapes give them.
  std::vector<std::pair<std::string, int64_t>> sizes;
  /// Replay runs as CUDA graphs (the runtime's default).
  bool cudaGraphs = true;
  /// Replays run launches at once where their memory allows (the
  /// runtime's default); --serial-launches runs them in order.
  bool concurrentLaunches = true;
  bool help = false;
};

/// Parses `argv`; on a usage error returns false with `error` set.
bool parseOptions(int argc, const char *const *argv, Options &options,
                  std::string &error);

/// The --help text.
std::string usage();

} // namespace fkcrun

#endif // FKC_RUN_OPTIONS_H
