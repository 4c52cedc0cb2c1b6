//===- fkrt/runtime.hpp - C++17 wrapper of the fkc runtime ------*- C++ -*-===//
//
// RAII ownership of modules, device buffers and events, and errors as
// exceptions, over the C API of fkrt/runtime.h. Header-only: it adds no
// symbols to the library.
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
  /// -1 for a symbolic dimension, whose size each run gives.
  std::vector<int64_t> shape;
  /// 0 if a dimension is symbolic.
  uint64_t bytes;
  /// For an output written into an input's buffer (an inout parameter's
  /// new value): that input's index; -1 otherwise.
  int64_t aliases = -1;
  /// For an input: whether a weight is bound to it (Module::bindWeights),
  /// so that run() does not take it.
  bool bound = false;
  /// Per dimension: the manifest's text of a symbolic one ("B*S"), "" for a
  /// static one.
  std::vector<std::string> symbolicDims;
};

/// A symbol of a graph (artifact version 4): a size each run takes from
/// its inputs' dimensions.
struct Symbol {
  std::string name;
  /// The largest size a run may give it; -1 if unbounded.
  int64_t max;
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
  /// Whether f32 matmuls may run on TF32 tensor cores (fkc --allow-tf32).
  bool allowTf32() const { return fkrt_manifest_allow_tf32(m_) != 0; }
  /// The SM count its persistent kernels were sized for; 0 if none.
  int persistentSmCount() const {
    return fkrt_manifest_persistent_sm_count(m_);
  }
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

  /// The symbols of graph `graph`, in manifest order (none if its shapes
  /// are static).
  std::vector<Symbol> symbols(size_t graph) const {
    std::vector<Symbol> result;
    for (size_t s = 0, n = fkrt_manifest_symbol_count(m_, graph); s < n; ++s)
      result.push_back({fkrt_manifest_symbol_name(m_, graph, s),
                        fkrt_manifest_symbol_max(m_, graph, s)});
    return result;
  }

  /// The shape of output `index` of graph `graph` for a run with `inputs`,
  /// which are those run() takes; they are checked as run() checks them
  /// (see fkrt_output_shape). Needs no GPU.
  std::vector<int64_t> outputShape(const std::string &graph,
                                   const std::vector<fkrt_tensor> &inputs,
                                   size_t index) const {
    size_t g = findGraph(graph);
    std::vector<TensorInfo> infos = this->inputs(g);
    size_t unbound = 0;
    for (const TensorInfo &t : infos)
      unbound += !t.bound;
    if (inputs.size() != unbound)
      throw Error(FKRT_ERROR_INVALID_ARGUMENT,
                  "outputShape: graph '" + graph + "' takes " +
                      std::to_string(unbound) +
                      (unbound < infos.size() ? " inputs besides its bound "
                                                "ones, got "
                                              : " inputs, got ") +
                      std::to_string(inputs.size()));
    // fkrt_output_shape takes every input of the graph: a bound one is
    // given by its signature, at an aligned stand-in address (only shapes
    // are read, but addresses are checked as fkrt_run checks them).
    std::vector<fkrt_tensor> all;
    auto given = inputs.begin();
    for (const TensorInfo &t : infos) {
      if (t.bound)
        all.push_back({reinterpret_cast<void *>(uintptr_t(256)), t.dtype,
                       static_cast<int32_t>(t.shape.size()), t.shape.data()});
      else
        all.push_back(*given++);
    }
    // Out of range, fkrt_output_shape says so.
    fkrt_tensor_info out{};
    if (fkrt_manifest_output(m_, g, index, &out) != FKRT_SUCCESS)
      out.rank = 0;
    std::vector<int64_t> shape(out.rank);
    check(fkrt_output_shape(m_, graph.c_str(), all.data(), all.size(), index,
                            shape.data()));
    return shape;
  }

  uint64_t workspaceBytes(size_t graph) const {
    return fkrt_manifest_workspace_bytes(m_, graph);
  }
  size_t launchCount(size_t graph) const {
    return fkrt_manifest_launch_count(m_, graph);
  }

  /// Whether runs replay their launches as CUDA graphs; see
  /// fkrt_set_cuda_graphs.
  void setCudaGraphs(bool enabled) {
    check(fkrt_set_cuda_graphs(m_, enabled ? 1 : 0));
  }
  bool cudaGraphs() const { return fkrt_cuda_graphs(m_) != 0; }
  /// Whether replays run launches at once where their memory allows; see
  /// fkrt_set_concurrent_launches.
  void setConcurrentLaunches(bool enabled) {
    check(fkrt_set_concurrent_launches(m_, enabled ? 1 : 0));
  }
  bool concurrentLaunches() const {
    return fkrt_concurrent_launches(m_) != 0;
  }
  size_t cudaGraphCount() const { return fkrt_cuda_graph_count(m_); }

  /// Binds the tensors of the .safetensors file at `path` to inputs of
  /// graph `graph` by name and uploads them once; see fkrt_bind_weights.
  void bindWeights(const std::string &graph, const std::string &path) {
    check(fkrt_bind_weights(m_, graph.c_str(), path.c_str()));
  }

  /// Enqueues graph `graph` on `stream` (a CUstream): `inputs` are the
  /// graph's inputs but those bound with bindWeights (all of them when none
  /// is); see fkrt_run and fkrt_run_bound.
  void run(const std::string &graph, const std::vector<fkrt_tensor> &inputs,
           std::vector<fkrt_tensor> &outputs, void *stream = nullptr) const {
    check(fkrt_run_bound(m_, graph.c_str(), inputs.data(), inputs.size(),
                         outputs.data(), outputs.size(), stream));
  }

private:
  explicit Module(fkrt_module m) : m_(m) {}

  using InfoFn = fkrt_status (*)(fkrt_module, size_t, size_t,
                                 fkrt_tensor_info *);
  std::vector<TensorInfo> tensors(size_t graph, size_t count,
                                  InfoFn info) const {
    bool output = info == fkrt_manifest_output;
    std::vector<TensorInfo> result;
    for (size_t i = 0; i < count; ++i) {
      fkrt_tensor_info t;
      check(info(m_, graph, i, &t));
      std::vector<std::string> dims;
      for (int32_t d = 0; d < t.rank; ++d) {
        const char *text = (output ? fkrt_manifest_output_dim
                                   : fkrt_manifest_input_dim)(m_, graph, i, d);
        dims.push_back(text ? text : "");
      }
      result.push_back(
          {t.name, t.dtype, std::vector<int64_t>(t.shape, t.shape + t.rank),
           t.bytes, output ? fkrt_manifest_output_aliases(m_, graph, i) : -1,
           !output && fkrt_input_bound(m_, graph, i), std::move(dims)});
    }
    return result;
  }

  fkrt_module m_;
};

/// Device memory from fkrt_device_alloc, freed on destruction. Movable, not
/// copyable.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates `bytes` on device `device` (0 bytes gives a minimal,
  /// valid allocation).
  DeviceBuffer(int device, size_t bytes) : device_(device), bytes_(bytes) {
    check(fkrt_device_alloc(device, bytes, &data_));
  }
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : device_(other.device_), bytes_(std::exchange(other.bytes_, 0)),
        data_(std::exchange(other.data_, nullptr)) {}
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      fkrt_device_free(device_, data_);
      device_ = other.device_;
      bytes_ = std::exchange(other.bytes_, 0);
      data_ = std::exchange(other.data_, nullptr);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { fkrt_device_free(device_, data_); }

  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  int device() const { return device_; }

  /// Copies bytes() bytes from `host` (synchronous).
  void copyFrom(const void *host) {
    check(fkrt_device_copy_to_device(device_, data_, host, bytes_));
  }
  /// Copies bytes() bytes to `host` (synchronous).
  void copyTo(void *host) const {
    check(fkrt_device_copy_to_host(device_, host, data_, bytes_));
  }
  /// Enqueues setting every byte to `value` on `stream`.
  void fill(uint8_t value, void *stream = nullptr) {
    check(fkrt_device_fill(device_, data_, value, bytes_, stream));
  }

  /// A run argument viewing this buffer as a tensor of `dtype` and `shape`
  /// (which must outlive the tensor).
  fkrt_tensor tensor(fkrt_dtype dtype,
                     const std::vector<int64_t> &shape) const {
    return {data_, dtype, static_cast<int32_t>(shape.size()), shape.data()};
  }

private:
  int device_ = 0;
  size_t bytes_ = 0;
  void *data_ = nullptr;
};

/// A timing event from fkrt_event_create. Movable, not copyable.
class Event {
public:
  explicit Event(int device) { check(fkrt_event_create(device, &e_)); }
  Event(Event &&other) noexcept : e_(std::exchange(other.e_, nullptr)) {}
  Event &operator=(Event &&other) noexcept {
    if (this != &other) {
      fkrt_event_destroy(e_);
      e_ = std::exchange(other.e_, nullptr);
    }
    return *this;
  }
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event() { fkrt_event_destroy(e_); }

  void record(void *stream = nullptr) { check(fkrt_event_record(e_, stream)); }

  /// Milliseconds from `start` to this event; waits for this event.
  float elapsedSince(const Event &start) const {
    float ms = 0;
    check(fkrt_event_elapsed_ms(start.e_, e_, &ms));
    return ms;
  }

private:
  fkrt_event e_ = nullptr;
};

/// Waits for all work on device `device`.
inline void synchronize(int device = 0) {
  check(fkrt_device_synchronize(device));
}

/// The number of CUDA devices.
inline int deviceCount() {
  int count = 0;
  check(fkrt_device_count(&count));
  return count;
}

/// The name of device `device`.
inline std::string deviceName(int device = 0) {
  char name[256];
  check(fkrt_device_name(device, name, sizeof(name)));
  return name;
}

/// The SMs of device `device`.
inline int deviceSmCount(int device = 0) {
  int count = 0;
  check(fkrt_device_sm_count(device, &count));
  return count;
}

} // namespace fkrt

#endif // FKRT_RUNTIME_HPP
