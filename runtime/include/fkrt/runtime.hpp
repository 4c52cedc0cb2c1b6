//===- fkrt/runtime.hpp - C++17 wrapper of the fkc runtime ------*- C++ -*-===//
//
// RAII ownership of fkrt_module and errors as exceptions, over the C API of
// fkrt/runtime.h. Header-only: it adds no symbols to the library.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_RUNTIME_HPP
#define FKRT_RUNTIME_HPP

#include "fkrt/runtime.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fkrt {

/// A failed runtime call: the status and fkrt_last_error()'s message.
class Error : public std::runtime_error {
public:
  Error(fkrt_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  fkrt_status status() const { return status_; }

private:
  fkrt_status status_;
};

/// Throws Error when `status` is not FKRT_SUCCESS.
inline void check(fkrt_status status) {
  if (status != FKRT_SUCCESS)
    throw Error(status, std::string(fkrt_status_string(status)) + ": " +
                            fkrt_last_error());
}

/// A graph input or output signature, copied out of the manifest.
struct TensorInfo {
  std::string name;
  fkrt_dtype dtype;
  std::vector<int64_t> shape;
  uint64_t bytes;
};

/// Owns an fkrt_module. Movable, not copyable.
class Module {
public:
  /// Loads and validates the artifact at `path` (no GPU needed).
  static Module fromFile(const std::string &path) {
    fkrt_module m = nullptr;
    check(fkrt_module_load_file(path.c_str(), &m));
    return Module(m);
  }

  /// Loads and validates an artifact held in memory (copied).
  static Module fromMemory(const void *data, size_t size) {
    fkrt_module m = nullptr;
    check(fkrt_module_load_memory(data, size, &m));
    return Module(m);
  }

  Module(Module &&other) noexcept : m_(std::exchange(other.m_, nullptr)) {}
  Module &operator=(Module &&other) noexcept {
    if (this != &other) {
      fkrt_module_destroy(m_);
      m_ = std::exchange(other.m_, nullptr);
    }
    return *this;
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
  ~Module() { fkrt_module_destroy(m_); }

  /// The underlying handle, still owned by this object.
  fkrt_module get() const { return m_; }

  /// JIT-loads the PTX on CUDA device `device`.
  void loadCuda(int device = 0) { check(fkrt_module_load_cuda(m_, device)); }

  std::string target() const { return fkrt_manifest_target(m_); }
  size_t graphCount() const { return fkrt_manifest_graph_count(m_); }
  std::string graphName(size_t graph) const {
    const char *name = fkrt_manifest_graph_name(m_, graph);
    if (!name)
      throw Error(FKRT_ERROR_INVALID_ARGUMENT,
                  "graph index " + std::to_string(graph) + " out of range");
    return name;
  }

  /// The index of the graph called `name`.
  size_t findGraph(const std::string &name) const {
    size_t graph = 0;
    check(fkrt_manifest_find_graph(m_, name.c_str(), &graph));
    return graph;
  }

  std::vector<TensorInfo> inputs(size_t graph) const {
    return tensors(graph, fkrt_manifest_input_count(m_, graph),
                   fkrt_manifest_input);
  }
  std::vector<TensorInfo> outputs(size_t graph) const {
    return tensors(graph, fkrt_manifest_output_count(m_, graph),
                   fkrt_manifest_output);
  }
  uint64_t workspaceBytes(size_t graph) const {
    return fkrt_manifest_workspace_bytes(m_, graph);
  }

  /// Enqueues graph `graph` on `stream` (a CUstream); see fkrt_run.
  void run(const std::string &graph, const std::vector<fkrt_tensor> &inputs,
           std::vector<fkrt_tensor> &outputs, void *stream = nullptr) const {
    check(fkrt_run(m_, graph.c_str(), inputs.data(), inputs.size(),
                   outputs.data(), outputs.size(), stream));
  }

private:
  explicit Module(fkrt_module m) : m_(m) {}

  using InfoFn = fkrt_status (*)(fkrt_module, size_t, size_t,
                                 fkrt_tensor_info *);
  std::vector<TensorInfo> tensors(size_t graph, size_t count,
                                  InfoFn info) const {
    std::vector<TensorInfo> result;
    for (size_t i = 0; i < count; ++i) {
      fkrt_tensor_info t;
      check(info(m_, graph, i, &t));
      result.push_back(
          {t.name, t.dtype, std::vector<int64_t>(t.shape, t.shape + t.rank),
           t.bytes});
    }
    return result;
  }

  fkrt_module m_;
};

} // namespace fkrt

#endif // FKRT_RUNTIME_HPP
