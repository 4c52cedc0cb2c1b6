//===- fkc-run.cpp - Runs an fkc artifact's graphs on a GPU ---------------===//
//
// Loads an artifact with fkrt, gives each graph random inputs (or those of a
// tensor bundle, or of .safetensors files by name), poisons its outputs,
// runs it, and prints what came out; with --check compares the outputs with
// the bundle's, with --bench times the graph, with --outputs writes them.
// Everything the GPU needs goes through the runtime's C API, so this builds
// without the CUDA toolkit and fails cleanly without a driver. The
// artifact, the bundle and the .safetensors inputs are checked before the
// driver is needed.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Elements.h"
#include "Options.h"
#include "RandomInputs.h"
#include "Statistics.h"

#include "fkrt/bundle.hpp"
#include "fkrt/runtime.hpp"
#include "fkrt/safetensors.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

using namespace fkcrun;
namespace bundle = fkrt::bundle;
namespace st = fkrt::safetensors;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

void printError(const std::string &message) {
  std::fprintf(stderr, "fkc-run: error: %s\n", message.c_str());
}

std::string joinNames(const fkrt::Module &module) {
  std::string names;
  for (size_t g = 0; g < module.graphCount(); ++g)
    names += (g ? ", " : "") + module.graphName(g);
  return names;
}

/// Checks that the bundle's tensors for `graph` are those the manifest
/// declares, in order: names, dtypes and shapes.
bool matchSignature(const fkrt::Module &module, size_t graph,
                    const bundle::Graph &data, const std::string &bundlePath,
                    std::string &error) {
  const std::string where = bundlePath + ": graph '" + data.name + "'";
  for (int pass = 0; pass < 2; ++pass) {
    bool inputs = pass == 0;
    std::vector<fkrt::TensorInfo> expected =
        inputs ? module.inputs(graph) : module.outputs(graph);
    const std::vector<bundle::Tensor> &got =
        inputs ? data.inputs : data.outputs;
    const char *role = inputs ? "input" : "output";
    if (got.size() != expected.size()) {
      error = where + " has " + std::to_string(got.size()) + " " + role +
              (got.size() == 1 ? "" : "s") + " in the bundle, " +
              std::to_string(expected.size()) + " in the artifact";
      return false;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      const fkrt::TensorInfo &e = expected[i];
      const bundle::Tensor &t = got[i];
      // A symbolic dimension (-1) takes the bundle's size; the runtime
      // checks the sizes against each other when the graph runs.
      if (t.name != e.name || t.dtype != e.dtype ||
          !st::shapeFits(e.shape, t.shape)) {
        error = where + " " + role + " " + std::to_string(i) + " is '" +
                t.name + "': " + bundle::typeString(t.dtype, t.shape) +
                ", the artifact's is '" + e.name +
                "': " + bundle::typeString(e.dtype, e.shape);
        return false;
      }
    }
  }
  return true;
}

/// The signatures of graph `graph`'s inputs, as the binding by name sees
/// them.
std::vector<st::Signature> parameters(const fkrt::Module &module,
                                      size_t graph) {
  std::vector<st::Signature> result;
  for (const fkrt::TensorInfo &info : module.inputs(graph))
    result.push_back({info.name, info.dtype, info.shape});
  return result;
}

/// Binds the --inputs tensors to the inputs of `graphs` by name: for each
/// graph, its inputs' tensors in order. Every problem is one line of
/// `problems`.
std::vector<std::vector<const bundle::Tensor *>>
bindInputs(const fkrt::Module &module, const std::vector<size_t> &graphs,
           const std::vector<bundle::Tensor> &tensors,
           std::vector<std::string> &problems) {
  std::vector<st::Signature> found;
  for (const bundle::Tensor &t : tensors)
    found.push_back(st::signatureOf(t));
  std::vector<std::vector<st::Signature>> expected;
  for (size_t g : graphs)
    expected.push_back(parameters(module, g));
  std::vector<size_t> unused;
  std::vector<st::Match> matches =
      st::matchGraphsByName(expected, found, unused);
  std::vector<std::vector<const bundle::Tensor *>> bound;
  for (size_t i = 0; i < graphs.size(); ++i) {
    std::string why =
        st::describeProblems(matches[i], expected[i], found,
                             "graph '" + module.graphName(graphs[i]) + "'",
                             /*requireAll=*/true);
    if (!why.empty())
      problems.push_back(why);
    bound.emplace_back();
    for (int64_t t : matches[i].tensorOf)
      bound.back().push_back(t >= 0 ? &tensors[t] : nullptr);
  }
  if (!unused.empty()) {
    std::vector<std::string> names;
    for (size_t t : unused)
      names.push_back(tensors[t].name);
    problems.push_back(st::describeUnused(
        names, graphs.size() == 1 ? "graph '" + module.graphName(graphs[0]) + "'"
                                  : std::string("any graph run")));
  }
  return bound;
}

/// "1 input", "2 inputs".
std::string counted(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

enum class Outcome { Ok, Mismatch, Error };

/// Runs the graphs of one artifact on one device.
class Runner {
public:
  /// `data`: the --check bundle, or null.
  Runner(const fkrt::Module &module, const Options &options,
         const bundle::Bundle *data)
      : module(module), options(options), data(data) {}

  /// Runs graph `graph`; `named`, if not null, holds its inputs from the
  /// --inputs files, in order.
  Outcome runGraph(size_t graph,
                   const std::vector<const bundle::Tensor *> *named) {
    const std::string name = module.graphName(graph);
    try {
      return run(graph, name, named);
    } catch (const fkrt::Error &e) {
      printError("graph '" + name + "': " + e.what());
      return Outcome::Error;
    } catch (const std::bad_alloc &) {
      printError("graph '" + name + "': out of host memory");
      return Outcome::Error;
    }
  }

  /// The outputs of every graph's first run, for --outputs: each named
  /// after its output, GRAPH.NAME when `qualified`.
  std::vector<bundle::Tensor> results;
  bool qualified = false;

private:
  Outcome run(size_t graph, const std::string &name,
              const std::vector<const bundle::Tensor *> *named) {
    const int device = options.device;
    std::vector<fkrt::TensorInfo> inputInfo = module.inputs(graph);
    std::vector<fkrt::TensorInfo> outputInfo = module.outputs(graph);
    const bundle::Graph *expected = data ? data->find(name) : nullptr;
    // A graph sized at run time (artifact version 4): the inputs' shapes
    // come from the bundle or the files, or from --sizes for random ones.
    std::vector<fkrt::Symbol> symbols = module.symbols(graph);
    if (!symbols.empty() &&
        !sizeInputs(name, symbols, named, expected, inputInfo))
      return Outcome::Error;

    std::string source = "random, seed " + std::to_string(options.seed);
    if (expected)
      source = "from " + options.check;
    if (named) {
      source = "from ";
      for (size_t i = 0; i < options.inputs.size(); ++i)
        source += (i ? ", " : "") + options.inputs[i];
    }
    std::printf("graph '%s': %s (%s), %s\n", name.c_str(),
                counted(inputInfo.size(), "input").c_str(), source.c_str(),
                counted(outputInfo.size(), "output").c_str());

    // Inputs, on the device once for every run.
    std::vector<fkrt::DeviceBuffer> inputs, outputs;
    std::vector<fkrt_tensor> inputArgs, outputArgs;
    std::vector<std::vector<uint8_t>> hostInputs;
    SplitMix64 random(options.seed);
    for (size_t i = 0; i < inputInfo.size(); ++i) {
      const fkrt::TensorInfo &info = inputInfo[i];
      hostInputs.push_back(
          named      ? (*named)[i]->data
          : expected ? expected->inputs[i].data
                     : randomElements(info.dtype,
                                      info.bytes / elementSize(info.dtype),
                                      random));
      inputs.emplace_back(device, info.bytes);
      inputs.back().copyFrom(hostInputs.back().data());
      inputArgs.push_back(inputs.back().tensor(info.dtype, info.shape));
    }
    // The outputs' shapes follow from the inputs' (the runtime's rules).
    if (!symbols.empty())
      for (size_t o = 0; o < outputInfo.size(); ++o) {
        outputInfo[o].shape = module.outputShape(name, inputArgs, o);
        setBytes(outputInfo[o]);
      }
    // An inout parameter's new value is written into its input's buffer.
    std::vector<bool> inout(inputInfo.size(), false);
    for (const fkrt::TensorInfo &info : outputInfo) {
      outputs.emplace_back(device, info.aliases >= 0 ? 0 : info.bytes);
      outputArgs.push_back(
          info.aliases >= 0 ? inputArgs[info.aliases]
                            : outputs.back().tensor(info.dtype, info.shape));
      if (info.aliases >= 0)
        inout[info.aliases] = true;
    }
    auto outputBuffer = [&](size_t o) -> fkrt::DeviceBuffer & {
      int64_t input = outputInfo[o].aliases;
      return input >= 0 ? inputs[input] : outputs[o];
    };

    // One run, its outputs poisoned first so that elements a kernel fails
    // to write show up. Inout inputs, which a run updates, get their values
    // back before each checked run (not before timed runs: their values do
    // not matter there).
    auto poison = [&] {
      for (size_t o = 0; o < outputs.size(); ++o)
        if (outputInfo[o].aliases < 0)
          outputs[o].fill(0xFF);
    };
    auto restoreInout = [&] {
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inout[i])
          inputs[i].copyFrom(hostInputs[i].data());
    };
    auto launch = [&] { module.run(name, inputArgs, outputArgs); };
    poison();
    launch();
    fkrt::synchronize(device);

    Outcome outcome = Outcome::Ok;
    std::vector<std::vector<uint8_t>> firstRun(outputInfo.size());
    for (size_t o = 0; o < outputInfo.size(); ++o) {
      const fkrt::TensorInfo &info = outputInfo[o];
      std::vector<uint8_t> &host = firstRun[o];
      host.resize(info.bytes);
      outputBuffer(o).copyTo(host.data());
      uint64_t count = info.bytes / elementSize(info.dtype);
      std::printf("  output %s %s: %s\n", info.name.c_str(),
                  bundle::typeString(info.dtype, info.shape).c_str(),
                  formatStatistics(info.dtype,
                                   summarize(info.dtype, host.data(), count))
                      .c_str());
      if (!options.outputs.empty())
        results.push_back({qualified ? name + "." + info.name : info.name,
                           info.dtype, info.shape, host});
      if (!expected)
        continue;
      Comparison c = compare(info.dtype, host.data(),
                             expected->outputs[o].data.data(), count,
                             module.allowTf32());
      std::printf("  check  %s: %s\n", info.name.c_str(),
                  formatComparison(info.dtype, c, info.shape).c_str());
      if (!c.ok)
        outcome = Outcome::Mismatch;
    }

    // The second run captures a CUDA graph and replays it, the third
    // replays it again: both must write what the first run wrote.
    if (module.cudaGraphs() && module.launchCount(graph) > 1) {
      for (int replay = 0; replay < 2; ++replay) {
        restoreInout();
        poison();
        launch();
        fkrt::synchronize(device);
        for (size_t o = 0; o < outputInfo.size(); ++o) {
          std::vector<uint8_t> host(outputInfo[o].bytes);
          outputBuffer(o).copyTo(host.data());
          if (host != firstRun[o]) {
            std::printf("  replay %s: MISMATCH: the CUDA graph's run %d "
                        "wrote other bytes than the first run\n",
                        outputInfo[o].name.c_str(), replay + 2);
            outcome = Outcome::Mismatch;
          }
        }
      }
      if (outcome != Outcome::Mismatch)
        std::printf("  replay: %zu CUDA graph%s held; 2 replayed runs wrote "
                    "what the first run wrote\n",
                    module.cudaGraphCount(),
                    module.cudaGraphCount() == 1 ? "" : "s");
    }

    if (options.bench)
      bench(poison, launch);
    return outcome;
  }

  /// Gives each symbolic input of a graph the shape of its tensor in the
  /// bundle or the --inputs files, or for random inputs its dimensions'
  /// monomials at --sizes, with the bytes that shape holds. The runtime
  /// checks these shapes against each other when the graph runs.
  bool sizeInputs(const std::string &name,
                  const std::vector<fkrt::Symbol> &symbols,
                  const std::vector<const bundle::Tensor *> *named,
                  const bundle::Graph *expected,
                  std::vector<fkrt::TensorInfo> &inputInfo) {
    std::map<std::string, int64_t> sizes(options.sizes.begin(),
                                         options.sizes.end());
    if (!named && !expected)
      for (const fkrt::Symbol &symbol : symbols)
        if (!sizes.count(symbol.name)) {
          printError("graph '" + name + "' takes the size of '" +
                     symbol.name +
                     "' at run time: give it with --sizes " + symbol.name +
                     "=SIZE, or take the inputs from --check or --inputs");
          return false;
        }
    for (size_t i = 0; i < inputInfo.size(); ++i) {
      fkrt::TensorInfo &info = inputInfo[i];
      if (named || expected) {
        info.shape = named ? (*named)[i]->shape : expected->inputs[i].shape;
      } else {
        for (size_t d = 0; d < info.shape.size(); ++d) {
          if (info.shape[d] >= 0)
            continue;
          // A monomial: "2*B*S".
          uint64_t size = 1;
          std::stringstream factors(info.symbolicDims[d]);
          for (std::string factor; std::getline(factors, factor, '*');) {
            auto it = sizes.find(factor);
            uint64_t value =
                it != sizes.end() ? it->second : std::stoull(factor);
            if (value != 0 && size > UINT64_MAX / 2 / value) {
              printError("graph '" + name + "': --sizes make dimension " +
                         std::to_string(d) + " of input '" + info.name +
                         "' overflow");
              return false;
            }
            size *= value;
          }
          info.shape[d] = static_cast<int64_t>(size);
        }
      }
      setBytes(info);
    }
    return true;
  }

  /// Sets `info.bytes` to what its shape holds.
  static void setBytes(fkrt::TensorInfo &info) {
    info.bytes = elementSize(info.dtype);
    for (int64_t size : info.shape)
      info.bytes *= static_cast<uint64_t>(size);
  }

  /// Warm-up runs, then timed runs, each poisoned first and timed between
  /// two events. Up to kRing runs are in flight: the host reads a run's time
  /// only kRing runs later, so it stays ahead of the GPU and the launch
  /// overhead is not part of the times.
  template <typename P, typename L> void bench(P &poison, L &launch) {
    const int device = options.device;
    for (uint64_t i = 0; i < options.warmup; ++i) {
      poison();
      launch();
    }
    fkrt::synchronize(device);
    const uint64_t kRing = 64;
    const uint64_t ring = std::min(kRing, options.iterations);
    std::vector<fkrt::Event> starts, stops;
    for (uint64_t i = 0; i < ring; ++i) {
      starts.emplace_back(device);
      stops.emplace_back(device);
    }
    std::vector<double> times;
    for (uint64_t i = 0; i < options.iterations; ++i) {
      uint64_t slot = i % ring;
      if (i >= ring)
        times.push_back(stops[slot].elapsedSince(starts[slot]));
      poison();
      starts[slot].record();
      launch();
      stops[slot].record();
    }
    for (uint64_t i = options.iterations - ring; i < options.iterations; ++i)
      times.push_back(stops[i % ring].elapsedSince(starts[i % ring]));
    std::sort(times.begin(), times.end());
    double sum = 0;
    for (double t : times)
      sum += t;
    std::printf("  bench: %zu runs after %llu warm-up: median %.4f ms, min "
                "%.4f ms, mean %.4f ms, max %.4f ms\n",
                times.size(), static_cast<unsigned long long>(options.warmup),
                times[times.size() / 2], times.front(),
                sum / static_cast<double>(times.size()), times.back());
  }

  const fkrt::Module &module;
  const Options &options;
  const bundle::Bundle *data;
};

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string why;
  if (!parseOptions(argc, argv, options, why)) {
    printError(why);
    std::fprintf(stderr, "Run 'fkc-run --help' for usage.\n");
    return kExitUsage;
  }
  if (options.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  try {
    fkrt::Module module = fkrt::Module::fromFile(options.artifact);
    if (options.list) {
      for (size_t g = 0; g < module.graphCount(); ++g)
        std::printf("%s\n", module.graphName(g).c_str());
      return 0;
    }

    std::vector<size_t> graphs;
    if (options.graph.empty()) {
      for (size_t g = 0; g < module.graphCount(); ++g)
        graphs.push_back(g);
    } else {
      size_t g;
      if (fkrt_manifest_find_graph(module.get(), options.graph.c_str(), &g) !=
          FKRT_SUCCESS) {
        printError("no graph named '" + options.graph + "' in " +
                   options.artifact + " (its graphs: " + joinNames(module) +
                   ")");
        return kExitFailure;
      }
      graphs.push_back(g);
    }

    // The bundle, checked against the manifest before any GPU work.
    bundle::Bundle data;
    if (!options.check.empty()) {
      if (!bundle::read(options.check, data, why)) {
        printError(why);
        return kExitFailure;
      }
      for (size_t g : graphs) {
        const bundle::Graph *found = data.find(module.graphName(g));
        if (!found) {
          printError(options.check + ": no graph '" + module.graphName(g) +
                     "' in the bundle");
          return kExitFailure;
        }
        if (!matchSignature(module, g, *found, options.check, why)) {
          printError(why);
          return kExitFailure;
        }
      }
    }

    // The --inputs tensors, bound to every graph run before any GPU work.
    std::vector<std::vector<const bundle::Tensor *>> named;
    std::vector<bundle::Tensor> tensors;
    if (!options.inputs.empty()) {
      std::vector<std::string> origins, problems;
      if (!st::readAll(options.inputs, tensors, origins, why)) {
        printError(why);
        return kExitFailure;
      }
      named = bindInputs(module, graphs, tensors, problems);
      for (const std::string &problem : problems)
        printError("--inputs: " + problem);
      if (!problems.empty())
        return kExitFailure;
    }

    module.setCudaGraphs(options.cudaGraphs);
    module.setConcurrentLaunches(options.concurrentLaunches);
    module.loadCuda(options.device);
    int sms = fkrt::deviceSmCount(options.device);
    std::printf("fkc-run: %s (target %s%s) on device %d: %s, %d SMs\n",
                options.artifact.c_str(), module.target().c_str(),
                module.allowTf32() ? ", TF32 allowed" : "", options.device,
                fkrt::deviceName(options.device).c_str(), sms);
    // Persistent grids follow the device (runtime/lib/PersistentGrid.h):
    // say so where the tiling heuristics assumed another count.
    if (int sized = module.persistentSmCount(); sized && sized != sms)
      std::printf("fkc-run: persistent kernels sized for %d SMs launch a "
                  "block per SM of this device's %d (fkc --sm-count=%d "
                  "tunes the tiles for it)\n",
                  sized, sms, sms);

    Runner runner(module, options, options.check.empty() ? nullptr : &data);
    runner.qualified = graphs.size() > 1;
    std::vector<std::string> mismatched, failed;
    for (size_t i = 0; i < graphs.size(); ++i) {
      size_t g = graphs[i];
      Outcome outcome = runner.runGraph(g, named.empty() ? nullptr : &named[i]);
      if (outcome == Outcome::Mismatch)
        mismatched.push_back(module.graphName(g));
      if (outcome == Outcome::Error)
        failed.push_back(module.graphName(g));
    }
    size_t ok = graphs.size() - mismatched.size() - failed.size();
    std::printf("fkc-run: %zu of %zu graphs ok", ok, graphs.size());
    for (const std::string &g : mismatched)
      std::printf("; '%s' MISMATCH", g.c_str());
    for (const std::string &g : failed)
      std::printf("; '%s' FAILED", g.c_str());
    std::printf("\n");
    if (!options.outputs.empty()) {
      if (!failed.empty()) {
        printError("--outputs: " + options.outputs +
                   " not written: a graph failed");
        return kExitFailure;
      }
      st::File results;
      results.tensors = std::move(runner.results);
      if (!st::write(options.outputs, results, why)) {
        printError(why);
        return kExitFailure;
      }
      std::printf("fkc-run: outputs written to %s\n", options.outputs.c_str());
    }
    return ok == graphs.size() ? 0 : kExitFailure;
  } catch (const fkrt::Error &e) {
    printError(e.what());
    return kExitFailure;
  } catch (const std::bad_alloc &) {
    printError("out of host memory");
    return kExitFailure;
  }
}
