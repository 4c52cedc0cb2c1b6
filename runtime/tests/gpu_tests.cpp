//===- gpu_tests.cpp - fkrt tests on a CUDA device ------------------------===//
//
// JIT-loads tests/data/add.ptx and runs it: results, concurrent runs from
// several threads on several streams sharing the workspace pool, the JIT
// error log, a failing kernel attribute. Without a CUDA driver it says so and
// passes vacuously. Prints "N passed, M failed" last.
//
// Usage: fkrt-gpu-tests [DATA_DIR]
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "fkrt/runtime.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {


/// The driver calls the test needs to manage memory and streams itself.
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
  void *context = nullptr;

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
} cuda;


const int64_t kN = 1000;

/// Runs y = 2x + w with x[i] = seed + i, w[i] = i on `stream` `repeats`
/// times and returns whether every result is right.
bool runAdd(fkrt_module m, void *stream, int seed, int repeats) {
  std::vector<float> x(kN), w(kN), y(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(seed + i), w[i] = float(i);
  Cuda::Ptr dx, dw, dy;
  size_t bytes = kN * sizeof(float);
  if (cuda.memAlloc(&dx, bytes) || cuda.memAlloc(&dw, bytes) ||
      cuda.memAlloc(&dy, bytes))
    return false;
  bool ok = !cuda.memcpyHtoD(dx, x.data(), bytes) &&
            !cuda.memcpyHtoD(dw, w.data(), bytes);
  const int64_t shape[] = {kN};
  fkrt_tensor in[2] = {{reinterpret_cast<void *>(dx), FKRT_F32, 1, shape},
                       {reinterpret_cast<void *>(dw), FKRT_F32, 1, shape}};
  fkrt_tensor out[1] = {{reinterpret_cast<void *>(dy), FKRT_F32, 1, shape}};
  for (int r = 0; r < repeats && ok; ++r) {
    ok = fkrt_run(m, "add", in, 2, out, 1, stream) == FKRT_SUCCESS &&
         !cuda.streamSynchronize(stream) &&
         !cuda.memcpyDtoH(y.data(), dy, bytes);
    for (int64_t i = 0; i < kN && ok; ++i)
      ok = y[i] == 2 * x[i] + w[i];
    if (ok && cuda.memcpyHtoD(dy, std::vector<float>(kN).data(), bytes))
      ok = false;
  }
  cuda.memFree(dx);
  cuda.memFree(dw);
  cuda.memFree(dy);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  std::string dataDir = argc > 1 ? argv[1] : FKRT_TEST_DATA_DIR;
  if (fkrt_driver_available() != FKRT_SUCCESS || !cuda.load()) {
    std::printf("skipped: no usable CUDA driver (%s)\n", fkrt_last_error());
    return fkrt_test::finish();
  }
  std::string ptx = fkrt_test::readFile(dataDir + "/add.ptx");
  fkrt_module m = nullptr;
  CHECK(fkrt_module_load_memory(ptx.data(), ptx.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_ERROR_INVALID_ARGUMENT);

  // The legacy default stream, then several threads on streams of their own.
  CHECK(runAdd(m, nullptr, 1, 3));
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      // The test's own allocations need the context current on this thread;
      // fkrt_run does not.
      void *stream = nullptr;
      if (cuda.ctxSetCurrent(cuda.context) || cuda.streamCreate(&stream, 1))
        return;
      ok[t] = runAdd(m, stream, 100 * t, 25);
      if (!ok[t])
        std::printf("thread %d: %s\n", t, fkrt_last_error());
      cuda.streamDestroy(stream);
    });
  for (std::thread &t : threads)
    t.join();
  for (int o : ok)
    CHECK(o);
  fkrt_module_destroy(m);

  // A PTX error: the message carries the JIT's log.
  std::string bad = ptx;
  size_t at = bad.find("add.f32 \t%f2, %f1, %f1;");
  CHECK(at != std::string::npos);
  bad.replace(at, std::strlen("add.f32 \t%f2, %f1, %f1;"),
              "add.f32 \t%f2, %f1, %bogus;");
  CHECK(fkrt_module_load_memory(bad.data(), bad.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_ERROR_JIT);
  CHECK(std::strstr(fkrt_last_error(), "cuModuleLoadDataEx failed") &&
        std::strstr(fkrt_last_error(), "jit error log:") &&
        std::strstr(fkrt_last_error(), "bogus"));
  std::printf("jit failure message:\n%s\n", fkrt_last_error());
  fkrt_module_destroy(m);

  // More dynamic shared memory than any device has.
  bad = ptx;
  at = bad.find("\"shared_bytes\": 65536");
  bad.replace(at, std::strlen("\"shared_bytes\": 65536"),
              "\"shared_bytes\": 1048576");
  CHECK(fkrt_module_load_memory(bad.data(), bad.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_ERROR_CUDA);
  CHECK(std::strstr(fkrt_last_error(), "kernel 'add_k1': 1048576 bytes of "
                                       "shared memory: cuFuncSetAttribute"));
  fkrt_module_destroy(m);

  // A device that does not exist.
  CHECK(fkrt_module_load_memory(ptx.data(), ptx.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 999) == FKRT_ERROR_CUDA);
  CHECK(std::strstr(fkrt_last_error(), "device 999: cuDeviceGet failed"));
  fkrt_module_destroy(m);

  return fkrt_test::finish();
}
