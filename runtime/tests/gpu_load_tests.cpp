//===- gpu_load_tests.cpp - fkrt under load and after failed runs ---------===//
//
// Part of fkrt-gpu-tests (gpu_tests.cpp's main calls runLoadTests), on
// tests/data/load.ptx and add.ptx. Every run has inputs of its own (whole
// numbers, so results are exact) and every output is compared with what
// the host computes, after every run:
//
//  - one module, eight threads on streams of their own, 50 rounds of two
//    runs each of graph "scale", whose second kernel spins before reading
//    the workspace so that runs sharing one would clash; the workspaces the
//    module allocated (each run reports its own) are at most one per thread;
//  - four modules of two artifacts, loaded and JIT-compiled from four
//    threads at once, then run in turn from eight threads on their own
//    streams; the modules' workspaces are distinct;
//  - a run whose third launch cuLaunchKernel rejects after two were
//    enqueued: FKRT_ERROR_CUDA naming the launch and kernel, the first two
//    launches ran, and the module then runs its other graph on the same
//    workspace (the failed run gave it back); then failing and good runs
//    interleaved on eight threads;
//  - with --oom: the device's memory taken with fkrt_device_alloc until it
//    fails, FKRT_ERROR_OUT_OF_MEMORY from it and from a run that needs a
//    new workspace, with a message naming the bytes; once the memory is
//    freed, the same module runs and keeps one workspace.
//
// The thread bodies report failures with printf and their return value:
// CHECK's counts are not atomic.
//
//===----------------------------------------------------------------------===//

#include "GpuSupport.h"
#include "TestSupport.h"
#include "fkrt/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using fkrt_test::cuda;
using fkrt_test::onStreamsOfTheirOwn;
using Ptr = fkrt_test::Cuda::Ptr;

/// load.ptx: graphs "scale" (x, w -> y = 3x + 1 - w, where) and "fail"
/// (x, w -> y = 9x + 4, then a launch the driver rejects), f32[2048], with
/// one workspace of 8192 bytes.
const int64_t kLoadN = 2048;
const uint64_t kLoadWorkspaceBytes = 8192;
/// add.ptx: graph "add" (x, w -> y = 2x + w), f32[1000].
const int64_t kAddN = 1000;

const int kThreads = 8;

void *address(Ptr p) { return reinterpret_cast<void *>(uintptr_t(p)); }

/// Loads `path` on device 0. These tests are about the workspace pool and
/// runs that fail, and a replayed run uses a workspace of its own, so CUDA
/// graph replays are off unless `cudaGraphs` (gpu_tests.cpp tests replays).
fkrt_module loadModule(const std::string &path, bool cudaGraphs = false) {
  fkrt_module m = nullptr;
  fkrt_status status = fkrt_module_load_file(path.c_str(), &m);
  if (status == FKRT_SUCCESS)
    status = fkrt_set_cuda_graphs(m, cudaGraphs ? 1 : 0);
  if (status == FKRT_SUCCESS)
    status = fkrt_module_load_cuda(m, 0);
  CHECK_EQ(status, FKRT_SUCCESS);
  if (status != FKRT_SUCCESS) {
    fkrt_module_destroy(m);
    return nullptr;
  }
  return m;
}

/// The workspace addresses runs reported, from any thread.
class Addresses {
public:
  void add(uint64_t a) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(a);
  }
  std::set<uint64_t> get() {
    std::lock_guard<std::mutex> lock(mutex);
    return seen;
  }

private:
  std::mutex mutex;
  std::set<uint64_t> seen;
};

/// Device buffers of one run: inputs x and w, output y, and for load.ptx's
/// "scale" the 8 bytes of `where`; the expected y. Freed on destruction,
/// so the stream using them must be idle by then.
class Run {
public:
  explicit Run(int64_t n) : n(n), want(n) {
    const size_t bytes = n * sizeof(float);
    ok = !cuda.memAlloc(&x, bytes) && !cuda.memAlloc(&w, bytes) &&
         !cuda.memAlloc(&y, bytes) && !cuda.memAlloc(&where, 8);
    if (!ok)
      std::printf("cannot allocate the buffers of a run\n");
  }
  ~Run() {
    for (Ptr p : {x, w, y, where})
      if (p)
        cuda.memFree(p);
  }
  Run(const Run &) = delete;
  Run &operator=(const Run &) = delete;

  bool ok = false;

  /// Writes inputs made from `key` (whole numbers in [-1000, 1000], a
  /// different sequence for every key), poisons the outputs with NaN and
  /// 0, and sets the expected y to `f(x, w)`. Synchronous: no run may be
  /// using the buffers.
  template <typename F> bool prepare(int key, F f) {
    std::vector<float> hx(n), hw(n);
    for (int64_t i = 0; i < n; ++i) {
      hx[i] = float((int64_t(key) * 131 + i * 7) % 2001 - 1000);
      hw[i] = float((int64_t(key) * 17 + i * 3) % 1001 - 500);
      want[i] = f(hx[i], hw[i]);
    }
    const size_t bytes = n * sizeof(float);
    std::vector<unsigned char> poison(bytes, 0xFF);
    const uint64_t zero = 0;
    return ok && !cuda.memcpyHtoD(x, hx.data(), bytes) &&
           !cuda.memcpyHtoD(w, hw.data(), bytes) &&
           !cuda.memcpyHtoD(y, poison.data(), bytes) &&
           !cuda.memcpyHtoD(where, &zero, sizeof(zero));
  }
  bool prepareScale(int key) {
    return prepare(key, [](float x, float w) { return (3 * x + 1) - w; });
  }
  bool prepareFail(int key) {
    return prepare(key, [](float x, float) { return 3 * (3 * x + 1) + 1; });
  }
  bool prepareAdd(int key) {
    return prepare(key, [](float x, float w) { return 2 * x + w; });
  }

  /// fkrt_run of `graph`: "scale" takes `where` as its second output.
  fkrt_status start(fkrt_module m, const char *graph, void *stream) {
    const int64_t shape[] = {n}, whereShape[] = {2};
    fkrt_tensor in[2] = {{address(x), FKRT_F32, 1, shape},
                         {address(w), FKRT_F32, 1, shape}};
    fkrt_tensor out[2] = {{address(y), FKRT_F32, 1, shape},
                          {address(where), FKRT_I32, 1, whereShape}};
    return fkrt_run(m, graph, in, 2, out,
                    std::strcmp(graph, "scale") == 0 ? 2 : 1, stream);
  }

  /// After the run finished: y is the expected one, and with `workspace`,
  /// `where` holds a workspace address (non-zero, 256-byte aligned),
  /// returned there. `what` names the run in messages.
  bool finish(const std::string &what, uint64_t *workspace = nullptr) {
    std::vector<float> got(n);
    if (cuda.memcpyDtoH(got.data(), y, n * sizeof(float))) {
      std::printf("%s: cannot read y\n", what.c_str());
      return false;
    }
    for (int64_t i = 0; i < n; ++i)
      if (!(got[i] == want[i])) {
        std::printf("%s: y[%lld] is %g, expected %g\n", what.c_str(),
                    static_cast<long long>(i), got[i], want[i]);
        return false;
      }
    if (!workspace)
      return true;
    uint64_t a = 0;
    if (cuda.memcpyDtoH(&a, where, sizeof(a)) || a == 0 || a % 256) {
      std::printf("%s: where is %#llx, not a workspace address\n", what.c_str(),
                  static_cast<unsigned long long>(a));
      return false;
    }
    *workspace = a;
    return true;
  }

private:
  int64_t n;
  std::vector<float> want;
  Ptr x = 0, w = 0, y = 0, where = 0;
};

std::string name(const char *graph, int thread, int round) {
  return std::string(graph) + " (thread " + std::to_string(thread) +
         ", round " + std::to_string(round) + ")";
}

/// Waits for `stream`; false with a message if the work failed.
bool wait(void *stream, const std::string &what) {
  int r = cuda.streamSynchronize(stream);
  if (r)
    std::printf("%s: cuStreamSynchronize failed with CUDA error %d\n",
                what.c_str(), r);
  return r == 0;
}

/// One module, many threads: each thread enqueues two runs of "scale" with
/// different inputs back to back, then waits and checks both, 50 times.
void testOneModuleManyThreads(const std::string &dataDir) {
  fkrt_module m = loadModule(dataDir + "/load.ptx");
  if (!m)
    return;
  const int rounds = 50;
  Addresses workspaces;
  onStreamsOfTheirOwn(kThreads, [&](int t, void *stream) {
    Run a(kLoadN), b(kLoadN);
    bool good = a.ok && b.ok;
    for (int r = 0; r < rounds && good; ++r) {
      const std::string what = name("scale", t, r);
      uint64_t wa = 0, wb = 0;
      good = a.prepareScale(t * 1000 + 2 * r) &&
             b.prepareScale(t * 1000 + 2 * r + 1) &&
             a.start(m, "scale", stream) == FKRT_SUCCESS &&
             b.start(m, "scale", stream) == FKRT_SUCCESS &&
             wait(stream, what) && a.finish(what + " a", &wa) &&
             b.finish(what + " b", &wb);
      workspaces.add(wa);
      workspaces.add(wb);
    }
    wait(stream, "thread end");
    return good;
  });
  std::set<uint64_t> seen = workspaces.get();
  seen.erase(0);
  std::printf("one module, %d threads x %d rounds of 2 runs: %zu "
              "workspaces\n",
              kThreads, rounds, seen.size());
  CHECK(!seen.empty() && seen.size() <= size_t(kThreads));
  fkrt_module_destroy(m);
}

/// Two modules of load.ptx and two of add.ptx, loaded from four threads at
/// once; then each of eight threads runs, in each round, "scale" of one
/// load.ptx module and "add" of one add.ptx module, on its stream before
/// waiting, the pair changing from round to round.
void testManyModules(const std::string &dataDir) {
  const char *files[4] = {"load.ptx", "add.ptx", "load.ptx", "add.ptx"};
  fkrt_module modules[4] = {};
  fkrt_status statuses[4];
  std::string messages[4];
  std::vector<std::thread> loading;
  for (int i = 0; i < 4; ++i)
    loading.emplace_back([&, i] {
      const std::string path = dataDir + "/" + files[i];
      statuses[i] = fkrt_module_load_file(path.c_str(), &modules[i]);
      // The workspace pool is under test (replays own workspaces).
      if (statuses[i] == FKRT_SUCCESS)
        statuses[i] = fkrt_set_cuda_graphs(modules[i], 0);
      if (statuses[i] == FKRT_SUCCESS)
        statuses[i] = fkrt_module_load_cuda(modules[i], 0);
      if (statuses[i] != FKRT_SUCCESS)
        messages[i] = fkrt_last_error();
    });
  for (std::thread &t : loading)
    t.join();
  bool loaded = true;
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ(statuses[i], FKRT_SUCCESS);
    if (statuses[i] != FKRT_SUCCESS) {
      std::printf("loading module %d (%s): %s\n", i, files[i],
                  messages[i].c_str());
      loaded = false;
    }
  }
  if (loaded) {
    const int rounds = 40;
    Addresses workspaces[2]; // of modules 0 and 2
    onStreamsOfTheirOwn(kThreads, [&](int t, void *stream) {
      Run scale(kLoadN), add(kAddN);
      bool good = scale.ok && add.ok;
      for (int r = 0; r < rounds && good; ++r) {
        const int l = (t + r) % 2, a = (t + r / 2) % 2;
        fkrt_module lm = modules[2 * l], am = modules[2 * a + 1];
        const std::string what = name("scale", t, r) + " of module " +
                                 std::to_string(2 * l) + ", add of module " +
                                 std::to_string(2 * a + 1);
        uint64_t where = 0;
        good = scale.prepareScale(t * 1000 + r) &&
               add.prepareAdd(t * 1000 + r + 500) &&
               scale.start(lm, "scale", stream) == FKRT_SUCCESS &&
               add.start(am, "add", stream) == FKRT_SUCCESS &&
               wait(stream, what) && scale.finish(what, &where) &&
               add.finish(what);
        workspaces[l].add(where);
      }
      wait(stream, "thread end");
      return good;
    });
    std::set<uint64_t> w0 = workspaces[0].get(), w2 = workspaces[1].get();
    w0.erase(0);
    w2.erase(0);
    std::printf("four modules, %d threads x %d rounds: %zu and %zu "
                "workspaces in the two of load.ptx\n",
                kThreads, rounds, w0.size(), w2.size());
    CHECK(!w0.empty() && w0.size() <= size_t(kThreads));
    CHECK(!w2.empty() && w2.size() <= size_t(kThreads));
    bool disjoint = true;
    for (uint64_t a : w0)
      disjoint = disjoint && !w2.count(a);
    CHECK(disjoint);
  }
  for (fkrt_module m : modules)
    fkrt_module_destroy(m);
}

/// Whether `message` is the one of "fail"'s rejected third launch.
bool isLaunchFailure(const std::string &message) {
  return message.rfind("fkrt_run: graph 'fail' launch 2 (kernel "
                       "'load_reject'): cuLaunchKernel failed: ",
                       0) == 0;
}

/// A run that fails at its third launch, after two were enqueued.
void testLaunchFailure(const std::string &dataDir) {
  fkrt_module m = loadModule(dataDir + "/load.ptx");
  if (!m)
    return;
  void *stream = nullptr;
  if (cuda.streamCreate(&stream, fkrt_test::kStreamNonBlocking)) {
    CHECK(false);
    fkrt_module_destroy(m);
    return;
  }
  {
    Run run(kLoadN);
    // A good run: its workspace is the module's first and only one.
    uint64_t first = 0, where = 0;
    CHECK(run.prepareScale(1) &&
          run.start(m, "scale", stream) == FKRT_SUCCESS &&
          wait(stream, "scale") && run.finish("scale", &first));

    // The third launch is rejected; the first two (y = 9x + 4, through
    // the workspace) were enqueued and run.
    CHECK(run.prepareFail(2));
    CHECK_EQ(run.start(m, "fail", stream), FKRT_ERROR_CUDA);
    const std::string message = fkrt_last_error();
    std::printf("launch failure message: %s\n", message.c_str());
    CHECK(isLaunchFailure(message));
    CHECK(wait(stream, "fail"));
    CHECK(run.finish("fail"));

    // The module runs its other graph, on the same workspace: the failed
    // run gave it back, and waiting on it does not hang.
    for (int r = 0; r < 5; ++r) {
      CHECK(run.prepareScale(3 + r) &&
            run.start(m, "scale", stream) == FKRT_SUCCESS &&
            wait(stream, "scale after fail") &&
            run.finish("scale after fail", &where));
      CHECK_EQ(where, first);
    }

    // With replays on, a run whose launch fails cannot be captured: its
    // capture runs nothing and the run goes kernel by kernel, reporting the
    // failure every time; no replay is held.
    {
      fkrt_module replaying = loadModule(dataDir + "/load.ptx", true);
      for (int r = 0; r < 4 && replaying; ++r) {
        CHECK(run.prepareFail(10 + r));
        CHECK_EQ(run.start(replaying, "fail", stream), FKRT_ERROR_CUDA);
        CHECK(isLaunchFailure(fkrt_last_error()));
        CHECK(wait(stream, "fail, replays on"));
        CHECK(run.finish("fail, replays on"));
      }
      CHECK_EQ(fkrt_cuda_graph_count(replaying), 0u);
      fkrt_module_destroy(replaying);
    }

    // Failing and good runs interleaved on several threads: every failure
    // reported as such, every good run right, the workspaces bounded.
    Addresses workspaces;
    workspaces.add(first);
    onStreamsOfTheirOwn(kThreads, [&](int t, void *s) {
      Run failing(kLoadN), good(kLoadN);
      bool ok = failing.ok && good.ok;
      for (int r = 0; r < 20 && ok; ++r) {
        const std::string what = name("fail, scale", t, r);
        ok = failing.prepareFail(t * 1000 + 2 * r) &&
             good.prepareScale(t * 1000 + 2 * r + 1);
        if (!ok)
          break;
        fkrt_status status = failing.start(m, "fail", s);
        if (status != FKRT_ERROR_CUDA || !isLaunchFailure(fkrt_last_error())) {
          std::printf("%s: fail returned %s: %s\n", what.c_str(),
                      fkrt_status_string(status), fkrt_last_error());
          ok = false;
          break;
        }
        uint64_t w = 0;
        ok = good.start(m, "scale", s) == FKRT_SUCCESS && wait(s, what) &&
             failing.finish(what + ": fail") &&
             good.finish(what + ": scale", &w);
        workspaces.add(w);
      }
      wait(s, "thread end");
      return ok;
    });
    std::set<uint64_t> seen = workspaces.get();
    seen.erase(0);
    std::printf("failing and good runs on %d threads: %zu workspaces\n",
                kThreads, seen.size());
    CHECK(!seen.empty() && seen.size() <= size_t(kThreads));
  }
  cuda.streamDestroy(stream);
  fkrt_module_destroy(m);
}

/// A run that cannot allocate its workspace: the device's memory is taken
/// by fkrt_device_alloc first.
void testOutOfMemory(const std::string &dataDir) {
  fkrt_module m = loadModule(dataDir + "/load.ptx");
  if (!m)
    return;
  CHECK_EQ(fkrt_manifest_workspace_bytes(m, 0), kLoadWorkspaceBytes);
  void *stream = nullptr;
  if (cuda.streamCreate(&stream, fkrt_test::kStreamNonBlocking)) {
    CHECK(false);
    fkrt_module_destroy(m);
    return;
  }
  {
    Run run(kLoadN);
    CHECK(run.prepareScale(1));

    // Take the memory: halving sizes down to 256 bytes, then blocks of the
    // workspace's size, each until fkrt_device_alloc fails; every failure
    // must be FKRT_ERROR_OUT_OF_MEMORY.
    const size_t maxBlocks = 1 << 20;
    std::vector<void *> taken;
    size_t bytes = 0;
    bool onlyOutOfMemory = true;
    std::string lastMessage;
    auto take = [&](size_t size) {
      while (taken.size() < maxBlocks) {
        void *p = nullptr;
        fkrt_status status = fkrt_device_alloc(0, size, &p);
        if (status == FKRT_SUCCESS) {
          taken.push_back(p);
          bytes += size;
          continue;
        }
        lastMessage = fkrt_last_error();
        if (status != FKRT_ERROR_OUT_OF_MEMORY) {
          std::printf("fkrt_device_alloc(%zu) returned %s: %s\n", size,
                      fkrt_status_string(status), lastMessage.c_str());
          onlyOutOfMemory = false;
        }
        return;
      }
    };
    for (size_t size = size_t(1) << 40; size >= 256 && onlyOutOfMemory;
         size /= 2)
      take(size);
    if (onlyOutOfMemory)
      take(kLoadWorkspaceBytes);
    std::printf("took %zu MiB of device memory in %zu blocks; last "
                "failure: %s\n",
                bytes >> 20, taken.size(), lastMessage.c_str());
    CHECK(onlyOutOfMemory);
    CHECK(taken.size() < maxBlocks);

    if (onlyOutOfMemory && taken.size() < maxBlocks) {
      // fkrt's own allocation reports it.
      void *p = nullptr;
      CHECK_EQ(fkrt_device_alloc(0, kLoadWorkspaceBytes, &p),
               FKRT_ERROR_OUT_OF_MEMORY);
      CHECK(std::strstr(fkrt_last_error(), "fkrt_device_alloc: 8192 bytes "
                                           "on device 0: cuMemAlloc failed: "
                                           "CUDA_ERROR_OUT_OF_MEMORY"));
      if (p)
        fkrt_device_free(0, p);
      // The run needs the module's first workspace and cannot have it;
      // nothing is enqueued, and a second try fails the same way.
      for (int i = 0; i < 2; ++i) {
        CHECK_EQ(run.start(m, "scale", stream), FKRT_ERROR_OUT_OF_MEMORY);
        const std::string message = fkrt_last_error();
        if (i == 0)
          std::printf("out-of-memory message: %s\n", message.c_str());
        CHECK(message.rfind("fkrt_run: graph 'scale': allocating a "
                            "workspace of 8192 bytes: cuMemAlloc failed: "
                            "CUDA_ERROR_OUT_OF_MEMORY",
                            0) == 0);
      }
    }
    bool freed = true;
    for (void *p : taken)
      freed = fkrt_device_free(0, p) == FKRT_SUCCESS && freed;
    CHECK(freed);

    // With the memory back, the same module runs, and its later runs reuse
    // the one workspace it then allocated.
    uint64_t first = 0, where = 0;
    CHECK(wait(stream, "after the out-of-memory runs"));
    CHECK(run.start(m, "scale", stream) == FKRT_SUCCESS &&
          wait(stream, "scale after out of memory") &&
          run.finish("scale after out of memory", &first));
    CHECK(run.prepareScale(2) &&
          run.start(m, "scale", stream) == FKRT_SUCCESS &&
          wait(stream, "second scale after out of memory") &&
          run.finish("second scale after out of memory", &where));
    CHECK_EQ(where, first);
  }
  cuda.streamDestroy(stream);
  fkrt_module_destroy(m);
}

} // namespace

void fkrt_test::runLoadTests(const std::string &dataDir, bool outOfMemory) {
  testOneModuleManyThreads(dataDir);
  testManyModules(dataDir);
  testLaunchFailure(dataDir);
  if (outOfMemory)
    testOutOfMemory(dataDir);
  else
    std::printf("out-of-memory test not run (--oom runs it)\n");
}
