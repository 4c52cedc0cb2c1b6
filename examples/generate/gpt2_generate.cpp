//===- gpt2_generate.cpp - Greedy generation through the fkc runtime ------===//
//
// The generation loop of generate.py in C++ over the installed runtime
// (fkrt/runtime.hpp): loads an artifact with graphs `prefill` and `decode`
// in the convention of examples/generate/README.md, binds the weights of a
// .safetensors file to both, runs the prompt, then one decode step per new
// token feeding back the graph's `next`, and prints the generated ids, one
// line per sequence. Needs neither the CUDA toolkit nor fkc.
//
// Usage: gpt2-generate MODEL.ptx WEIGHTS.safetensors PROMPT [NEW_TOKENS]
//   PROMPT: token ids ("464 3290 318;40 1101 257": two sequences), or a file
//   of them (one sequence a line). NEW_TOKENS defaults to 64.
//
// Each step copies `next` to the host and the next step's ids and position
// back (a few bytes, the loop a server streaming tokens would run); the
// decode step runs on the same buffers every time, so the runtime replays
// its launches as a CUDA graph. An artifact whose batch or prompt length is
// sized at run time (ids: i64[B, S]) takes them from the prompt: the
// buffers are sized for it, and the runtime checks the sizes against the
// artifact's bounds.
//
//===----------------------------------------------------------------------===//

#include "fkrt/runtime.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// An artifact or prompt that does not fit the convention.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Dimension `d` of `t` as the language writes it: a size or a symbol.
std::string dimText(const fkrt::TensorInfo &t, size_t d) {
  return t.shape[d] < 0 ? t.symbolicDims[d] : std::to_string(t.shape[d]);
}

std::string describe(const fkrt::TensorInfo &t) {
  std::string s = std::string(fkrt_dtype_name(t.dtype)) + "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    s += (d ? ", " : "") + dimText(t, d);
  return s + "]";
}

/// The sizes of a run's symbols ("B" -> 4), from the prompt.
using Sizes = std::map<std::string, int64_t>;

/// `t`'s shape at a run's `sizes`: a symbolic dimension must be a symbol
/// the prompt sizes (the batch or the prompt length).
std::vector<int64_t> shapeAt(const fkrt::TensorInfo &t, const Sizes &sizes) {
  std::vector<int64_t> shape = t.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] >= 0)
      continue;
    auto it = sizes.find(t.symbolicDims[d]);
    if (it == sizes.end())
      throw UsageError("'" + t.name + "' is " + describe(t) + ": its size " +
                       t.symbolicDims[d] +
                       " is neither the batch nor the prompt length");
    shape[d] = it->second;
  }
  return shape;
}

int64_t bytesOf(fkrt_dtype dtype, const std::vector<int64_t> &shape) {
  int64_t bytes = int64_t(fkrt_dtype_size(dtype));
  for (int64_t size : shape)
    bytes *= size;
  return bytes;
}

/// Where the convention's tensors are in one graph's inputs and outputs.
struct Step {
  std::string name;
  std::vector<fkrt::TensorInfo> inputs, outputs;
  size_t ids = 0, next = 0, logits = 0;
  int64_t pos = -1;                     // the input index of pos, if any
  std::map<size_t, size_t> cacheOutput; // cache input -> its new value

  Step(const fkrt::Module &module, const std::string &graphName)
      : name(graphName) {
    size_t graph = module.findGraph(name);
    inputs = module.inputs(graph);
    outputs = module.outputs(graph);
    bool hasIds = false, hasNext = false, hasLogits = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].name == "ids")
        ids = i, hasIds = true;
      if (inputs[i].name == "pos")
        pos = int64_t(i);
    }
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (outputs[j].name == "next")
        next = j, hasNext = true;
      if (outputs[j].name == "logits")
        logits = j, hasLogits = true;
      if (outputs[j].aliases >= 0)
        cacheOutput[size_t(outputs[j].aliases)] = j;
    }
    if (!hasIds || !hasNext || !hasLogits)
      throw UsageError("graph '" + name +
                       "' needs an input 'ids' and results 'logits' and "
                       "'next'");
    if (outputs[logits].shape.empty())
      throw UsageError("graph '" + name + "': logits has no vocabulary axis");
    const fkrt::TensorInfo &in = inputs[ids], &out = outputs[next];
    if (in.dtype != FKRT_I64 || in.shape.size() != 2)
      throw UsageError("graph '" + name + "': ids is " + describe(in) +
                       ", expected i64[B, T]");
    // (fkrt::TensorInfo gives a symbolic dimension as -1, its text in
    // symbolicDims: ids may be i64[B, S].)
    if (out.dtype != FKRT_I64 || out.shape.size() != 2 || out.shape[1] != 1 ||
        out.shape[0] != in.shape[0] ||
        out.symbolicDims[0] != in.symbolicDims[0])
      throw UsageError("graph '" + name + "': next is " + describe(out) +
                       ", expected i64[" + dimText(in, 0) + ", 1]");
    // Every other input must be bound by the weights file.
    for (size_t i = 0; i < inputs.size(); ++i)
      if (i != ids && int64_t(i) != pos && !cacheOutput.count(i) &&
          !inputs[i].bound)
        throw UsageError("graph '" + name + "': input '" + inputs[i].name +
                         "' is not in the weights file");
  }

  /// The batch and the tokens per sequence: sizes, or -1 where sized at
  /// run time (then named by batchSymbol(), tokensSymbol()).
  int64_t batch() const { return inputs[ids].shape[0]; }
  int64_t tokens() const { return inputs[ids].shape[1]; }
  const std::string &batchSymbol() const { return inputs[ids].symbolicDims[0]; }
  const std::string &tokensSymbol() const {
    return inputs[ids].symbolicDims[1];
  }
  /// The sizes of a run over `batch` sequences of `tokens` tokens, checked
  /// against the graph's own where they are static.
  void bind(int64_t runBatch, int64_t runTokens, Sizes &sizes) const {
    auto one = [&](int64_t fixed, const std::string &symbol, int64_t size,
                   const char *what) {
      if (fixed < 0)
        sizes[symbol] = size;
      else if (fixed != size)
        throw UsageError("the prompt has " + std::to_string(size) + " " +
                         what + "; graph '" + name + "' takes " +
                         std::to_string(fixed) + " (recompile for others, "
                         "or with them sized at run time)");
    };
    one(batch(), batchSymbol(), runBatch, "sequences");
    one(tokens(), tokensSymbol(), runTokens, "tokens per sequence");
  }
};

std::vector<std::vector<int64_t>> parsePrompt(std::string text) {
  if (std::ifstream file{text}) {
    std::stringstream contents;
    contents << file.rdbuf();
    text = contents.str();
  }
  for (char &c : text)
    c = c == ';' ? '\n' : c == ',' ? ' ' : c;
  std::vector<std::vector<int64_t>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<int64_t> row;
    for (std::string word; words >> word;) {
      size_t used = 0;
      try {
        row.push_back(std::stoll(word, &used));
      } catch (const std::exception &) {
      }
      if (used != word.size() || word.empty())
        throw UsageError("the prompt has '" + word + "', not a token id");
    }
    if (!row.empty())
      rows.push_back(std::move(row));
  }
  if (rows.empty())
    throw UsageError("the prompt has no token ids");
  for (const auto &row : rows)
    if (row.size() != rows[0].size())
      throw UsageError("the prompt's sequences differ in length");
  return rows;
}

/// A device buffer per tensor of a run: the caches (shared by both
/// graphs), the ids and pos inputs, and the results that are not caches.
class Generator {
public:
  Generator(const std::string &artifact, const std::string &weights,
            int device)
      : module_(loadAndBind(artifact, weights, device)), device_(device),
        prefill_(module_, "prefill"), decode_(module_, "decode") {
    if (prefill_.pos >= 0)
      throw UsageError("graph 'prefill' takes no pos (the prompt starts at 0)");
    if (decode_.tokens() != 1 || decode_.pos < 0 ||
        describe(decode_.inputs[size_t(decode_.pos)]) != "i32[]")
      throw UsageError("graph 'decode' takes ids: i64[B, 1] and pos: i32[]");
    if (dimText(prefill_.inputs[prefill_.ids], 0) !=
        dimText(decode_.inputs[decode_.ids], 0))
      throw UsageError("prefill and decode take different batches");
    for (const auto &entry : prefill_.cacheOutput) {
      const fkrt::TensorInfo &t = prefill_.inputs[entry.first];
      bool shared = false;
      for (const auto &other : decode_.cacheOutput)
        shared |= decode_.inputs[other.first].name == t.name &&
                  describe(decode_.inputs[other.first]) == describe(t);
      if (!shared)
        throw UsageError("cache '" + t.name + "' of prefill is no cache of "
                         "decode of the same type");
    }
    if (prefill_.cacheOutput.size() != decode_.cacheOutput.size())
      throw UsageError("decode has caches that prefill has not");
    pos_ = fkrt::DeviceBuffer(device, 4);
  }

  /// [B][newTokens] ids after `prompt`; the milliseconds of the prefill
  /// and of the decode steps in `prefillMs`, `decodeMs`.
  std::vector<std::vector<int64_t>>
  generate(const std::vector<std::vector<int64_t>> &prompt, int64_t newTokens,
           double &prefillMs, double &decodeMs) {
    const Step &p = prefill_;
    int64_t promptTokens = int64_t(prompt[0].size());
    sizes_.clear();
    p.bind(int64_t(prompt.size()), promptTokens, sizes_);
    decode_.bind(int64_t(prompt.size()), 1, sizes_);
    int64_t vocabulary = p.outputs[p.logits].shape.back();
    for (const auto &row : prompt)
      for (int64_t id : row)
        if (id < 0 || id >= vocabulary)
          throw UsageError("the prompt's ids must lie in [0, " +
                           std::to_string(vocabulary) +
                           ") (the logits' last axis)");
    int64_t longest = promptTokens + newTokens - 1;
    // The buffers of this prompt's sizes.
    caches_.clear();
    results_.clear();
    for (const auto &entry : p.cacheOutput) {
      const fkrt::TensorInfo &t = p.inputs[entry.first];
      std::vector<int64_t> shape = shapeAt(t, sizes_);
      if (shape.size() < 2 || shape[shape.size() - 2] < longest)
        throw UsageError("cache '" + t.name + "' (" + describe(t) +
                         ") does not hold " + std::to_string(longest) +
                         " positions on its second-last axis");
      caches_.emplace(t.name,
                      fkrt::DeviceBuffer(device_, bytesOf(t.dtype, shape)));
    }
    for (auto &entry : caches_)
      entry.second.fill(0);
    auto idsBuffer = [&](const Step &step) {
      const fkrt::TensorInfo &t = step.inputs[step.ids];
      return fkrt::DeviceBuffer(device_, bytesOf(t.dtype, shapeAt(t, sizes_)));
    };
    prompt_ = idsBuffer(p);
    ids_ = idsBuffer(decode_);
    std::vector<int64_t> flat;
    for (const auto &row : prompt)
      flat.insert(flat.end(), row.begin(), row.end());
    prompt_.copyFrom(flat.data());

    size_t batch = prompt.size();
    std::vector<std::vector<int64_t>> tokens(batch);
    std::vector<int64_t> next(batch);
    auto start = std::chrono::steady_clock::now();
    auto record = [&](Step &step) {
      run(step);
      results_[step.name][step.next].copyTo(next.data()); // waits for the run
      for (size_t b = 0; b < batch; ++b)
        tokens[b].push_back(next[b]);
    };
    record(prefill_);
    auto afterPrefill = std::chrono::steady_clock::now();
    for (int64_t i = 1; i < newTokens; ++i) {
      int32_t position = int32_t(promptTokens + i - 1);
      ids_.copyFrom(next.data());
      pos_.copyFrom(&position);
      record(decode_);
    }
    auto end = std::chrono::steady_clock::now();
    using Ms = std::chrono::duration<double, std::milli>;
    prefillMs = Ms(afterPrefill - start).count();
    decodeMs = Ms(end - afterPrefill).count();
    return tokens;
  }

private:
  void run(Step &step) {
    std::vector<fkrt::DeviceBuffer> &results = results_[step.name];
    if (results.empty())
      for (const fkrt::TensorInfo &t : step.outputs)
        results.emplace_back(
            t.aliases >= 0
                ? fkrt::DeviceBuffer()
                : fkrt::DeviceBuffer(device_,
                                     bytesOf(t.dtype, shapeAt(t, sizes_))));
    // Each tensor's shape at this run, alive until the run is enqueued.
    std::vector<std::vector<int64_t>> shapes;
    shapes.reserve(step.inputs.size() + step.outputs.size());
    auto shapeOf = [&](const fkrt::TensorInfo &t) -> const std::vector<int64_t> & {
      shapes.push_back(shapeAt(t, sizes_));
      return shapes.back();
    };
    std::vector<fkrt_tensor> inputs, outputs;
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const fkrt::TensorInfo &t = step.inputs[i];
      if (t.bound)
        continue;
      const fkrt::DeviceBuffer &buffer =
          i == step.ids ? (step.pos < 0 ? prompt_ : ids_)
          : int64_t(i) == step.pos ? pos_
                                   : caches_.at(t.name);
      inputs.push_back(buffer.tensor(t.dtype, shapeOf(t)));
    }
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      const fkrt::TensorInfo &t = step.outputs[j];
      const fkrt::DeviceBuffer &buffer =
          t.aliases >= 0 ? caches_.at(step.inputs[size_t(t.aliases)].name)
                         : results[j];
      outputs.push_back(buffer.tensor(t.dtype, shapeOf(t)));
    }
    module_.run(step.name, inputs, outputs);
  }

  /// The artifact loaded on `device` with the weights bound to both
  /// graphs (each graph gets its own copy on the device).
  static fkrt::Module loadAndBind(const std::string &artifact,
                                  const std::string &weights, int device) {
    fkrt::Module module = fkrt::Module::fromFile(artifact);
    module.loadCuda(device);
    module.bindWeights("prefill", weights);
    module.bindWeights("decode", weights);
    return module;
  }

  fkrt::Module module_;
  int device_;
  Step prefill_, decode_;
  /// The sizes of the prompt being generated from.
  Sizes sizes_;
  std::map<std::string, fkrt::DeviceBuffer> caches_;
  std::map<std::string, std::vector<fkrt::DeviceBuffer>> results_;
  fkrt::DeviceBuffer prompt_, ids_, pos_;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: gpt2-generate MODEL.ptx WEIGHTS.safetensors "
                         "PROMPT [NEW_TOKENS]\n");
    return 2;
  }
  try {
    int64_t newTokens = 64;
    if (argc == 5) {
      size_t used = 0;
      try {
        newTokens = std::stoll(argv[4], &used);
      } catch (const std::exception &) {
      }
      if (used != std::string(argv[4]).size() || newTokens < 1)
        throw UsageError(std::string("NEW_TOKENS must be a positive "
                                     "integer, got '") +
                         argv[4] + "'");
    }
    std::vector<std::vector<int64_t>> prompt = parsePrompt(argv[3]);
    Generator generator(argv[1], argv[2], /*device=*/0);
    double prefillMs = 0, decodeMs = 0;
    auto tokens = generator.generate(prompt, newTokens, prefillMs, decodeMs);
    for (const auto &row : tokens) {
      for (size_t i = 0; i < row.size(); ++i)
        std::printf("%s%lld", i ? " " : "", static_cast<long long>(row[i]));
      std::printf("\n");
    }
    std::fprintf(stderr,
                 "prefill %.3f ms, decode %.3f ms per token (%lld steps)\n",
                 prefillMs,
                 newTokens > 1 ? decodeMs / double(newTokens - 1) : 0.0,
                 static_cast<long long>(newTokens - 1));
    return 0;
  } catch (const UsageError &e) {
    std::fprintf(stderr, "gpt2-generate: error: %s\n", e.what());
    return 1;
  } catch (const fkrt::Error &e) {
    std::fprintf(stderr, "gpt2-generate: %s\n", e.what());
    return 1;
  }
}
