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
// its launches as a CUDA graph.
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

std::string describe(const fkrt::TensorInfo &t) {
  std::string s = std::string(fkrt_dtype_name(t.dtype)) + "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
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
    // fkrt::TensorInfo gives a symbolic dimension as -1.
    if (in.shape[0] < 0 || in.shape[1] < 0)
      throw UsageError("graph '" + name +
                       "': its batch or prompt length is sized at run time; "
                       "this loop runs artifacts of static sizes (generate.py "
                       "runs both)");
    if (out.dtype != FKRT_I64 || out.shape != std::vector<int64_t>{batch(), 1})
      throw UsageError("graph '" + name + "': next is " + describe(out) +
                       ", expected i64[" + std::to_string(batch()) + ", 1]");
    // Every other input must be bound by the weights file.
    for (size_t i = 0; i < inputs.size(); ++i)
      if (i != ids && int64_t(i) != pos && !cacheOutput.count(i) &&
          !inputs[i].bound)
        throw UsageError("graph '" + name + "': input '" + inputs[i].name +
                         "' is not in the weights file");
  }

  int64_t batch() const { return inputs[ids].shape[0]; }
  int64_t tokens() const { return inputs[ids].shape[1]; }
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
    if (prefill_.batch() != decode_.batch())
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
      caches_.emplace(t.name, fkrt::DeviceBuffer(device, t.bytes));
    }
    if (caches_.size() != decode_.cacheOutput.size())
      throw UsageError("decode has caches that prefill has not");
    prompt_ = fkrt::DeviceBuffer(device, prefill_.inputs[prefill_.ids].bytes);
    ids_ = fkrt::DeviceBuffer(device, decode_.inputs[decode_.ids].bytes);
    pos_ = fkrt::DeviceBuffer(device, 4);
  }

  /// [B][newTokens] ids after `prompt`; the milliseconds of the prefill
  /// and of the decode steps in `prefillMs`, `decodeMs`.
  std::vector<std::vector<int64_t>>
  generate(const std::vector<std::vector<int64_t>> &prompt, int64_t newTokens,
           double &prefillMs, double &decodeMs) {
    const Step &p = prefill_;
    if (int64_t(prompt.size()) != p.batch() ||
        int64_t(prompt[0].size()) != p.tokens())
      throw UsageError("the prompt is [" + std::to_string(prompt.size()) +
                       ", " + std::to_string(prompt[0].size()) +
                       "] tokens; the prefill graph takes [" +
                       std::to_string(p.batch()) + ", " +
                       std::to_string(p.tokens()) + "] (recompile for others)");
    int64_t vocabulary = p.outputs[p.logits].shape.back();
    for (const auto &row : prompt)
      for (int64_t id : row)
        if (id < 0 || id >= vocabulary)
          throw UsageError("the prompt's ids must lie in [0, " +
                           std::to_string(vocabulary) +
                           ") (the logits' last axis)");
    int64_t longest = p.tokens() + newTokens - 1;
    for (const auto &entry : p.cacheOutput) {
      const fkrt::TensorInfo &t = p.inputs[entry.first];
      if (t.shape.size() < 2 || t.shape[t.shape.size() - 2] < longest)
        throw UsageError("cache '" + t.name + "' (" + describe(t) +
                         ") does not hold " + std::to_string(longest) +
                         " positions on its second-last axis");
    }
    for (auto &entry : caches_)
      entry.second.fill(0);
    std::vector<int64_t> flat;
    for (const auto &row : prompt)
      flat.insert(flat.end(), row.begin(), row.end());
    prompt_.copyFrom(flat.data());

    size_t batch = size_t(p.batch());
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
      int32_t position = int32_t(p.tokens() + i - 1);
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
        results.emplace_back(t.aliases >= 0 ? fkrt::DeviceBuffer()
                                            : fkrt::DeviceBuffer(device_,
                                                                 t.bytes));
    std::vector<fkrt_tensor> inputs, outputs;
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const fkrt::TensorInfo &t = step.inputs[i];
      if (t.bound)
        continue;
      const fkrt::DeviceBuffer &buffer =
          i == step.ids ? (step.pos < 0 ? prompt_ : ids_)
          : int64_t(i) == step.pos ? pos_
                                   : caches_.at(t.name);
      inputs.push_back(buffer.tensor(t.dtype, t.shape));
    }
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      const fkrt::TensorInfo &t = step.outputs[j];
      const fkrt::DeviceBuffer &buffer =
          t.aliases >= 0 ? caches_.at(step.inputs[size_t(t.aliases)].name)
                         : results[j];
      outputs.push_back(buffer.tensor(t.dtype, t.shape));
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
