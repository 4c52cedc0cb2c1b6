//===- Cuda.cpp - The CUDA driver API, loaded at run time -----------------===//

#include "Cuda.h"

#include <dlfcn.h>
#include <mutex>
#include <type_traits>

using namespace fkrt;
using namespace fkrt::cu;

namespace {

struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string error;
};

template <typename F> bool resolve(void *library, const char *name, F &out,
                                   std::string &error) {
  void *symbol = dlsym(library, name);
  if (!symbol) {
    error = std::string("CUDA driver library libcuda.so.1 lacks ") + name +
            " (driver too old?)";
    return false;
  }
  out = reinterpret_cast<F>(symbol);
  return true;
}

/// Resolves the first of `name` and `fallback` that the library has: for an
/// entry point whose versioned name is newer than some supported drivers.
template <typename F>
bool resolve(void *library, const char *name, const char *fallback, F &out,
             std::string &error) {
  if (void *symbol = dlsym(library, name)) {
    out = reinterpret_cast<F>(symbol);
    return true;
  }
  return resolve(library, fallback, out, error);
}

void load(Loaded &l) {
  // The library stays open for the life of the process: modules may outlive
  // any one caller, and unloading a driver is never safe.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    l.error = std::string("CUDA driver library libcuda.so.1 not found: ") +
              (why ? why : "unknown dlopen error");
    return;
  }
  Driver &d = l.driver;
  std::string &e = l.error;
  l.ok = resolve(library, "cuInit", d.init, e) &&
         resolve(library, "cuDeviceGet", d.deviceGet, e) &&
         resolve(library, "cuDeviceGetCount", d.deviceGetCount, e) &&
         resolve(library, "cuDeviceGetName", d.deviceGetName, e) &&
         resolve(library, "cuDeviceGetAttribute", d.deviceGetAttribute, e) &&
         resolve(library, "cuDevicePrimaryCtxRetain", d.devicePrimaryCtxRetain,
                 e) &&
         resolve(library, "cuDevicePrimaryCtxRelease_v2",
                 d.devicePrimaryCtxRelease, e) &&
         resolve(library, "cuCtxPushCurrent_v2", d.ctxPushCurrent, e) &&
         resolve(library, "cuCtxPopCurrent_v2", d.ctxPopCurrent, e) &&
         resolve(library, "cuModuleLoadDataEx", d.moduleLoadDataEx, e) &&
         resolve(library, "cuModuleUnload", d.moduleUnload, e) &&
         resolve(library, "cuModuleGetFunction", d.moduleGetFunction, e) &&
         resolve(library, "cuFuncSetAttribute", d.funcSetAttribute, e) &&
         resolve(library, "cuMemAlloc_v2", d.memAlloc, e) &&
         resolve(library, "cuMemFree_v2", d.memFree, e) &&
         resolve(library, "cuMemcpyHtoD_v2", d.memcpyHtoD, e) &&
         resolve(library, "cuMemcpyDtoH_v2", d.memcpyDtoH, e) &&
         resolve(library, "cuMemcpyHtoDAsync_v2", d.memcpyHtoDAsync, e) &&
         resolve(library, "cuMemsetD8Async", d.memsetD8Async, e) &&
         resolve(library, "cuCtxSynchronize", d.ctxSynchronize, e) &&
         resolve(library, "cuEventCreate", d.eventCreate, e) &&
         resolve(library, "cuEventDestroy_v2", d.eventDestroy, e) &&
         resolve(library, "cuEventRecord", d.eventRecord, e) &&
         resolve(library, "cuEventSynchronize", d.eventSynchronize, e) &&
         // CUDA 12.8 renamed cuEventElapsedTime to a _v2 of the same
         // signature; older drivers have only the first.
         resolve(library, "cuEventElapsedTime_v2", "cuEventElapsedTime",
                 d.eventElapsedTime, e) &&
         resolve(library, "cuStreamWaitEvent", d.streamWaitEvent, e) &&
         resolve(library, "cuLaunchKernel", d.launchKernel, e) &&
         resolve(library, "cuGetErrorName", d.getErrorName, e) &&
         resolve(library, "cuGetErrorString", d.getErrorString, e);
  // Optional: fkrt_run reports its absence to the graphs that need it.
  d.tensorMapEncodeTiled = reinterpret_cast<decltype(d.tensorMapEncodeTiled)>(
      dlsym(library, "cuTensorMapEncodeTiled"));
  auto optional = [library](const char *name, auto &out) {
    out = reinterpret_cast<std::remove_reference_t<decltype(out)>>(
        dlsym(library, name));
  };
  optional("cuGraphCreate", d.graphCreate);
  optional("cuGraphAddKernelNode_v2", d.graphAddKernelNode);
  optional("cuGraphInstantiateWithFlags", d.graphInstantiateWithFlags);
  optional("cuGraphDestroy", d.graphDestroy);
  optional("cuGraphExecDestroy", d.graphExecDestroy);
  optional("cuGraphLaunch", d.graphLaunch);
}

} // namespace

const Driver *fkrt::cu::driver(std::string &error) {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] { load(loaded); });
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

std::string fkrt::cu::describe(const Driver &d, const char *call,
                               Result result) {
  const char *name = nullptr, *text = nullptr;
  d.getErrorName(result, &name);
  d.getErrorString(result, &text);
  return std::string(call) + " failed: " +
         (name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(" (") + text + ")" : std::string());
}
