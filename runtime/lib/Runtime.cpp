//===- Runtime.cpp - The fkc runtime C API --------------------------------===//

#include "DtypeTable.h"
#include "fkrt/runtime.h"

#include "Cuda.h"
#include "GraphReplay.h"
#include "LaunchDependencies.h"
#include "Manifest.h"
#include "PersistentGrid.h"
#include "RunWorkspace.h"
#include "Status.h"
#include "WeightBinding.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>

using namespace fkrt;

namespace {

/// The status of a run whose driver call failed with `r`: out of device
/// memory is told apart, as the device API does.
fkrt_status runStatus(cu::Result r) {
  return r == cu::kErrorOutOfMemory ? FKRT_ERROR_OUT_OF_MEMORY
                                    : FKRT_ERROR_CUDA;
}

/// One workspace allocation and the event marking the end of the last run
/// that used it: a run taking the workspace makes its stream wait on that
/// event, so runs on different streams never overlap on one workspace.
struct Workspace {
  cu::DevicePtr base = 0;
  uint64_t bytes = 0;
  cu::Event done = nullptr;
};

} // namespace

struct fkrt_module_impl {
  std::string ptx;
  Manifest manifest;

  /// Guards loading and the workspace pool.
  std::mutex mutex;
  std::atomic<bool> loaded{false};
  const cu::Driver *driver = nullptr;
  cu::Device device = 0;
  /// The device's SMs: persistent kernels launch a block per SM
  /// (PersistentGrid.h).
  unsigned smCount = 0;
  cu::Context context = nullptr;
  cu::Module cuModule = nullptr;
  /// The resolved kernel of every launch, per graph.
  std::vector<std::vector<cu::Function>> functions;
  /// The largest workspace of any graph's runs (its buffers, then its
  /// tensor map descriptors) where the manifest knows it; every pooled
  /// workspace has at least that, and grows for runs that place buffers
  /// of their own sizes (RunWorkspace.h).
  uint64_t workspaceBytes = 0;
  /// Every workspace allocated, and those not in use by a run.
  std::vector<Workspace> workspaces;
  std::vector<size_t> idle;
  /// Runs replayed as CUDA graphs (fkrt_set_cuda_graphs).
  std::atomic<bool> cudaGraphs{true};
  /// Replays whose launches run at once where their memory allows
  /// (fkrt_set_concurrent_launches).
  std::atomic<bool> concurrentLaunches{true};
  GraphReplays replays;
  /// Per graph, per input: the device copy of its bound weight
  /// (fkrt_bind_weights), 0 if unbound; empty until a graph is bound.
  std::vector<std::vector<cu::DevicePtr>> bound;

  const GraphSpec *graph(size_t index) const {
    return index < manifest.graphs.size() ? &manifest.graphs[index] : nullptr;
  }

  /// Takes an idle workspace of at least `bytes`, allocating one when every
  /// workspace is in use, or growing an idle one when each is smaller. On
  /// failure the pool is as it was, less a workspace that could not grow;
  /// `where` names the run.
  fkrt_status acquire(size_t &slot, uint64_t bytes, const std::string &where) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!idle.empty()) {
      auto large = std::find_if(idle.begin(), idle.end(), [&](size_t i) {
        return workspaces[i].bytes >= bytes;
      });
      if (large == idle.end())
        large = idle.end() - 1;
      slot = *large;
      idle.erase(large);
      if (workspaces[slot].bytes >= bytes)
        return FKRT_SUCCESS;
      // Grown by half at least, so that runs of slowly rising sizes
      // reallocate only now and then. The old allocation goes once the run
      // that last used it is done.
      Workspace w = workspaces[slot];
      lock.unlock();
      uint64_t grown = std::max(bytes, w.bytes + w.bytes / 2);
      driver->eventSynchronize(w.done);
      if (w.base)
        driver->memFree(w.base);
      w.base = 0;
      w.bytes = 0;
      cu::Result r = driver->memAlloc(&w.base, grown);
      if (r == cu::kSuccess)
        w.bytes = grown;
      else if (grown > bytes && driver->memAlloc(&w.base, bytes) ==
                                    cu::kSuccess)
        w.bytes = bytes;
      lock.lock();
      workspaces[slot] = w;
      if (w.bytes)
        return FKRT_SUCCESS;
      // An empty workspace is still a slot, with its event.
      idle.push_back(slot);
      return fail(runStatus(r), where + ": growing a workspace to " +
                                    std::to_string(bytes) + " bytes: " +
                                    cu::describe(*driver, "cuMemAlloc", r));
    }
    Workspace w;
    w.bytes = std::max(bytes, workspaceBytes);
    cu::Result r = driver->memAlloc(&w.base, w.bytes);
    if (r != cu::kSuccess)
      return fail(runStatus(r),
                  where + ": allocating a workspace of " +
                      std::to_string(w.bytes) + " bytes" +
                      (workspaces.empty()
                           ? std::string()
                           : " (the module's " +
                                 std::to_string(workspaces.size()) +
                                 " are all in use)") +
                      ": " + cu::describe(*driver, "cuMemAlloc", r));
    r = driver->eventCreate(&w.done, cu::kEventDisableTiming);
    if (r != cu::kSuccess) {
      driver->memFree(w.base);
      return fail(runStatus(r),
                  where + ": " + cu::describe(*driver, "cuEventCreate", r));
    }
    workspaces.push_back(w);
    slot = workspaces.size() - 1;
    return FKRT_SUCCESS;
  }

  void release(size_t slot) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(slot);
  }

  void unloadCuda() {
    if (!driver || !context)
      return;
    {
      cu::ContextScope scope(*driver, context);
      replays.clear(*driver);
      for (const std::vector<cu::DevicePtr> &graph : bound)
        for (cu::DevicePtr p : graph)
          if (p)
            driver->memFree(p);
      for (Workspace &w : workspaces) {
        driver->eventSynchronize(w.done);
        driver->eventDestroy(w.done);
        if (w.base)
          driver->memFree(w.base);
      }
      if (cuModule)
        driver->moduleUnload(cuModule);
    }
    driver->devicePrimaryCtxRelease(device);
    workspaces.clear();
    idle.clear();
    bound.clear();
    functions.clear();
    cuModule = nullptr;
    context = nullptr;
    loaded = false;
  }
};

extern "C" {

const char *fkrt_status_string(fkrt_status status) {
  switch (status) {
  case FKRT_SUCCESS:
    return "success";
  case FKRT_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case FKRT_ERROR_IO:
    return "i/o error";
  case FKRT_ERROR_INVALID_ARTIFACT:
    return "invalid artifact";
  case FKRT_ERROR_UNSUPPORTED_VERSION:
    return "unsupported artifact version";
  case FKRT_ERROR_NOT_FOUND:
    return "not found";
  case FKRT_ERROR_NO_DRIVER:
    return "CUDA driver not available";
  case FKRT_ERROR_CUDA:
    return "CUDA error";
  case FKRT_ERROR_JIT:
    return "PTX JIT compilation failed";
  case FKRT_ERROR_NOT_LOADED:
    return "module not loaded on CUDA";
  case FKRT_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  }
  return "unknown status";
}

const char *fkrt_dtype_name(fkrt_dtype dtype) {
  return fkrt::detail::dtypeName(dtype);
}

size_t fkrt_dtype_size(fkrt_dtype dtype) {
  return fkrt::detail::dtypeSize(dtype);
}

fkrt_status fkrt_module_load_memory(const void *data, size_t size,
                                    fkrt_module *module) {
  return guarded([&] {
    if (!module)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_memory: module is null");
    *module = nullptr;
    if (!data && size)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_memory: data is null");
    if (size > kMaxArtifactBytes)
      return fail(FKRT_ERROR_INVALID_ARTIFACT,
                  "artifact: " + std::to_string(size) +
                      " bytes exceed the limit of " +
                      std::to_string(kMaxArtifactBytes));
    auto loaded = std::make_unique<fkrt_module_impl>();
    if (size)
      loaded->ptx.assign(static_cast<const char *>(data), size);
    std::string error;
    fkrt_status status = readManifest(loaded->ptx, loaded->manifest, error);
    if (status != FKRT_SUCCESS)
      return fail(status, error);
    for (const GraphSpec &g : loaded->manifest.graphs)
      loaded->workspaceBytes =
          std::max(loaded->workspaceBytes,
                   g.runWorkspaceBytes(g.workspaceBytes));
    *module = loaded.release();
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_module_load_file(const char *path, fkrt_module *module) {
  return guarded([&] {
    if (!module)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_file: module is null");
    *module = nullptr;
    if (!path)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_file: path is null");
    std::FILE *file = std::fopen(path, "rb");
    if (!file)
      return fail(FKRT_ERROR_IO, std::string(path) + ": cannot open: " +
                                     std::strerror(errno));
    std::string text;
    char buffer[1 << 16];
    size_t n;
    // Reading past the limit by one chunk is enough to reject the file.
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0 &&
           text.size() <= kMaxArtifactBytes)
      text.append(buffer, n);
    bool readError = std::ferror(file);
    std::fclose(file);
    if (readError)
      return fail(FKRT_ERROR_IO, std::string(path) + ": read error");
    fkrt_status status = fkrt_module_load_memory(text.data(), text.size(),
                                                 module);
    if (status != FKRT_SUCCESS)
      lastError() = std::string(path) + ": " + lastError();
    return status;
  });
}

fkrt_status fkrt_driver_available(void) {
  return guarded([] {
    std::string error;
    if (!cu::driver(error))
      return fail(FKRT_ERROR_NO_DRIVER, error);
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_module_load_cuda(fkrt_module m, int device) {
  return guarded([&] {
    if (!m)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_cuda: module is null");
    std::string error;
    const cu::Driver *d = cu::driver(error);
    if (!d)
      return fail(FKRT_ERROR_NO_DRIVER, error);
    std::lock_guard<std::mutex> lock(m->mutex);
    if (m->loaded)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_module_load_cuda: module already loaded");
    const std::string where = "fkrt_module_load_cuda: ";
    cu::Result r = d->init(0);
    if (r != cu::kSuccess)
      return fail(FKRT_ERROR_CUDA, where + cu::describe(*d, "cuInit", r));
    if ((r = d->deviceGet(&m->device, device)) != cu::kSuccess)
      return fail(FKRT_ERROR_CUDA, where + "device " + std::to_string(device) +
                                       ": " +
                                       cu::describe(*d, "cuDeviceGet", r));
    int sms = 0;
    if ((r = d->deviceGetAttribute(&sms, cu::kDeviceAttributeMultiprocessorCount,
                                   m->device)) != cu::kSuccess)
      return fail(FKRT_ERROR_CUDA,
                  where + "device " + std::to_string(device) + ": " +
                      cu::describe(*d, "cuDeviceGetAttribute", r));
    m->smCount = static_cast<unsigned>(std::max(sms, 0));
    if ((r = d->devicePrimaryCtxRetain(&m->context, m->device)) !=
        cu::kSuccess)
      return fail(FKRT_ERROR_CUDA,
                  where + cu::describe(*d, "cuDevicePrimaryCtxRetain", r));
    m->driver = d;
    // From here on, unloadCuda() undoes whatever part succeeded.
    cu::ContextScope scope(*d, m->context);
    if (!scope.ok()) {
      m->unloadCuda();
      return fail(FKRT_ERROR_CUDA, where + "cannot make the primary context "
                                           "of device " +
                                           std::to_string(device) + " current");
    }
    std::string infoLog(1 << 16, '\0'), errorLog(1 << 16, '\0');
    cu::JitOption options[] = {cu::kJitInfoLogBuffer,
                               cu::kJitInfoLogBufferSizeBytes,
                               cu::kJitErrorLogBuffer,
                               cu::kJitErrorLogBufferSizeBytes,
                               cu::kJitLogVerbose};
    void *values[] = {&infoLog[0],
                      reinterpret_cast<void *>(uintptr_t(infoLog.size())),
                      &errorLog[0],
                      reinterpret_cast<void *>(uintptr_t(errorLog.size())),
                      reinterpret_cast<void *>(uintptr_t(1))};
    r = d->moduleLoadDataEx(&m->cuModule, m->ptx.c_str(), 5, options, values);
    if (r != cu::kSuccess) {
      m->cuModule = nullptr;
      m->unloadCuda();
      std::string message = where + cu::describe(*d, "cuModuleLoadDataEx", r);
      errorLog.resize(std::strlen(errorLog.c_str()));
      infoLog.resize(std::strlen(infoLog.c_str()));
      if (!errorLog.empty())
        message += "\njit error log:\n" + errorLog;
      if (!infoLog.empty())
        message += "\njit info log:\n" + infoLog;
      return fail(FKRT_ERROR_JIT, message);
    }
    std::map<std::string, cu::Function> kernels;
    std::map<std::string, unsigned> maxShared;
    for (const GraphSpec &g : m->manifest.graphs)
      for (const LaunchSpec &l : g.launches)
        maxShared[l.kernel] = std::max(maxShared[l.kernel], l.sharedBytes);
    for (const auto &entry : maxShared) {
      cu::Function f;
      if ((r = d->moduleGetFunction(&f, m->cuModule, entry.first.c_str())) !=
          cu::kSuccess) {
        m->unloadCuda();
        return fail(FKRT_ERROR_CUDA, where + "kernel '" + entry.first + "': " +
                                         cu::describe(*d, "cuModuleGetFunction",
                                                      r));
      }
      // Dynamic shared memory beyond 48 KiB must be opted into per kernel.
      if (entry.second > 48 * 1024 &&
          (r = d->funcSetAttribute(
               f, cu::kFuncAttributeMaxDynamicSharedSizeBytes,
               static_cast<int>(entry.second))) != cu::kSuccess) {
        m->unloadCuda();
        return fail(FKRT_ERROR_CUDA,
                    where + "kernel '" + entry.first + "': " +
                        std::to_string(entry.second) +
                        " bytes of shared memory: " +
                        cu::describe(*d, "cuFuncSetAttribute", r));
      }
      kernels[entry.first] = f;
    }
    for (const GraphSpec &g : m->manifest.graphs) {
      m->functions.emplace_back();
      for (const LaunchSpec &l : g.launches)
        m->functions.back().push_back(kernels[l.kernel]);
    }
    m->loaded = true;
    return FKRT_SUCCESS;
  });
}

void fkrt_module_destroy(fkrt_module module) {
  if (!module)
    return;
  module->unloadCuda();
  delete module;
}

int fkrt_manifest_version(fkrt_module m) {
  return m ? m->manifest.version : 0;
}

const char *fkrt_manifest_target(fkrt_module m) {
  return m ? m->manifest.target.c_str() : nullptr;
}

int fkrt_manifest_allow_tf32(fkrt_module m) {
  return m && m->manifest.allowTf32 ? 1 : 0;
}

size_t fkrt_manifest_graph_count(fkrt_module m) {
  return m ? m->manifest.graphs.size() : 0;
}

const char *fkrt_manifest_graph_name(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->name.c_str() : nullptr;
}

fkrt_status fkrt_manifest_find_graph(fkrt_module m, const char *name,
                                     size_t *graph) {
  return guarded([&] {
    if (!m || !name || !graph)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_manifest_find_graph: null argument");
    for (size_t i = 0; i < m->manifest.graphs.size(); ++i)
      if (m->manifest.graphs[i].name == name) {
        *graph = i;
        return FKRT_SUCCESS;
      }
    return fail(FKRT_ERROR_NOT_FOUND,
                std::string("no graph named '") + name + "' in the artifact");
  });
}

size_t fkrt_manifest_input_count(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->inputs.size() : 0;
}

size_t fkrt_manifest_output_count(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->outputs.size() : 0;
}

static fkrt_status tensorInfo(const char *function, fkrt_module m,
                              size_t graph, size_t index, bool input,
                              fkrt_tensor_info *info) {
  return guarded([&] {
    if (!m || !info)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": null argument");
    const GraphSpec *g = m->graph(graph);
    if (!g)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": graph index " +
                      std::to_string(graph) + " out of range");
    const std::vector<TensorSpec> &list = input ? g->inputs : g->outputs;
    if (index >= list.size())
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": graph '" + g->name + "' has " +
                      std::to_string(list.size()) +
                      (input ? " inputs" : " outputs") + ", index " +
                      std::to_string(index) + " out of range");
    const TensorSpec &t = list[index];
    info->name = t.name.c_str();
    info->dtype = t.dtype;
    info->rank = static_cast<int32_t>(t.shape.size());
    info->shape = t.shape.data();
    info->bytes = t.bytes;
    return FKRT_SUCCESS;
  });
}

fkrt_status fkrt_manifest_input(fkrt_module m, size_t graph, size_t index,
                                fkrt_tensor_info *info) {
  return tensorInfo("fkrt_manifest_input", m, graph, index, true, info);
}

fkrt_status fkrt_manifest_output(fkrt_module m, size_t graph, size_t index,
                                 fkrt_tensor_info *info) {
  return tensorInfo("fkrt_manifest_output", m, graph, index, false, info);
}

int64_t fkrt_manifest_output_aliases(fkrt_module m, size_t graph,
                                     size_t index) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g && index < g->outputs.size() ? g->outputs[index].aliases : -1;
}

uint64_t fkrt_manifest_workspace_bytes(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->workspaceBytes : 0;
}

static const char *dimText(fkrt_module m, size_t graph, size_t index,
                           size_t axis, bool input) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  if (!g)
    return nullptr;
  const std::vector<TensorSpec> &list = input ? g->inputs : g->outputs;
  if (index >= list.size() || axis >= list[index].dims.size() ||
      list[index].dims[axis].isConstant())
    return nullptr;
  return list[index].dimTexts[axis].c_str();
}

const char *fkrt_manifest_input_dim(fkrt_module m, size_t graph, size_t index,
                                    size_t axis) {
  return dimText(m, graph, index, axis, true);
}

const char *fkrt_manifest_output_dim(fkrt_module m, size_t graph,
                                     size_t index, size_t axis) {
  return dimText(m, graph, index, axis, false);
}

size_t fkrt_manifest_symbol_count(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->symbols.size() : 0;
}

const char *fkrt_manifest_symbol_name(fkrt_module m, size_t graph,
                                      size_t symbol) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g && symbol < g->symbols.size() ? g->symbols[symbol].name.c_str()
                                         : nullptr;
}

int64_t fkrt_manifest_symbol_max(fkrt_module m, size_t graph, size_t symbol) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g && symbol < g->symbols.size() ? g->symbols[symbol].max : -1;
}

int64_t fkrt_manifest_symbol_min(fkrt_module m, size_t graph, size_t symbol) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g && symbol < g->symbols.size() ? g->symbols[symbol].min : -1;
}

size_t fkrt_manifest_launch_count(fkrt_module m, size_t graph) {
  const GraphSpec *g = m ? m->graph(graph) : nullptr;
  return g ? g->launches.size() : 0;
}

int fkrt_manifest_persistent_sm_count(fkrt_module m) {
  unsigned count = 0;
  if (m)
    for (const GraphSpec &g : m->manifest.graphs)
      for (const LaunchSpec &l : g.launches)
        count = std::max(count, l.persistentSmCount);
  return static_cast<int>(count);
}

} // extern "C"

namespace {

/// What one run of a graph is sized at: each symbol's value (from the
/// inputs' dimensions) and each input's and output's bytes.
struct RunSizes {
  std::vector<int64_t> symbols;
  std::vector<uint64_t> inputBytes, outputBytes;
  /// Where the run's workspace buffers and descriptors lie.
  RunWorkspace workspace;
  /// False until the symbols are bound: symbolic dimensions are checked
  /// only then.
  bool bound = false;
};

std::string describeTensor(const GraphSpec &g, bool output, size_t i) {
  const TensorSpec &spec = output ? g.outputs[i] : g.inputs[i];
  return std::string(output ? "output " : "input ") + std::to_string(i) +
         " ('" + spec.name + "')";
}

/// Where symbol `s` got its size, e.g. "S = 128 from input 0 ('x')
/// dimension 1".
std::string describeSymbol(const GraphSpec &g, const RunSizes &sizes,
                           size_t s) {
  const SymbolSpec &symbol = g.symbols[s];
  return symbol.name + " = " + std::to_string(sizes.symbols[s]) + " from " +
         describeTensor(g, false, symbol.input) + " dimension " +
         std::to_string(symbol.axis);
}

/// Names a run argument in messages, e.g. "fkrt_run: graph 'mlp' input 0
/// ('x')": built only when one is reported, since a run checks every
/// tensor of a model (hundreds of weights) each time.
struct ArgumentName {
  const std::string &where;
  const char *role;
  size_t index;
  const std::string &name;
  std::string str() const {
    return where + " " + role + " " + std::to_string(index) + " ('" + name +
           "')";
  }
};

/// Checks one run argument against its manifest signature. Symbolic
/// dimensions are checked once `sizes` is bound.
fkrt_status checkTensor(const fkrt_tensor &t, const TensorSpec &spec,
                        const GraphSpec &g, const RunSizes &sizes,
                        const ArgumentName &what) {
  if (t.dtype < FKRT_F32 || t.dtype > FKRT_I64)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what.str() + ": unknown dtype " + std::to_string(t.dtype));
  fkrt_dtype dtype = static_cast<fkrt_dtype>(t.dtype);
  if (!t.data)
    return fail(FKRT_ERROR_INVALID_ARGUMENT, what.str() + ": data is null");
  // fkc's kernels read and write 16 bytes at a time where shapes allow.
  if (reinterpret_cast<uintptr_t>(t.data) % kTensorAlignment)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what.str() + ": data is not aligned to " +
                    std::to_string(kTensorAlignment) + " bytes");
  if (dtype != spec.dtype)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what.str() + ": expected dtype " + fkrt_dtype_name(spec.dtype) +
                    ", got " + fkrt_dtype_name(dtype));
  if (t.rank != static_cast<int32_t>(spec.shape.size()))
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what.str() + ": expected rank " + std::to_string(spec.shape.size()) +
                    ", got " + std::to_string(t.rank));
  if (t.rank && !t.shape)
    return fail(FKRT_ERROR_INVALID_ARGUMENT, what.str() + ": shape is null");
  for (int32_t i = 0; i < t.rank; ++i) {
    const Monomial &dim = spec.dims[i];
    if (dim.isConstant()) {
      if (t.shape[i] != spec.shape[i])
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    what.str() + ": dimension " + std::to_string(i) + " is " +
                        std::to_string(t.shape[i]) + ", expected " +
                        std::to_string(spec.shape[i]));
      continue;
    }
    if (t.shape[i] < 0)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  what.str() + ": dimension " + std::to_string(i) + " is " +
                      std::to_string(t.shape[i]) + ", not a size");
    if (!sizes.bound)
      continue;
    int64_t expected = 0;
    bool known = dim.evaluate(sizes.symbols, expected);
    if (known && t.shape[i] == expected)
      continue;
    std::string from;
    std::vector<size_t> seen;
    for (size_t symbol : dim.symbols) {
      if (std::find(seen.begin(), seen.end(), symbol) != seen.end())
        continue;
      seen.push_back(symbol);
      from += (from.empty() ? "" : ", ") + describeSymbol(g, sizes, symbol);
    }
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what.str() + ": dimension " + std::to_string(i) + " is " +
                    std::to_string(t.shape[i]) + ", expected " +
                    spec.dimTexts[i] +
                    (known ? " = " + std::to_string(expected)
                           : std::string(" (more than 2^63)")) +
                    " (" + from + ")");
  }
  return FKRT_SUCCESS;
}

/// Gives each symbol of `g` its size from the inputs (already checked for
/// rank) and checks it against its bounds.
fkrt_status bindSymbols(const GraphSpec &g, const fkrt_tensor *inputs,
                        RunSizes &sizes, const std::string &where) {
  sizes.symbols.assign(g.symbols.size(), 0);
  for (size_t s = 0; s < g.symbols.size(); ++s) {
    const SymbolSpec &symbol = g.symbols[s];
    int64_t size = inputs[symbol.input].shape[symbol.axis];
    sizes.symbols[s] = size;
    const char *outside = symbol.max >= 0 && size > symbol.max
                              ? ", above its bound "
                          : size < symbol.min ? ", below its lower bound "
                                              : nullptr;
    if (outside)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  where + " " + describeTensor(g, false, symbol.input) +
                      " dimension " + std::to_string(symbol.axis) +
                      " makes " + symbol.name + " " + std::to_string(size) +
                      outside +
                      std::to_string(size > symbol.max && symbol.max >= 0
                                         ? symbol.max
                                         : symbol.min));
  }
  sizes.bound = true;
  return FKRT_SUCCESS;
}

/// Checks a run's inputs and gives the graph's symbols their sizes.
fkrt_status checkInputs(const GraphSpec &g, const fkrt_tensor *inputs,
                        size_t num_inputs, RunSizes &sizes,
                        const std::string &where);

/// The bytes of each tensor of `tensors` (checked against `specs`).
fkrt_status tensorBytes(const fkrt_tensor *tensors,
                        const std::vector<TensorSpec> &specs, bool output,
                        const GraphSpec &g, std::vector<uint64_t> &bytes,
                        const std::string &where) {
  bytes.assign(specs.size(), 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].symbolic) {
      bytes[i] = specs[i].bytes;
      continue;
    }
    int64_t total = static_cast<int64_t>(fkrt_dtype_size(specs[i].dtype));
    for (int32_t d = 0; d < tensors[i].rank; ++d)
      if (__builtin_mul_overflow(total, tensors[i].shape[d], &total))
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    where + " " + describeTensor(g, output, i) +
                        ": its size overflows 64 bits");
    bytes[i] = static_cast<uint64_t>(total);
  }
  return FKRT_SUCCESS;
}

/// Checks each of `tensors` against `specs`, or with `onlySymbolic` those
/// whose shape is symbolic (inputs checked again once `sizes` is bound).
fkrt_status checkTensors(const char *role, const fkrt_tensor *tensors,
                         size_t count, const std::vector<TensorSpec> &specs,
                         const GraphSpec &g, const RunSizes &sizes,
                         const std::string &where,
                         bool onlySymbolic = false) {
  if (count != specs.size())
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                where + " takes " + std::to_string(specs.size()) + " " + role +
                    "s, got " + std::to_string(count));
  if (count && !tensors)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                where + ": " + role + "s array is null");
  for (size_t i = 0; i < count; ++i) {
    if (onlySymbolic && !specs[i].symbolic)
      continue;
    fkrt_status status = checkTensor(tensors[i], specs[i], g, sizes,
                                     ArgumentName{where, role, i,
                                                  specs[i].name});
    if (status != FKRT_SUCCESS)
      return status;
  }
  return FKRT_SUCCESS;
}

fkrt_status checkInputs(const GraphSpec &g, const fkrt_tensor *inputs,
                        size_t num_inputs, RunSizes &sizes,
                        const std::string &where) {
  fkrt_status status;
  if ((status = checkTensors("input", inputs, num_inputs, g.inputs, g, sizes,
                             where)) != FKRT_SUCCESS ||
      (status = bindSymbols(g, inputs, sizes, where)) != FKRT_SUCCESS)
    return status;
  // Now the symbolic dimensions.
  return g.symbols.empty()
             ? FKRT_SUCCESS
             : checkTensors("input", inputs, num_inputs, g.inputs, g, sizes,
                            where, /*onlySymbolic=*/true);
}

/// Checks that outputs share memory only as the manifest says: an output
/// aliasing an input (an inout parameter's new value) is passed exactly that
/// input's buffer; otherwise no output's bytes overlap another input's or
/// output's (a kernel would read what another writes). Empty tensors have no
/// bytes to overlap.
fkrt_status checkAliasing(const GraphSpec &g, const fkrt_tensor *inputs,
                          const fkrt_tensor *outputs, const RunSizes &sizes,
                          const std::string &where) {
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const TensorSpec &spec = g.outputs[o];
    uintptr_t begin = reinterpret_cast<uintptr_t>(outputs[o].data);
    if (spec.aliases >= 0 && outputs[o].data != inputs[spec.aliases].data)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  where + " " + describeTensor(g, true, o) +
                      " is the new value of inout " +
                      describeTensor(g, false, spec.aliases) +
                      ", written in place: pass it that input's buffer");
    uint64_t bytes = sizes.outputBytes[o];
    if (bytes == 0)
      continue;
    // Against every input and every other output.
    for (int pass = 0; pass < 2; ++pass) {
      bool output = pass == 1;
      const std::vector<uint64_t> &others =
          output ? sizes.outputBytes : sizes.inputBytes;
      for (size_t t = 0; t < others.size(); ++t) {
        if ((output && t == o) ||
            (!output && static_cast<int64_t>(t) == spec.aliases) ||
            others[t] == 0)
          continue;
        uintptr_t other =
            reinterpret_cast<uintptr_t>((output ? outputs : inputs)[t].data);
        if (begin < other + others[t] && other < begin + bytes)
          return fail(FKRT_ERROR_INVALID_ARGUMENT,
                      where + " " + describeTensor(g, true, o) + " overlaps " +
                          describeTensor(g, output, t) +
                          ": only an inout parameter's new value may share "
                          "its input's buffer");
      }
    }
  }
  return FKRT_SUCCESS;
}

/// The bytes of buffer `b` in a run: an input's or output's at the run's
/// sizes, a workspace buffer's reserve (or its bytes at the run's sizes).
uint64_t bufferBytes(const BufferSpec &b, const RunSizes &sizes) {
  return b.kind == BufferSpec::Input    ? sizes.inputBytes[b.index]
         : b.kind == BufferSpec::Output ? sizes.outputBytes[b.index]
                                        : sizes.workspace.size(b);
}

/// The device address of buffer `b` in a run.
cu::DevicePtr bufferAddress(const BufferSpec &b, const fkrt_tensor *inputs,
                            const fkrt_tensor *outputs,
                            cu::DevicePtr workspace, const RunSizes &sizes) {
  return b.kind == BufferSpec::Input
             ? reinterpret_cast<uintptr_t>(inputs[b.index].data)
         : b.kind == BufferSpec::Output
             ? reinterpret_cast<uintptr_t>(outputs[b.index].data)
             : workspace + sizes.workspace.offset(b);
}

/// A launch as one run makes it: its grid at the run's sizes (skipped where
/// it has no blocks) and its integer arguments' values.
struct RunLaunch {
  unsigned grid[3] = {1, 1, 1};
  bool skipped = false;
  /// Per argument: the value of an I64 or I32 one.
  std::vector<int64_t> values;
};

/// A tensor map as one run encodes it: its extents at the run's sizes. A
/// skipped launch's map is neither checked nor encoded (its descriptor is
/// zeros): nothing reads it, and at sizes of 0 it could not be encoded.
struct RunTensorMap {
  uint64_t dims[kMaxTensorMapRank] = {};
  uint64_t strides[kMaxTensorMapRank - 1] = {};
  bool skipped = false;
};

/// What one run of a graph sized per run (GraphSpec::sizedAtRun) launches:
/// each launch and each tensor map at the run's sizes. Empty for a static
/// graph, whose launches and maps are the manifest's.
struct RunPlan {
  std::vector<RunLaunch> launches;
  std::vector<RunTensorMap> maps;
};

/// Encodes every tensor map of `g` for this run's buffer addresses (and
/// extents, from `plan` where the graph is sized per run), in the order of
/// GraphSpec::tensorMaps (that of their slots in the workspace).
fkrt_status encodeTensorMaps(const cu::Driver &d, const GraphSpec &g,
                             const fkrt_tensor *inputs,
                             const fkrt_tensor *outputs,
                             cu::DevicePtr workspace, const RunSizes &sizes,
                             const RunPlan &plan,
                             std::vector<cu::TensorMap> &maps,
                             const std::string &where) {
  maps.assign(g.tensorMaps.size(), cu::TensorMap());
  for (size_t i = 0; i < g.tensorMaps.size(); ++i) {
    const TensorMapSpec &t = g.tensorMaps[i];
    const RunTensorMap *run = plan.maps.empty() ? nullptr : &plan.maps[i];
    if (run && run->skipped)
      continue;
    cu::TensorMapDataType dtype =
        t.dtype == FKRT_F16    ? cu::kTensorMapDataTypeFloat16
        : t.dtype == FKRT_BF16 ? cu::kTensorMapDataTypeBfloat16
                               : cu::kTensorMapDataTypeFloat32;
    int swizzle = t.swizzle == 32    ? cu::kTensorMapSwizzle32B
                  : t.swizzle == 64  ? cu::kTensorMapSwizzle64B
                  : t.swizzle == 128 ? cu::kTensorMapSwizzle128B
                                     : cu::kTensorMapSwizzleNone;
    const uint32_t elementStrides[kMaxTensorMapRank] = {1, 1, 1, 1, 1};
    cu::DevicePtr address =
        bufferAddress(g.buffers[t.buffer], inputs, outputs, workspace, sizes);
    cu::Result r = d.tensorMapEncodeTiled(
        &maps[i], dtype, t.rank, reinterpret_cast<void *>(address),
        run ? run->dims : t.dims, run ? run->strides : t.strides, t.box,
        elementStrides, cu::kTensorMapInterleaveNone, swizzle,
        cu::kTensorMapL2Promotion128B, cu::kTensorMapFloatOobFillNone);
    if (r != cu::kSuccess)
      return fail(FKRT_ERROR_CUDA,
                  where + " launch " + std::to_string(t.launch) + " (kernel '" +
                      g.launches[t.launch].kernel + "') argument " +
                      std::to_string(t.arg) + " (tensor map): " +
                      cu::describe(d, "cuTensorMapEncodeTiled", r));
  }
  return FKRT_SUCCESS;
}

/// Computes tensor map `t` at the run's sizes, checking what the manifest
/// could not check without them (R39, R40, R43); `what` names its launch
/// and argument.
fkrt_status planTensorMap(const GraphSpec &g, const TensorMapSpec &t,
                          const RunSizes &sizes, RunTensorMap &run,
                          const std::function<std::string()> &what) {
  if (!t.sizedAtRun) {
    std::copy(t.dims, t.dims + t.rank, run.dims);
    std::copy(t.strides, t.strides + t.rank - 1, run.strides);
    return FKRT_SUCCESS;
  }
  // Dim or stride `i` as cuTensorMapEncodeTiled takes it.
  auto compute = [&](bool dim, unsigned i, uint64_t &out) {
    auto failure = [&](const std::string &why) {
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  what() + ": " + (dim ? "dims[" : "strides[") +
                      std::to_string(i) + "]" + why);
    };
    int64_t v = 0;
    if (!(dim ? t.dimSizes : t.strideSizes)[i].evaluate(sizes.symbols, v))
      return failure(" cannot be computed at these sizes (it overflows)");
    if (dim && v == 0)
      return failure(" is 0 at these sizes: a tensor map cannot be empty, "
                     "and the launch is not skipped (its grid has blocks)");
    if (dim ? (v < 1 || v > kMaxTensorMapDim)
            : (v < 16 || v >= kTensorMapStrideLimit))
      return failure(" is " + std::to_string(v) + " at these sizes, outside " +
                     (dim ? "[1, 4294967296]" : "[16, 2^40)"));
    if (!dim && v % 16 != 0)
      return failure(" is " + std::to_string(v) +
                     " at these sizes, not a multiple of 16");
    out = static_cast<uint64_t>(v);
    return FKRT_SUCCESS;
  };
  for (unsigned i = 0; i < t.rank; ++i)
    if (fkrt_status status = compute(true, i, run.dims[i]))
      return status;
  for (unsigned i = 0; i + 1 < t.rank; ++i)
    if (fkrt_status status = compute(false, i, run.strides[i]))
      return status;
  const BufferSpec &b = g.buffers[t.buffer];
  uint64_t bytes = bufferBytes(b, sizes);
  uint64_t reach = 0;
  bool fits = tensorMapReach(t.rank, run.dims, run.strides,
                             fkrt_dtype_size(t.dtype), reach);
  if (!fits || reach > bytes)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                what() + ": at these sizes " +
                    tensorMapReachError(fits, reach, bytes, b.id));
  return FKRT_SUCCESS;
}

/// Computes every launch and tensor map of `g` (a graph sized per run) at
/// the run's sizes, checking what the manifest could not check without
/// them: grids within CUDA's limits, sizes within the kernels' limits
/// (R63), i32 arguments within 32 bits, tensor
/// maps as R39, R40 and R43 require (docs/artifact.md, "Symbols"). A static
/// graph needs no plan: its launches are the manifest's.
fkrt_status planLaunches(const GraphSpec &g, const RunSizes &sizes,
                         RunPlan &plan, const std::string &where) {
  plan.launches.assign(g.launches.size(), RunLaunch());
  plan.maps.assign(g.tensorMaps.size(), RunTensorMap());
  for (size_t li = 0; li < g.launches.size(); ++li) {
    const LaunchSpec &l = g.launches[li];
    RunLaunch &run = plan.launches[li];
    // (Built only for a message: a run plans every launch.)
    auto what = [&] {
      return where + " launch " + std::to_string(li) + " (kernel '" +
             l.kernel + "')";
    };
    for (int d = 0; d < 3; ++d) {
      if (!l.sizedAtRun) {
        run.grid[d] = l.grid[d];
        continue;
      }
      int64_t v = 0;
      const char *axis = d == 0 ? "x" : d == 1 ? "y" : "z";
      if (!l.gridSizes[d].evaluate(sizes.symbols, v))
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    what() + ": grid " + axis +
                        " cannot be computed at these sizes (it overflows)");
      if (v < 0 || v > kGridLimits[d])
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    what() + ": grid " + axis + " is " + std::to_string(v) +
                        " at these sizes, outside CUDA's [0, " +
                        std::to_string(kGridLimits[d]) + "]");
      run.skipped |= v == 0;
      run.grid[d] = static_cast<unsigned>(v);
    }
    // R63: the sizes its kernel takes, where it runs.
    for (const LaunchSpec::SizeLimit &limit : l.limits) {
      int64_t v = 0;
      bool computed = limit.size.evaluate(sizes.symbols, v);
      if (run.skipped || (computed && v <= limit.max))
        continue;
      std::string takes = std::to_string(limit.max) + " its kernel takes";
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  what() + ": " + limit.text +
                      (computed ? " is " + std::to_string(v) +
                                      " at these sizes, above the " + takes
                                : " overflows 64 bits at these sizes (at "
                                  "most the " +
                                      takes + ")"));
    }
    run.values.assign(l.args.size(), 0);
    for (size_t ai = 0; ai < l.args.size(); ++ai) {
      const ArgSpec &a = l.args[ai];
      if (a.kind == ArgSpec::TensorMap) {
        RunTensorMap &map = plan.maps[a.tensorMap];
        map.skipped = run.skipped;
        if (fkrt_status status =
                run.skipped ? FKRT_SUCCESS
                            : planTensorMap(g, g.tensorMaps[a.tensorMap],
                                            sizes, map,
                                            [&] {
                                              return what() + " argument " +
                                                     std::to_string(ai) +
                                                     " (tensor map)";
                                            }))
          return status;
        continue;
      }
      run.values[ai] = a.value;
      if (!a.sizedAtRun)
        continue;
      auto arg = [&] { return what() + " argument " + std::to_string(ai); };
      if (!a.size.evaluate(sizes.symbols, run.values[ai]))
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    arg() + " cannot be computed at these sizes (it overflows)");
      if (a.kind == ArgSpec::I32 &&
          (run.values[ai] < INT32_MIN || run.values[ai] > INT32_MAX))
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    arg() + " is " + std::to_string(run.values[ai]) +
                        " at these sizes, outside the i32 it is passed as");
    }
  }
  return FKRT_SUCCESS;
}

/// The launches of graph `gi` that a run makes (as `plan` makes them, for a
/// graph sized per run), with workspace base `workspace` (0 when the graph
/// needs none): launches without blocks are left out.
std::vector<ReplayLaunch> prepareLaunches(fkrt_module m, size_t gi,
                                          const fkrt_tensor *inputs,
                                          const fkrt_tensor *outputs,
                                          const RunSizes &sizes,
                                          const RunPlan &plan,
                                          cu::DevicePtr workspace) {
  const GraphSpec &g = m->manifest.graphs[gi];
  const cu::DevicePtr descriptors =
      workspace + sizes.workspace.descriptorOffset;
  std::vector<ReplayLaunch> launches;
  for (size_t li = 0; li < g.launches.size(); ++li) {
    const LaunchSpec &l = g.launches[li];
    const RunLaunch *run =
        plan.launches.empty() ? nullptr : &plan.launches[li];
    if (run && run->skipped)
      continue;
    ReplayLaunch launch;
    launch.index = li;
    launch.function = m->functions[gi][li];
    const unsigned *grid = run ? run->grid : l.grid;
    std::copy(grid, grid + 3, launch.grid);
    // A persistent kernel's grid follows this device's SMs (R64).
    launch.grid[0] = getPersistentBlocks(grid[0], l.persistentSmCount,
                                         l.clusterBlocks, m->smCount);
    std::copy(l.block, l.block + 3, launch.block);
    launch.sharedBytes = l.sharedBytes;
    // Each argument gets an 8-byte slot; the driver copies as many bytes as
    // the kernel's parameter takes, so an i32 sits at its slot's start.
    launch.arguments.assign(l.args.size(), 0);
    for (size_t ai = 0; ai < l.args.size(); ++ai) {
      const ArgSpec &a = l.args[ai];
      uint64_t &slot = launch.arguments[ai];
      if (a.kind == ArgSpec::I32) {
        int32_t v = static_cast<int32_t>(run ? run->values[ai] : a.value);
        std::memcpy(&slot, &v, sizeof(v));
      } else if (a.kind == ArgSpec::I64) {
        const int64_t &v = run ? run->values[ai] : a.value;
        std::memcpy(&slot, &v, sizeof(v));
      } else if (a.kind == ArgSpec::TensorMap) {
        cu::DevicePtr p = descriptors + kTensorMapBytes * a.tensorMap;
        std::memcpy(&slot, &p, sizeof(p));
      } else {
        cu::DevicePtr p = bufferAddress(g.buffers[a.buffer], inputs, outputs,
                                        workspace, sizes);
        std::memcpy(&slot, &p, sizeof(p));
      }
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}

/// Enqueues every launch of graph `gi` (as prepareLaunches makes them) on
/// `stream`, one after the other, with workspace base `workspace`, whose
/// tensor map descriptors are already in place.
fkrt_status enqueue(fkrt_module m, size_t gi, const fkrt_tensor *inputs,
                    const fkrt_tensor *outputs, const RunSizes &sizes,
                    const RunPlan &plan, cu::DevicePtr workspace,
                    cu::Stream stream, const std::string &where) {
  const GraphSpec &g = m->manifest.graphs[gi];
  std::vector<ReplayLaunch> launches =
      prepareLaunches(m, gi, inputs, outputs, sizes, plan, workspace);
  for (ReplayLaunch &l : launches) {
    std::vector<void *> params = l.parameters();
    cu::Result r = m->driver->launchKernel(
        l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
        l.block[2], l.sharedBytes, stream,
        params.empty() ? nullptr : params.data(), nullptr);
    if (r != cu::kSuccess)
      return fail(runStatus(r),
                  where + " launch " + std::to_string(l.index) + " (kernel '" +
                      g.launches[l.index].kernel + "'): " +
                      cu::describe(*m->driver, "cuLaunchKernel", r));
  }
  return FKRT_SUCCESS;
}

/// The device memory each of `launches` (of graph `g`) touches in a run:
/// the bytes of every buffer it passes, by itself or through a tensor map,
/// marked written where the manifest says the kernel may write through
/// that argument.
std::vector<std::vector<MemoryAccess>>
getMemoryAccesses(const GraphSpec &g, const std::vector<ReplayLaunch> &launches,
                  const fkrt_tensor *inputs, const fkrt_tensor *outputs,
                  const RunSizes &sizes, cu::DevicePtr workspace) {
  std::vector<std::vector<MemoryAccess>> accesses;
  for (const ReplayLaunch &launch : launches) {
    const LaunchSpec &l = g.launches[launch.index];
    std::vector<MemoryAccess> &mine = accesses.emplace_back();
    for (size_t ai = 0; ai < l.args.size(); ++ai) {
      const BufferSpec *b = g.bufferOf(l.args[ai]);
      if (!b)
        continue;
      MemoryAccess access;
      access.begin = bufferAddress(*b, inputs, outputs, workspace, sizes);
      access.end = access.begin + bufferBytes(*b, sizes);
      access.write = l.writes[ai];
      mine.push_back(access);
    }
  }
  return accesses;
}

/// The replay of a run of graph `gi`: its graph, sizes and buffer
/// addresses.
ReplayKey replayKey(size_t gi, const fkrt_tensor *inputs,
                    const fkrt_tensor *outputs, const GraphSpec &g,
                    const RunSizes &sizes) {
  ReplayKey key;
  key.graph = gi;
  key.sizes = sizes.symbols;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    key.addresses.push_back(reinterpret_cast<uintptr_t>(inputs[i].data));
  for (size_t i = 0; i < g.outputs.size(); ++i)
    key.addresses.push_back(reinterpret_cast<uintptr_t>(outputs[i].data));
  return key;
}

/// How a replay of graph `gi` records this run's work: the tensor maps
/// written into its workspace, then the launches, both as `plan` makes them.
/// (The replay is keyed by the run's sizes, on which the plan depends, and
/// its addresses, so its descriptors are never another run's.)
GraphReplays::Recorder recorder(fkrt_module m, size_t gi,
                                const fkrt_tensor *inputs,
                                const fkrt_tensor *outputs,
                                const RunPlan &plan, const RunSizes &sizes,
                                const std::string &where) {
  GraphReplays::Recorder r;
  r.prepare = [=, &plan, &sizes](cu::DevicePtr workspace) {
    const GraphSpec &g = m->manifest.graphs[gi];
    std::vector<cu::TensorMap> maps;
    if (fkrt_status status =
            encodeTensorMaps(*m->driver, g, inputs, outputs, workspace, sizes,
                             plan, maps, where);
        status != FKRT_SUCCESS || maps.empty())
      return status;
    cu::Result result = m->driver->memcpyHtoD(
        workspace + sizes.workspace.descriptorOffset, maps.data(),
        maps.size() * sizeof(cu::TensorMap));
    // From pageable memory the copy may return before it lands, and the
    // replay may run on a stream that does not wait for the legacy one.
    const char *call = "cuMemcpyHtoD";
    if (result == cu::kSuccess) {
      call = "cuCtxSynchronize";
      result = m->driver->ctxSynchronize();
    }
    if (result != cu::kSuccess)
      return fail(runStatus(result),
                  where + ": copying " + std::to_string(maps.size()) +
                      " tensor maps: " +
                      cu::describe(*m->driver, call, result));
    return FKRT_SUCCESS;
  };
  r.record = [=, &plan, &sizes](cu::DevicePtr workspace,
                                std::vector<ReplayLaunch> &launches) {
    const GraphSpec &g = m->manifest.graphs[gi];
    launches =
        prepareLaunches(m, gi, inputs, outputs, sizes, plan, workspace);
    if (!m->concurrentLaunches) {
      for (size_t i = 1; i < launches.size(); ++i)
        launches[i].waitsFor = {i - 1};
      return FKRT_SUCCESS;
    }
    std::vector<std::vector<size_t>> waits = getLaunchDependencies(
        getMemoryAccesses(g, launches, inputs, outputs, sizes, workspace));
    for (size_t i = 0; i < launches.size(); ++i)
      launches[i].waitsFor = std::move(waits[i]);
    return FKRT_SUCCESS;
  };
  return r;
}

} // namespace

extern "C" fkrt_status fkrt_set_cuda_graphs(fkrt_module m, int enabled) {
  return guarded([&] {
    if (!m)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_set_cuda_graphs: module is null");
    m->cudaGraphs = enabled != 0;
    if (!enabled && m->loaded) {
      // Their workspaces are no longer needed.
      cu::ContextScope scope(*m->driver, m->context);
      m->replays.clear(*m->driver);
    }
    return FKRT_SUCCESS;
  });
}

extern "C" int fkrt_cuda_graphs(fkrt_module m) {
  return m && m->cudaGraphs ? 1 : 0;
}

extern "C" fkrt_status fkrt_set_concurrent_launches(fkrt_module m,
                                                    int enabled) {
  return guarded([&] {
    if (!m)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_set_concurrent_launches: module is null");
    if (m->concurrentLaunches.exchange(enabled != 0) != (enabled != 0) &&
        m->loaded) {
      // The replays held were built in the other order.
      cu::ContextScope scope(*m->driver, m->context);
      m->replays.clear(*m->driver);
    }
    return FKRT_SUCCESS;
  });
}

extern "C" int fkrt_concurrent_launches(fkrt_module m) {
  return m && m->concurrentLaunches ? 1 : 0;
}

extern "C" size_t fkrt_cuda_graph_count(fkrt_module m) {
  return m ? m->replays.size() : 0;
}

/// Finds graph `graph_name` of `m` for the entry point `api`: a null module
/// or name is FKRT_ERROR_INVALID_ARGUMENT, an unknown name
/// FKRT_ERROR_NOT_FOUND, each with its message.
static fkrt_status findGraph(fkrt_module m, const char *graph_name,
                             const char *api, size_t &gi) {
  if (!m || !graph_name)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                std::string(api) + ": " + (m ? "graph_name" : "module") +
                    " is null");
  if (fkrt_manifest_find_graph(m, graph_name, &gi) != FKRT_SUCCESS)
    return fail(FKRT_ERROR_NOT_FOUND, std::string(api) + ": " + lastError());
  return FKRT_SUCCESS;
}

extern "C" fkrt_status fkrt_run(fkrt_module m, const char *graph_name,
                                const fkrt_tensor *inputs, size_t num_inputs,
                                fkrt_tensor *outputs, size_t num_outputs,
                                void *stream) {
  return guarded([&] {
    size_t gi;
    if (fkrt_status status = findGraph(m, graph_name, "fkrt_run", gi))
      return status;
    const GraphSpec &g = m->manifest.graphs[gi];
    std::string where = "fkrt_run: graph '" + g.name + "'";
    RunSizes sizes;
    fkrt_status status;
    if ((status = checkInputs(g, inputs, num_inputs, sizes, where)) !=
            FKRT_SUCCESS ||
        (status = checkTensors("output", outputs, num_outputs, g.outputs, g,
                               sizes, where)) != FKRT_SUCCESS ||
        (status = tensorBytes(inputs, g.inputs, false, g, sizes.inputBytes,
                              where)) != FKRT_SUCCESS ||
        (status = tensorBytes(outputs, g.outputs, true, g, sizes.outputBytes,
                              where)) != FKRT_SUCCESS ||
        (status = checkAliasing(g, inputs, outputs, sizes, where)) !=
            FKRT_SUCCESS ||
        (status = layOutRunWorkspace(g, sizes.symbols, sizes.workspace,
                                     where)) != FKRT_SUCCESS)
      return status;
    // A graph sized at run time is planned at the run's sizes, except where
    // a replay captured for them (and these addresses) is held: it was
    // planned and checked then, and planning hundreds of launches would
    // cost the host more than the replay. The plan is made if the replay
    // is gone by the time it runs.
    bool replayable = m->cudaGraphs && g.launches.size() > 1;
    ReplayKey key;
    if (replayable)
      key = replayKey(gi, inputs, outputs, g, sizes);
    RunPlan plan;
    bool planned = !g.sizedAtRun;
    auto ensurePlan = [&]() -> fkrt_status {
      if (planned)
        return FKRT_SUCCESS;
      planned = true;
      return planLaunches(g, sizes, plan, where);
    };
    if (!(replayable && m->replays.holds(key)) &&
        (status = ensurePlan()) != FKRT_SUCCESS)
      return status;
    std::string error;
    const cu::Driver *d = cu::driver(error);
    if (!d)
      return fail(FKRT_ERROR_NO_DRIVER, "fkrt_run: " + error);
    if (!m->loaded)
      return fail(FKRT_ERROR_NOT_LOADED,
                  "fkrt_run: the module is not loaded on CUDA "
                  "(call fkrt_module_load_cuda first)");
    cu::ContextScope scope(*d, m->context);
    if (!scope.ok())
      return fail(FKRT_ERROR_CUDA,
                  where + ": cannot make the module's context current");
    if (!g.tensorMaps.empty() && !d->tensorMapEncodeTiled)
      return fail(FKRT_ERROR_NO_DRIVER,
                  where + ": its tensor maps need cuTensorMapEncodeTiled, "
                          "which the CUDA driver library libcuda.so.1 lacks "
                          "(a driver for CUDA 12.0 or later has it)");
    // A run whose sizes leave every launch without blocks does nothing.
    if (!plan.launches.empty() &&
        std::all_of(plan.launches.begin(), plan.launches.end(),
                    [](const RunLaunch &l) { return l.skipped; }))
      return FKRT_SUCCESS;
    cu::Stream s = static_cast<cu::Stream>(stream);
    // One launch gains nothing from a graph.
    if (replayable) {
      bool replayed;
      GraphReplays::Recorder record =
          recorder(m, gi, inputs, outputs, plan, sizes, where);
      auto prepare = record.prepare;
      record.prepare = [&, prepare](cu::DevicePtr workspace) {
        fkrt_status planStatus = ensurePlan();
        return planStatus != FKRT_SUCCESS ? planStatus : prepare(workspace);
      };
      status = m->replays.run(*d, key, sizes.workspace.totalBytes, record, s,
                              where, replayed);
      if (replayed || status != FKRT_SUCCESS)
        return status;
    }
    if ((status = ensurePlan()) != FKRT_SUCCESS)
      return status;
    if (!sizes.workspace.totalBytes)
      return enqueue(m, gi, inputs, outputs, sizes, plan, 0, s, where);
    size_t slot;
    if ((status = m->acquire(slot, sizes.workspace.totalBytes, where)) !=
        FKRT_SUCCESS)
      return status;
    // Copy the handles under the lock: other runs may grow the vector.
    Workspace w;
    {
      std::lock_guard<std::mutex> lock(m->mutex);
      w = m->workspaces[slot];
    }
    // The descriptors hold this run's addresses, so they are encoded per
    // run. Nothing is enqueued yet on failure: the workspace's event still
    // marks its last use.
    std::vector<cu::TensorMap> maps;
    if ((status = encodeTensorMaps(*d, g, inputs, outputs, w.base, sizes,
                                   plan, maps, where)) != FKRT_SUCCESS) {
      m->release(slot);
      return status;
    }
    // The copy is enqueued after the wait, so it cannot overwrite
    // descriptors the workspace's previous run still reads. From pageable
    // memory it returns once `maps` is staged, so `maps` may then go.
    cu::Result r = d->streamWaitEvent(s, w.done, 0);
    if (r != cu::kSuccess) {
      status = fail(runStatus(r),
                    where + ": " + cu::describe(*d, "cuStreamWaitEvent", r));
    } else if (!maps.empty() &&
               (r = d->memcpyHtoDAsync(
                    w.base + sizes.workspace.descriptorOffset, maps.data(),
                    maps.size() * sizeof(cu::TensorMap), s)) != cu::kSuccess) {
      status =
          fail(runStatus(r),
               where + ": copying " + std::to_string(maps.size()) +
                   " tensor maps: " + cu::describe(*d, "cuMemcpyHtoDAsync", r));
    } else {
      status = enqueue(m, gi, inputs, outputs, sizes, plan, w.base, s, where);
    }
    // Record even after a failed launch: what was enqueued still uses it.
    r = d->eventRecord(w.done, s);
    if (r != cu::kSuccess) {
      // The workspace's last use cannot be tracked; leave it out of the pool
      // rather than risk two runs sharing it.
      return fail(runStatus(r),
                  where + ": " + cu::describe(*d, "cuEventRecord", r));
    }
    m->release(slot);
    return status;
  });
}

extern "C" fkrt_status fkrt_output_shape(fkrt_module m,
                                         const char *graph_name,
                                         const fkrt_tensor *inputs,
                                         size_t num_inputs, size_t index,
                                         int64_t *shape) {
  return guarded([&] {
    size_t gi;
    if (fkrt_status status = findGraph(m, graph_name, "fkrt_output_shape", gi))
      return status;
    const GraphSpec &g = m->manifest.graphs[gi];
    std::string where = "fkrt_output_shape: graph '" + g.name + "'";
    if (index >= g.outputs.size())
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  where + " has " + std::to_string(g.outputs.size()) +
                      " outputs, index " + std::to_string(index) +
                      " out of range");
    const TensorSpec &spec = g.outputs[index];
    if (!shape && !spec.dims.empty())
      return fail(FKRT_ERROR_INVALID_ARGUMENT, where + ": shape is null");
    RunSizes sizes;
    if (fkrt_status status = checkInputs(g, inputs, num_inputs, sizes, where);
        status != FKRT_SUCCESS)
      return status;
    for (size_t d = 0; d < spec.dims.size(); ++d)
      if (!spec.dims[d].evaluate(sizes.symbols, shape[d]))
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    where + " " + describeTensor(g, true, index) +
                        ": dimension " + std::to_string(d) + " (" +
                        spec.dimTexts[d] + ") overflows 64 bits");
    return FKRT_SUCCESS;
  });
}

extern "C" fkrt_status fkrt_bind_weights(fkrt_module m, const char *graph_name,
                                         const char *path) {
  return guarded([&] {
    if (m && graph_name && !path)
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_bind_weights: path is null");
    size_t gi;
    if (fkrt_status status = findGraph(m, graph_name, "fkrt_bind_weights", gi))
      return status;
    const GraphSpec &g = m->manifest.graphs[gi];
    const std::string where = "fkrt_bind_weights: ";
    if (std::FILE *file = std::fopen(path, "rb"))
      std::fclose(file);
    else
      return fail(FKRT_ERROR_IO, where + path + ": cannot open: " +
                                     std::strerror(errno));
    safetensors::File weights;
    std::string error;
    if (!safetensors::read(path, weights, error))
      return fail(FKRT_ERROR_INVALID_ARGUMENT, where + error);
    // m->bound has a list per graph once any graph is bound, empty for the
    // graphs not bound yet.
    std::vector<bool> isBound(g.inputs.size(), false);
    if (gi < m->bound.size())
      for (size_t i = 0; i < m->bound[gi].size(); ++i)
        isBound[i] = m->bound[gi][i] != 0;
    std::vector<int64_t> tensorOf;
    error = matchWeights(g, isBound, weights, tensorOf);
    if (!error.empty())
      return fail(FKRT_ERROR_INVALID_ARGUMENT, where + path + ": " + error);
    const cu::Driver *d = cu::driver(error);
    if (!d)
      return fail(FKRT_ERROR_NO_DRIVER, where + error);
    if (!m->loaded)
      return fail(FKRT_ERROR_NOT_LOADED,
                  where + "the module is not loaded on CUDA (call "
                          "fkrt_module_load_cuda first)");
    cu::ContextScope scope(*d, m->context);
    if (!scope.ok())
      return fail(FKRT_ERROR_CUDA,
                  where + "cannot make the module's context current");
    // Every tensor is uploaded before any is bound, so that a failure
    // leaves the module as it was.
    std::vector<cu::DevicePtr> copies(g.inputs.size(), 0);
    auto release = [&] {
      for (cu::DevicePtr p : copies)
        if (p)
          d->memFree(p);
    };
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      if (tensorOf[i] < 0)
        continue;
      const std::vector<uint8_t> &data = weights.tensors[tensorOf[i]].data;
      // An empty tensor still needs a valid, aligned address.
      cu::Result r = d->memAlloc(&copies[i], std::max<size_t>(data.size(), 1));
      if (r == cu::kSuccess && !data.empty())
        r = d->memcpyHtoD(copies[i], data.data(), data.size());
      if (r != cu::kSuccess) {
        release();
        return fail(runStatus(r),
                    where + "graph '" + g.name + "' input '" +
                        g.inputs[i].name + "' (" +
                        std::to_string(data.size()) + " bytes): " +
                        cu::describe(*d, "cuMemAlloc or cuMemcpyHtoD", r));
      }
    }
    std::lock_guard<std::mutex> lock(m->mutex);
    if (m->bound.size() < m->manifest.graphs.size())
      m->bound.resize(m->manifest.graphs.size());
    m->bound[gi].resize(g.inputs.size(), 0);
    for (size_t i = 0; i < g.inputs.size(); ++i)
      if (copies[i])
        m->bound[gi][i] = copies[i];
    return FKRT_SUCCESS;
  });
}

extern "C" int fkrt_input_bound(fkrt_module m, size_t graph, size_t index) {
  return m && graph < m->bound.size() && index < m->bound[graph].size() &&
                 m->bound[graph][index]
             ? 1
             : 0;
}

extern "C" fkrt_status fkrt_run_bound(fkrt_module m, const char *graph_name,
                                      const fkrt_tensor *inputs,
                                      size_t num_inputs, fkrt_tensor *outputs,
                                      size_t num_outputs, void *stream) {
  return guarded([&] {
    size_t gi;
    if (fkrt_status status = findGraph(m, graph_name, "fkrt_run_bound", gi))
      return status;
    const GraphSpec &g = m->manifest.graphs[gi];
    if (gi >= m->bound.size() || m->bound[gi].empty())
      return fkrt_run(m, graph_name, inputs, num_inputs, outputs, num_outputs,
                      stream);
    // All the graph's inputs: the bound ones from the module, the others
    // from the caller, in order.
    std::vector<fkrt_tensor> all;
    std::string unbound;
    size_t next = 0;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const TensorSpec &spec = g.inputs[i];
      if (cu::DevicePtr p = m->bound[gi][i]) {
        all.push_back({reinterpret_cast<void *>(p),
                       static_cast<int32_t>(spec.dtype),
                       static_cast<int32_t>(spec.shape.size()),
                       spec.shape.data()});
        continue;
      }
      unbound += (unbound.empty() ? "'" : ", '") + spec.name + "'";
      if (next < num_inputs && inputs)
        all.push_back(inputs[next]);
      ++next;
    }
    if (num_inputs != next || (num_inputs && !inputs))
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  "fkrt_run_bound: graph '" + g.name + "' takes " +
                      std::to_string(next) + " inputs besides its bound ones" +
                      (next ? " (" + unbound + ")" : std::string()) +
                      ", got " + std::to_string(num_inputs) +
                      (num_inputs && !inputs ? " and a null array" : ""));
    return fkrt_run(m, graph_name, all.data(), all.size(), outputs,
                    num_outputs, stream);
  });
}
