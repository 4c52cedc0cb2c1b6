//===- Options.cpp - fkc-run's command line -------------------------------===//

#include "Options.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

using namespace fkcrun;

std::string fkcrun::usage() {
  return "Usage: fkc-run MODEL.ptx [options]\n"
         "\n"
         "Runs the graphs of an fkc artifact on a CUDA device and prints a\n"
         "summary of every output; with --check, compares the outputs with a\n"
         "tensor bundle's expected outputs (written by fkc --reference).\n"
         "\n"
         "Options:\n"
         "  --graph NAME      run graph NAME only (default: every graph)\n"
         "  --seed N          seed of the random inputs (default 1): the "
         "inputs\n"
         "                    of 'fkc --interpret --seed N'\n"
         "  --sizes S=N,...   the sizes of a graph's symbols (a graph compiled\n"
         "                    for sizes given at run time) for random inputs\n"
         "  --check FILE.fkt  take the inputs from the bundle and compare the\n"
         "                    outputs with its expected outputs\n"
         "  --inputs FILE.safetensors\n"
         "                    take each input from the tensor of its name\n"
         "                    (repeatable: the files' tensors together)\n"
         "  --outputs FILE.safetensors\n"
         "                    write the outputs of each graph's first run,\n"
         "                    by name (GRAPH.NAME when several graphs run)\n"
         "  --bench           time each graph: --warmup runs, then\n"
         "                    --iterations runs timed with CUDA events\n"
         "  --iterations N    timed runs of --bench (default 100)\n"
         "  --warmup N        untimed runs of --bench first (default 10)\n"
         "  --device N        CUDA device ordinal (default 0)\n"
         "  --no-cuda-graphs  launch kernel by kernel; by default a graph's\n"
         "                    later runs replay a CUDA graph, and the outputs\n"
         "                    of the replay are checked too\n"
         "  --serial-launches a replay runs its launches one after the other;\n"
         "                    by default launches that touch disjoint memory\n"
         "                    (or only read the same) run at once\n"
         "  --list            print the artifact's graph names and exit\n"
         "  -h, --help        print this help and exit\n"
         "\n"
         "Exit status: 0 on success, 1 on a failure or an output mismatch,\n"
         "2 on a usage error.\n";
}

namespace {

/// A whole decimal number in [min, max], without sign or spaces.
bool parseNumber(const std::string &text, uint64_t min, uint64_t max,
                 uint64_t &value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || v < min || v > max)
    return false;
  value = v;
  return true;
}

} // namespace

bool fkcrun::parseOptions(int argc, const char *const *argv, Options &options,
                          std::string &error) {
  bool iterationsGiven = false, warmupGiven = false, onlyFiles = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (onlyFiles || arg.size() < 2 || arg[0] != '-') {
      if (!options.artifact.empty()) {
        error = "unexpected argument '" + arg + "' (one artifact at a time)";
        return false;
      }
      options.artifact = arg;
      continue;
    }
    if (arg == "--") {
      onlyFiles = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return true;
    }
    if (arg == "--no-cuda-graphs") {
      options.cudaGraphs = false;
      continue;
    }
    if (arg == "--serial-launches") {
      options.concurrentLaunches = false;
      continue;
    }
    if (arg == "--bench" || arg == "--list") {
      (arg == "--bench" ? options.bench : options.list) = true;
      continue;
    }
    // Options with a value: "--name VALUE" or "--name=VALUE".
    std::string name = arg, value;
    bool inlineValue = false;
    size_t equals = arg.find('=');
    if (equals != std::string::npos) {
      name = arg.substr(0, equals);
      value = arg.substr(equals + 1);
      inlineValue = true;
    }
    if (name != "--graph" && name != "--seed" && name != "--check" &&
        name != "--inputs" && name != "--outputs" && name != "--iterations" &&
        name != "--warmup" && name != "--device" && name != "--sizes") {
      error = "unknown option '" + name + "'";
      return false;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        error = "option '" + name + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    uint64_t number = 0;
    const uint64_t maxInt = std::numeric_limits<int>::max();
    if (name == "--graph" || name == "--check" || name == "--inputs" ||
        name == "--outputs") {
      if (value.empty()) {
        error = "option '" + name + "' needs a non-empty value";
        return false;
      }
      if (name == "--inputs")
        options.inputs.push_back(value);
      else
        (name == "--graph"   ? options.graph
         : name == "--check" ? options.check
                             : options.outputs) = value;
    } else if (name == "--sizes") {
      // NAME=INT, comma-separated.
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        std::string entry = value.substr(
            start, comma == std::string::npos ? std::string::npos
                                              : comma - start);
        size_t eq = entry.find('=');
        if (eq == std::string::npos || eq == 0 ||
            !parseNumber(entry.substr(eq + 1), 0,
                         std::numeric_limits<int64_t>::max(), number)) {
          error = "--sizes: '" + entry + "' is not NAME=INT";
          return false;
        }
        options.sizes.emplace_back(entry.substr(0, eq),
                                   static_cast<int64_t>(number));
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (name == "--seed") {
      if (!parseNumber(value, 0, std::numeric_limits<uint64_t>::max(),
                       number)) {
        error = "--seed: '" + value +
                "' is not an integer in [0, 18446744073709551615]";
        return false;
      }
      options.seed = number;
      options.seedGiven = true;
    } else if (name == "--iterations" || name == "--warmup") {
      bool iterations = name == "--iterations";
      if (!parseNumber(value, iterations ? 1 : 0, 1000000, number)) {
        error = name + ": '" + value + "' is not an integer in [" +
                (iterations ? "1" : "0") + ", 1000000]";
        return false;
      }
      (iterations ? options.iterations : options.warmup) = number;
      (iterations ? iterationsGiven : warmupGiven) = true;
    } else { // --device
      if (!parseNumber(value, 0, maxInt, number)) {
        error = "--device: '" + value + "' is not a device ordinal";
        return false;
      }
      options.device = static_cast<int>(number);
    }
  }
  if (options.artifact.empty()) {
    error = "no artifact given (fkc-run MODEL.ptx ...)";
    return false;
  }
  if ((iterationsGiven || warmupGiven) && !options.bench) {
    error = std::string(iterationsGiven ? "--iterations" : "--warmup") +
            " needs --bench";
    return false;
  }
  if (!options.inputs.empty() && (options.seedGiven || !options.check.empty())) {
    error = std::string("--inputs and ") +
            (options.seedGiven ? "--seed" : "--check") +
            " exclude each other: the inputs come from one source";
    return false;
  }
  if (!options.sizes.empty() && (!options.inputs.empty() || !options.check.empty())) {
    error = std::string("--sizes and ") +
            (options.check.empty() ? "--inputs" : "--check") +
            " exclude each other: the inputs' shapes give the sizes";
    return false;
  }
  if (options.seedGiven && !options.check.empty()) {
    error = "--seed and --check exclude each other: with --check the inputs "
            "come from the bundle";
    return false;
  }
  return true;
}
