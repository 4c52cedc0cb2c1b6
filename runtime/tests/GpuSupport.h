//===- GpuSupport.h - driver access shared by the GPU test files ----------===//
//
// fkrt-gpu-tests is built from gpu_tests.cpp and gpu_load_tests.cpp. Both
// manage device memory and streams themselves, through the few driver calls
// declared here (opened with dlopen, like the runtime), and run bodies on
// several threads with streams of their own.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_TESTS_GPUSUPPORT_H
#define FKRT_TESTS_GPUSUPPORT_H

#include "TestSupport.h"
#include "fkrt/runtime.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace fkrt_test {

/// The driver calls the tests need to manage memory and streams themselves.
struct Cuda {
  using Ptr = unsigned long long;
  int (*init)(unsigned);
  int (*deviceGet)(int *, int);
  int (*primaryCtxRetain)(void **, int);
  int (*ctxSetCurrent)(void *);
  int (*memAlloc)(Ptr *, size_t);
  int (*memFree)(Ptr);
  int (*memcpyHtoD)(Ptr, const void *, size_t);
  int (*memcpyDtoH)(void *, Ptr, size_t);
  int (*streamCreate)(void **, unsigned);
  int (*streamSynchronize)(void *);
  int (*streamDestroy)(void *);
  /// Optional: null when the driver predates CUDA 12.0.
  int (*tensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                              const uint64_t *, const uint32_t *,
                              const uint32_t *, int, int, int, int) = nullptr;
  void *context = nullptr;

  /// Resolves the calls, initialises CUDA and makes device 0's primary
  /// context current on the calling thread.
  bool load() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
      return false;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, name));
      return fn != nullptr;
    };
    int dev;
    get(tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
    return get(init, "cuInit") && get(deviceGet, "cuDeviceGet") &&
           get(primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           get(ctxSetCurrent, "cuCtxSetCurrent") &&
           get(memAlloc, "cuMemAlloc_v2") && get(memFree, "cuMemFree_v2") &&
           get(memcpyHtoD, "cuMemcpyHtoD_v2") &&
           get(memcpyDtoH, "cuMemcpyDtoH_v2") &&
           get(streamCreate, "cuStreamCreate") &&
           get(streamSynchronize, "cuStreamSynchronize") &&
           get(streamDestroy, "cuStreamDestroy_v2") && init(0) == 0 &&
           deviceGet(&dev, 0) == 0 && primaryCtxRetain(&context, dev) == 0 &&
           ctxSetCurrent(context) == 0;
  }
};

inline Cuda cuda;

/// cuStreamCreate's CU_STREAM_NON_BLOCKING: no implicit synchronisation
/// with the legacy default stream.
constexpr unsigned kStreamNonBlocking = 1;

/// Runs `body(t, stream)` on `threads` threads at once, each with a stream
/// of its own (non-blocking) and device 0's primary context current, and
/// checks that every one returns true. The bodies must not use CHECK: the
/// counts are not atomic.
inline void onStreamsOfTheirOwn(int threads,
                                const std::function<bool(int, void *)> &body) {
  std::vector<std::thread> running;
  std::vector<int> ok(threads, 0);
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      // The test's own allocations need the context current on this thread;
      // fkrt_run does not.
      void *stream = nullptr;
      if (cuda.ctxSetCurrent(cuda.context) ||
          cuda.streamCreate(&stream, kStreamNonBlocking)) {
        std::printf("thread %d: cannot make the context current or create "
                    "a stream\n",
                    t);
        return;
      }
      ok[t] = body(t, stream);
      if (!ok[t])
        std::printf("thread %d failed; its last fkrt error: %s\n", t,
                    fkrt_last_error());
      cuda.streamDestroy(stream);
    });
  for (std::thread &t : running)
    t.join();
  for (int o : ok)
    CHECK(o);
}

/// The tests of gpu_load_tests.cpp: one module from many threads, many
/// modules at once, runs that fail midway; with `outOfMemory`, also a run
/// that finds the device's memory exhausted.
void runLoadTests(const std::string &dataDir, bool outOfMemory);

} // namespace fkrt_test

#endif // FKRT_TESTS_GPUSUPPORT_H
