//===- gpu_tests.cpp - fkrt tests on a CUDA device ------------------------===//
//
// JIT-loads tests/data/add.ptx and runs it: results, concurrent runs from
// several threads on several streams sharing the workspace pool, the device
// memory and event API, replays as CUDA graphs, the JIT error log, a failing
// kernel attribute; then
// tests/data/tensor_map.ptx, whose kernels hand back the tensor map
// descriptors the runtime encoded, and tests/data/tensor_map_symbolic.ptx,
// whose maps are sized per run; tests/data/symbolic.ptx, sized per run;
// then the load and failure tests of
// gpu_load_tests.cpp. Without a CUDA driver it says so and passes
// vacuously. Prints "N passed, M failed" last.
//
// Usage: fkrt-gpu-tests [--load-only] [--oom] [DATA_DIR]
//
//   --load-only  only the tests of gpu_load_tests.cpp (what
//                scripts/gpu-check.sh runs under compute-sanitizer)
//   --oom        also the out-of-memory test, which takes all the device's
//                free memory for a moment: not while other programs use
//                the GPU (lit runs tests in parallel, so it leaves it out)
//
//===----------------------------------------------------------------------===//

#include "GpuSupport.h"
#include "TestSupport.h"
#include "fkrt/runtime.h"
#include "fkrt/runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using fkrt_test::cuda;
using fkrt_test::Cuda;
using fkrt_test::onStreamsOfTheirOwn;

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

/// The device API of runtime.h: buffers, copies, fills, synchronisation,
/// events, and its errors; then add.ptx run on buffers made with it.
void testDeviceApi(const std::string &ptx) {
  int count = 0;
  CHECK_EQ(fkrt_device_count(&count), FKRT_SUCCESS);
  CHECK(count >= 1);
  char name[256];
  CHECK_EQ(fkrt_device_name(0, name, sizeof(name)), FKRT_SUCCESS);
  CHECK(name[0] != '\0');
  std::printf("device 0: %s (%d devices)\n", name, count);
  char tiny[4];
  CHECK_EQ(fkrt_device_name(0, tiny, sizeof(tiny)), FKRT_SUCCESS);
  CHECK_EQ(std::strlen(tiny), 3u);

  // Round trip through a fill and copies.
  const size_t n = 4096;
  void *p = nullptr;
  CHECK_EQ(fkrt_device_alloc(0, n, &p), FKRT_SUCCESS);
  CHECK(p != nullptr && reinterpret_cast<uintptr_t>(p) % 256 == 0);
  std::vector<unsigned char> host(n, 7), back(n, 0);
  CHECK_EQ(fkrt_device_fill(0, p, 0xFF, n, nullptr), FKRT_SUCCESS);
  CHECK_EQ(fkrt_device_copy_to_host(0, back.data(), p, n), FKRT_SUCCESS);
  CHECK(back == std::vector<unsigned char>(n, 0xFF));
  for (size_t i = 0; i < n; ++i)
    host[i] = static_cast<unsigned char>(i * 31);
  CHECK_EQ(fkrt_device_copy_to_device(0, p, host.data(), n), FKRT_SUCCESS);
  CHECK_EQ(fkrt_device_copy_to_host(0, back.data(), p, n), FKRT_SUCCESS);
  CHECK(back == host);
  CHECK_EQ(fkrt_device_synchronize(0), FKRT_SUCCESS);
  CHECK_EQ(fkrt_device_free(0, p), FKRT_SUCCESS);
  void *empty = nullptr;
  CHECK_EQ(fkrt_device_alloc(0, 0, &empty), FKRT_SUCCESS);
  CHECK(empty != nullptr);
  CHECK_EQ(fkrt_device_copy_to_device(0, empty, nullptr, 0), FKRT_SUCCESS);
  CHECK_EQ(fkrt_device_free(0, empty), FKRT_SUCCESS);

  // Errors: no such device, more memory than any device has, an event
  // never recorded.
  CHECK_EQ(fkrt_device_alloc(999, 16, &p), FKRT_ERROR_CUDA);
  CHECK(std::strstr(fkrt_last_error(),
                    "fkrt_device_alloc: device 999: cuDeviceGet failed"));
  CHECK_EQ(fkrt_device_alloc(0, size_t(1) << 50, &p),
           FKRT_ERROR_OUT_OF_MEMORY);
  CHECK(std::strstr(fkrt_last_error(), "CUDA_ERROR_OUT_OF_MEMORY"));
  fkrt_event start = nullptr, stop = nullptr;
  CHECK_EQ(fkrt_event_create(0, &start), FKRT_SUCCESS);
  CHECK_EQ(fkrt_event_create(0, &stop), FKRT_SUCCESS);
  float ms = -1;
  CHECK_EQ(fkrt_event_elapsed_ms(start, stop, &ms),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(fkrt_last_error(), "the start event was never recorded"));

  // add.ptx on buffers of the device API, timed with its events.
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_memory(ptx.data(), ptx.size(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_module_load_cuda(m, 0), FKRT_SUCCESS);
  try {
    std::vector<float> x(kN), w(kN), y(kN);
    for (int64_t i = 0; i < kN; ++i)
      x[i] = float(i) / 8, w[i] = float(3 - i);
    const size_t bytes = kN * sizeof(float);
    fkrt::DeviceBuffer dx(0, bytes), dw(0, bytes), dy(0, bytes);
    dx.copyFrom(x.data());
    dw.copyFrom(w.data());
    dy.fill(0xFF);
    const std::vector<int64_t> shape = {kN};
    std::vector<fkrt_tensor> in = {dx.tensor(FKRT_F32, shape),
                                   dw.tensor(FKRT_F32, shape)};
    std::vector<fkrt_tensor> out = {dy.tensor(FKRT_F32, shape)};
    CHECK_EQ(fkrt_event_record(start, nullptr), FKRT_SUCCESS);
    CHECK_EQ(fkrt_run(m, "add", in.data(), 2, out.data(), 1, nullptr),
             FKRT_SUCCESS);
    CHECK_EQ(fkrt_event_record(stop, nullptr), FKRT_SUCCESS);
    CHECK_EQ(fkrt_event_elapsed_ms(start, stop, &ms), FKRT_SUCCESS);
    CHECK(ms >= 0);
    fkrt::synchronize(0);
    dy.copyTo(y.data());
    bool right = true;
    for (int64_t i = 0; i < kN; ++i)
      right = right && y[i] == 2 * x[i] + w[i];
    CHECK(right);
  } catch (const fkrt::Error &e) {
    std::printf("FAIL device API run: %s\n", e.what());
    ++fkrt_test::failed;
  }
  fkrt_event_destroy(start);
  fkrt_event_destroy(stop);
  fkrt_module_destroy(m);
}

/// A CUtensorMap as the host encodes it.
struct alignas(128) HostMap {
  uint64_t q[16];
};

/// cuTensorMapEncodeTiled with the runtime's fixed arguments (cuda.h's
/// values: CU_TENSOR_MAP_DATA_TYPE_*, swizzle 0..3 for none..128B, L2
/// promotion 128B = 2, no interleave, no OOB fill).
bool encodeOnHost(HostMap &map, int dtype, std::vector<uint64_t> dims,
                  std::vector<uint64_t> strides, std::vector<uint32_t> box,
                  int swizzle, uint64_t address) {
  std::vector<uint32_t> ones(dims.size(), 1);
  return cuda.tensorMapEncodeTiled(&map, dtype, unsigned(dims.size()),
                                   reinterpret_cast<void *>(address),
                                   dims.data(), strides.data(), box.data(),
                                   ones.data(), 0, swizzle, 2, 0) == 0;
}

constexpr int kF16 = 6, kF32 = 7, kBf16 = 9;

/// What copy_map wrote to an output: the descriptor and its address.
struct Copied {
  HostMap map;
  uint64_t address = 0;
};

bool readCopied(Cuda::Ptr out, Copied &c) {
  uint64_t words[17];
  if (cuda.memcpyDtoH(words, out, sizeof(words)))
    return false;
  std::memcpy(c.map.q, words, sizeof(c.map.q));
  c.address = words[16];
  return true;
}

bool same(const HostMap &a, const HostMap &b) {
  return std::memcmp(a.q, b.q, sizeof(a.q)) == 0;
}

/// tensor_map.ptx: the descriptors the kernels are handed are those the
/// host encodes for the run's buffers, at round_up(workspace_bytes, 256) +
/// 128 * i of the workspace; re-encoded for each run's addresses; and never
/// mixed up between runs on several streams sharing the workspace pool.
void testTensorMaps(const std::string &dataDir) {
  std::string ptx = fkrt_test::readFile(dataDir + "/tensor_map.ptx");
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_memory(ptx.data(), ptx.size(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_module_load_cuda(m, 0), FKRT_SUCCESS);
  const int64_t xShape[] = {64, 128}, yShape[] = {64};
  const size_t xBytes = 64 * 128 * 2, yBytes = 64 * 4;
  Cuda::Ptr x1 = 0, x2 = 0, y0 = 0, y1 = 0;
  if (cuda.memAlloc(&x1, xBytes) || cuda.memAlloc(&x2, xBytes) ||
      cuda.memAlloc(&y0, yBytes) || cuda.memAlloc(&y1, yBytes)) {
    CHECK(false);
    return;
  }
  auto tensor = [](Cuda::Ptr p, int32_t dtype, int32_t rank,
                   const int64_t *shape) {
    return fkrt_tensor{reinterpret_cast<void *>(p), dtype, rank, shape};
  };
  fkrt_tensor in[1] = {tensor(x1, FKRT_F16, 2, xShape)};
  fkrt_tensor out[2] = {tensor(y0, FKRT_I32, 1, yShape),
                        tensor(y1, FKRT_I32, 1, yShape)};

  if (!cuda.tensorMapEncodeTiled) {
    CHECK_EQ(fkrt_run(m, "maps", in, 1, out, 2, nullptr), FKRT_ERROR_NO_DRIVER);
    CHECK(std::strstr(fkrt_last_error(), "need cuTensorMapEncodeTiled"));
    std::printf("tensor maps: the driver lacks cuTensorMapEncodeTiled\n");
    fkrt_module_destroy(m);
    return;
  }

  // Graph "maps": a map over the input, one over a workspace buffer.
  Copied c0, c1;
  CHECK_EQ(fkrt_run(m, "maps", in, 1, out, 2, nullptr), FKRT_SUCCESS);
  CHECK(readCopied(y0, c0) && readCopied(y1, c1));
  uint64_t base = c0.address - 1024;
  CHECK_EQ(base % 256, 0u);
  CHECK_EQ(c1.address, c0.address + 128);
  HostMap want;
  CHECK(encodeOnHost(want, kF16, {128, 64}, {256}, {64, 32}, 3, x1));
  CHECK(same(c0.map, want));
  CHECK(
      encodeOnHost(want, kF32, {8, 5, 2}, {32, 160}, {4, 5, 1}, 0, base + 256));
  CHECK(same(c1.map, want));

  // Another input buffer: the descriptor follows it.
  in[0] = tensor(x2, FKRT_F16, 2, xShape);
  CHECK_EQ(fkrt_run(m, "maps", in, 1, out, 2, nullptr), FKRT_SUCCESS);
  CHECK(readCopied(y0, c0));
  CHECK(encodeOnHost(want, kF16, {128, 64}, {256}, {64, 32}, 3, x2));
  CHECK(same(c0.map, want));

  // Graph "direct" has no workspace of its own: its one descriptor is at
  // the start of a pooled workspace.
  CHECK_EQ(fkrt_run(m, "direct", in, 1, out, 1, nullptr), FKRT_SUCCESS);
  CHECK(readCopied(y0, c0));
  CHECK_EQ(c0.address % 256, 0u);
  CHECK(encodeOnHost(want, kBf16, {128, 64}, {256}, {8, 1}, 0, x2));
  CHECK(same(c0.map, want));
  cuda.memFree(x1);
  cuda.memFree(x2);
  cuda.memFree(y0);
  cuda.memFree(y1);

  // Threads on streams of their own, each with its own input, run both
  // graphs back to back without synchronising in between: each kernel
  // must still see its own run's descriptors.
  onStreamsOfTheirOwn(6, [&](int, void *stream) {
    Cuda::Ptr x = 0, a = 0, b = 0, d = 0;
    bool good = !cuda.memAlloc(&x, xBytes) && !cuda.memAlloc(&a, yBytes) &&
                !cuda.memAlloc(&b, yBytes) && !cuda.memAlloc(&d, yBytes);
    fkrt_tensor tin[1] = {tensor(x, FKRT_F16, 2, xShape)};
    fkrt_tensor tout[2] = {tensor(a, FKRT_I32, 1, yShape),
                           tensor(b, FKRT_I32, 1, yShape)};
    fkrt_tensor dout[1] = {tensor(d, FKRT_I32, 1, yShape)};
    HostMap wantMaps, wantDirect;
    good = good &&
           encodeOnHost(wantMaps, kF16, {128, 64}, {256}, {64, 32}, 3, x) &&
           encodeOnHost(wantDirect, kBf16, {128, 64}, {256}, {8, 1}, 0, x);
    for (int r = 0; r < 20 && good; ++r) {
      Copied ca, cd;
      good = fkrt_run(m, "maps", tin, 1, tout, 2, stream) == FKRT_SUCCESS &&
             fkrt_run(m, "direct", tin, 1, dout, 1, stream) == FKRT_SUCCESS &&
             !cuda.streamSynchronize(stream) && readCopied(a, ca) &&
             readCopied(d, cd) && same(ca.map, wantMaps) &&
             same(cd.map, wantDirect);
    }
    cuda.memFree(x);
    cuda.memFree(a);
    cuda.memFree(b);
    cuda.memFree(d);
    return good;
  });
  fkrt_module_destroy(m);
}

/// tensor_map_symbolic.ptx: a map whose dims and strides are computed per
/// run is encoded at each run's sizes, replays (keyed by the sizes) keep
/// each size's descriptors, and a launch skipped at M = 0 leaves its map
/// unencoded while the other launch runs.
void testSymbolicTensorMaps(const std::string &dataDir) {
  if (!cuda.tensorMapEncodeTiled)
    return; // testTensorMaps says so.
  std::string ptx = fkrt_test::readFile(dataDir + "/tensor_map_symbolic.ptx");
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_memory(ptx.data(), ptx.size(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_module_load_cuda(m, 0), FKRT_SUCCESS);
  const size_t xBytes = 64 * 128 * 2, yBytes = 64 * 4;
  Cuda::Ptr x = 0, y0 = 0, y1 = 0;
  if (cuda.memAlloc(&x, xBytes) || cuda.memAlloc(&y0, yBytes) ||
      cuda.memAlloc(&y1, yBytes)) {
    CHECK(false);
    fkrt_module_destroy(m);
    return;
  }
  const int64_t yShape[] = {64};
  const std::vector<uint8_t> zeros(yBytes, 0);
  // Runs "rows" at x of [rows, cols] twice (the second captures a replay),
  // each time on zeroed outputs, and checks what the kernels were handed:
  // the map over x at these sizes (none at rows = 0: y0 stays zero), the
  // static map over the workspace buffer.
  auto runAt = [&](int64_t rows, int64_t cols) {
    const int64_t xShape[] = {rows, cols};
    fkrt_tensor in[1] = {{reinterpret_cast<void *>(x), FKRT_F16, 2, xShape}};
    fkrt_tensor out[2] = {{reinterpret_cast<void *>(y0), FKRT_I32, 1, yShape},
                          {reinterpret_cast<void *>(y1), FKRT_I32, 1, yShape}};
    HostMap want, none{};
    bool ok = true;
    for (int run = 0; run < 2 && ok; ++run) {
      Copied c0, c1;
      ok = !cuda.memcpyHtoD(y0, zeros.data(), yBytes) &&
           !cuda.memcpyHtoD(y1, zeros.data(), yBytes) &&
           fkrt_run(m, "rows", in, 1, out, 2, nullptr) == FKRT_SUCCESS &&
           readCopied(y0, c0) && readCopied(y1, c1);
      uint64_t base = c1.address - 1152;
      ok = ok && base % 256 == 0 &&
           encodeOnHost(want, kF32, {8, 5, 2}, {32, 160}, {4, 5, 1}, 0,
                        base + 256) &&
           same(c1.map, want);
      if (rows == 0)
        ok = ok && c0.address == 0 && same(c0.map, none);
      else
        ok = ok && c0.address == base + 1024 &&
             encodeOnHost(want, kF16, {uint64_t(cols), uint64_t(rows)},
                          {uint64_t(2 * cols)}, {64, 32}, 3, x) &&
             same(c0.map, want);
    }
    return ok;
  };
  CHECK(runAt(64, 128));
  CHECK(runAt(5, 64));
  CHECK(runAt(0, 128));
  // Back to the first sizes: their replay holds their own descriptors.
  CHECK(runAt(64, 128));
  CHECK(runAt(1, 8));
  CHECK_EQ(fkrt_cuda_graph_count(m), 4u);
  // Without replays, the pooled workspace is re-encoded per run.
  CHECK_EQ(fkrt_set_cuda_graphs(m, 0), FKRT_SUCCESS);
  CHECK(runAt(5, 64));
  CHECK(runAt(0, 128));
  CHECK(runAt(64, 128));
  cuda.memFree(x);
  cuda.memFree(y0);
  cuda.memFree(y1);
  fkrt_module_destroy(m);
}

/// The tests of this file: add.ptx, the device API, bound weights, tensor
/// maps, JIT and load errors.
/// Replays as CUDA graphs: a set of addresses is recorded on its second
/// run and replayed after; disabling frees the replays, as does switching
/// concurrent launches; at most 8 are held.
void testCudaGraphs(const std::string &ptx) {
  fkrt_module m = nullptr;
  CHECK(fkrt_module_load_memory(ptx.data(), ptx.size(), &m) == FKRT_SUCCESS);
  CHECK_EQ(fkrt_cuda_graphs(m), 1);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_SUCCESS);
  CHECK(runAdd(m, nullptr, 1, 1));
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  // runAdd's buffers are new at every call: three runs on one set.
  CHECK(runAdd(m, nullptr, 2, 3));
  CHECK_EQ(fkrt_cuda_graph_count(m), 1u);
  // Launches in order instead of at once where memory allows: switching
  // frees the replays, which are built again in the new order.
  CHECK_EQ(fkrt_concurrent_launches(m), 1);
  CHECK_EQ(fkrt_set_concurrent_launches(m, 0), FKRT_SUCCESS);
  CHECK_EQ(fkrt_concurrent_launches(m), 0);
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  CHECK(runAdd(m, nullptr, 4, 3));
  CHECK_EQ(fkrt_cuda_graph_count(m), 1u);
  CHECK_EQ(fkrt_set_concurrent_launches(m, 1), FKRT_SUCCESS);
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  CHECK_EQ(fkrt_set_concurrent_launches(nullptr, 1),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(fkrt_set_cuda_graphs(m, 0), FKRT_SUCCESS);
  CHECK_EQ(fkrt_cuda_graphs(m), 0);
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  CHECK(runAdd(m, nullptr, 3, 3));
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  CHECK_EQ(fkrt_set_cuda_graphs(m, 1), FKRT_SUCCESS);
  // Ten sets of buffers alive at once, each run twice then checked.
  std::vector<Cuda::Ptr> buffers;
  size_t bytes = kN * sizeof(float);
  const int64_t shape[] = {kN};
  std::vector<float> x(kN), w(kN), y(kN);
  bool ok = true;
  for (int set = 0; set < 10 && ok; ++set) {
    Cuda::Ptr dx{}, dw{}, dy{};
    ok = !cuda.memAlloc(&dx, bytes) && !cuda.memAlloc(&dw, bytes) &&
         !cuda.memAlloc(&dy, bytes);
    buffers.insert(buffers.end(), {dx, dw, dy});
    for (int64_t i = 0; i < kN; ++i)
      x[i] = float(set * i), w[i] = float(set);
    ok = ok && !cuda.memcpyHtoD(dx, x.data(), bytes) &&
         !cuda.memcpyHtoD(dw, w.data(), bytes);
    fkrt_tensor in[2] = {{reinterpret_cast<void *>(dx), FKRT_F32, 1, shape},
                         {reinterpret_cast<void *>(dw), FKRT_F32, 1, shape}};
    fkrt_tensor out[1] = {{reinterpret_cast<void *>(dy), FKRT_F32, 1, shape}};
    for (int run = 0; run < 2 && ok; ++run)
      ok = fkrt_run(m, "add", in, 2, out, 1, nullptr) == FKRT_SUCCESS;
    ok = ok && !cuda.memcpyDtoH(y.data(), dy, bytes);
    for (int64_t i = 0; i < kN && ok; ++i)
      ok = y[i] == 2 * x[i] + w[i];
  }
  CHECK(ok);
  CHECK_EQ(fkrt_cuda_graph_count(m), 8u);
  for (Cuda::Ptr p : buffers)
    cuda.memFree(p);
  CHECK_EQ(fkrt_set_cuda_graphs(nullptr, 1), FKRT_ERROR_INVALID_ARGUMENT);
  fkrt_module_destroy(m);
}

/// Weights bound from a .safetensors file: add.ptx's w uploaded once, then
/// runs that pass x alone, through the C API and the C++ wrapper (whose
/// run() takes the unbound inputs), replayed as a CUDA graph too.
/// Writes a .safetensors file holding one f32 tensor "w" (by hand: header,
/// then the data) to a new temporary file, whose path it returns ("" on
/// failure).
static std::string writeWeights(const std::vector<float> &w) {
  std::string header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[" +
                       std::to_string(w.size()) + "],\"data_offsets\":[0," +
                       std::to_string(w.size() * 4) + "]}}";
  char path[] = "/tmp/fkrt-gpu-weights-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0)
    return "";
  std::FILE *file = fdopen(fd, "wb");
  uint64_t length = header.size();
  std::fwrite(&length, 8, 1, file); // little-endian hosts only
  std::fwrite(header.data(), 1, header.size(), file);
  std::fwrite(w.data(), sizeof(float), w.size(), file);
  std::fclose(file);
  return path;
}

/// Weights bound to two graphs of one module, one after the other (the
/// second binding once crashed: the first had made a binding list for every
/// graph, empty for the second).
void testBoundWeightsTwoGraphs(const std::string &dataDir) {
  std::string ptx = fkrt_test::readFile(dataDir + "/load.ptx");
  std::string path = writeWeights(std::vector<float>(2048, 1.0f));
  if (path.empty())
    return;
  try {
    fkrt::Module m = fkrt::Module::fromMemory(ptx.data(), ptx.size());
    m.loadCuda(0);
    m.bindWeights("scale", path);
    m.bindWeights("fail", path);
    CHECK_EQ(fkrt_input_bound(m.get(), 0, 1), 1);
    CHECK_EQ(fkrt_input_bound(m.get(), 1, 1), 1);
    CHECK_EQ(fkrt_input_bound(m.get(), 1, 0), 0);
  } catch (const fkrt::Error &e) {
    CHECK(false);
    std::printf("  %s\n", e.what());
  }
  std::remove(path.c_str());
}

void testBoundWeights(const std::string &ptx) {
  std::vector<float> x(kN), w(kN), y(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(i) / 4, w[i] = float(i % 7) - 3;
  std::string file = writeWeights(w);
  if (file.empty())
    return;
  const char *path = file.c_str();

  try {
    fkrt::Module m = fkrt::Module::fromMemory(ptx.data(), ptx.size());
    m.loadCuda(0);
    m.bindWeights("add", path);
    std::vector<fkrt::TensorInfo> inputs = m.inputs(0);
    CHECK(!inputs[0].bound && inputs[1].bound);
    CHECK_EQ(fkrt_input_bound(m.get(), 0, 1), 1);
    const size_t bytes = kN * sizeof(float);
    fkrt::DeviceBuffer dx(0, bytes), dy(0, bytes);
    dx.copyFrom(x.data());
    const std::vector<int64_t> shape = {kN};
    std::vector<fkrt_tensor> in = {dx.tensor(FKRT_F32, shape)};
    std::vector<fkrt_tensor> out = {dy.tensor(FKRT_F32, shape)};
    for (int run = 0; run < 3; ++run) { // the later runs replay a CUDA graph
      dy.fill(0xFF);
      m.run("add", in, out);
      fkrt::synchronize(0);
      dy.copyTo(y.data());
      bool ok = true;
      for (int64_t i = 0; i < kN && ok; ++i)
        ok = y[i] == 2 * x[i] + w[i];
      CHECK(ok);
    }
    // The bound input is not the caller's to pass, nor to bind again.
    std::vector<fkrt_tensor> both = {in[0], in[0]};
    CHECK_EQ(fkrt_run_bound(m.get(), "add", both.data(), 2, out.data(), 1,
                            nullptr),
             FKRT_ERROR_INVALID_ARGUMENT);
    CHECK(std::strstr(fkrt_last_error(),
                      "fkrt_run_bound: graph 'add' takes 1 inputs besides "
                      "its bound ones ('x'), got 2"));
    CHECK_EQ(fkrt_bind_weights(m.get(), "add", path),
             FKRT_ERROR_INVALID_ARGUMENT);
    CHECK(std::strstr(fkrt_last_error(),
                      "input 'w' of graph 'add' is bound already"));
    // fkrt_run still takes every input.
    CHECK_EQ(fkrt_run(m.get(), "add", in.data(), 1, out.data(), 1, nullptr),
             FKRT_ERROR_INVALID_ARGUMENT);
  } catch (const fkrt::Error &e) {
    CHECK(false);
    std::printf("  %s\n", e.what());
  }
  std::remove(path);
}

/// Runs `path`'s graph "add", y = 2x + w over N elements, at each of
/// `sizes` (the largest `most`), checking each result; for a graph that
/// bounds N by `most`, also a size above it.
void testAddOverN(const std::string &path, int64_t most,
                  const std::vector<int64_t> &sizes) {
  std::string ptx = fkrt_test::readFile(path);
  fkrt_module m = nullptr;
  CHECK(fkrt_module_load_memory(ptx.data(), ptx.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_SUCCESS);
  bool bounded = fkrt_manifest_symbol_max(m, 0, 0) == most;
  size_t bytes = (most + 1) * sizeof(float);
  Cuda::Ptr dx{}, dw{}, dy{};
  CHECK(!cuda.memAlloc(&dx, bytes) && !cuda.memAlloc(&dw, bytes) &&
        !cuda.memAlloc(&dy, bytes));
  std::vector<float> x(most + 1), w(most + 1), y(most + 1);
  for (int64_t i = 0; i <= most; ++i)
    x[i] = float(i), w[i] = float(3 * i + 1);
  CHECK(!cuda.memcpyHtoD(dx, x.data(), bytes) &&
        !cuda.memcpyHtoD(dw, w.data(), bytes));
  const float poison = -7.0f;
  // Runs at size n (twice, so that the second is captured), then checks
  // the n results and that the element after them was not written.
  auto runAt = [&](int64_t n) {
    std::vector<float> fill(most + 1, poison);
    bool ok = !cuda.memcpyHtoD(dy, fill.data(), bytes);
    const int64_t shape[] = {n};
    fkrt_tensor in[2] = {{reinterpret_cast<void *>(dx), FKRT_F32, 1, shape},
                         {reinterpret_cast<void *>(dw), FKRT_F32, 1, shape}};
    fkrt_tensor out[1] = {{reinterpret_cast<void *>(dy), FKRT_F32, 1, shape}};
    for (int run = 0; run < 2 && ok; ++run)
      ok = fkrt_run(m, "add", in, 2, out, 1, nullptr) == FKRT_SUCCESS;
    ok = ok && !cuda.streamSynchronize(nullptr) &&
         !cuda.memcpyDtoH(y.data(), dy, bytes);
    for (int64_t i = 0; i < n && ok; ++i)
      ok = y[i] == 2 * x[i] + w[i];
    return ok && y[n] == poison;
  };
  for (int64_t n : sizes)
    CHECK(runAt(n));
  // One replay per size (a size of 0 launches nothing).
  CHECK_EQ(fkrt_cuda_graph_count(m), sizes.size() - 1);
  if (bounded) {
    const int64_t above[] = {most + 1};
    fkrt_tensor in[2] = {{reinterpret_cast<void *>(dx), FKRT_F32, 1, above},
                         {reinterpret_cast<void *>(dw), FKRT_F32, 1, above}};
    fkrt_tensor out[1] = {{reinterpret_cast<void *>(dy), FKRT_F32, 1, above}};
    CHECK_EQ(fkrt_run(m, "add", in, 2, out, 1, nullptr),
             FKRT_ERROR_INVALID_ARGUMENT);
    CHECK(std::strstr(fkrt_last_error(),
                      ("makes N " + std::to_string(most + 1) +
                       ", above its bound " + std::to_string(most))
                          .c_str()));
  }
  cuda.memFree(dx);
  cuda.memFree(dw);
  cuda.memFree(dy);
  fkrt_module_destroy(m);
}

/// symbolic.ptx: y = 2x + w over N elements given per run (version 4), at
/// sizes 1, 1000, 4096 and 0 (whose launches are skipped), above N's bound,
/// and replayed as CUDA graphs per size on one set of buffers. Then
/// symbolic_unbounded.ptx, the same without a bound (version 5): its
/// workspace buffer placed per run, at sizes rising to 2^20 and back,
/// which grow the pooled workspace as they come.
void testSymbols(const std::string &dataDir) {
  testAddOverN(dataDir + "/symbolic.ptx", 4096, {1, 1000, 4096, 0, 255, 257});
  testAddOverN(dataDir + "/symbolic_unbounded.ptx", 1 << 20,
               {1, 1000, 4096, 0, 100000, 1 << 20, 257});
}

void runBasicTests(const std::string &dataDir) {
  std::string ptx = fkrt_test::readFile(dataDir + "/add.ptx");
  fkrt_module m = nullptr;
  CHECK(fkrt_module_load_memory(ptx.data(), ptx.size(), &m) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_SUCCESS);
  CHECK(fkrt_module_load_cuda(m, 0) == FKRT_ERROR_INVALID_ARGUMENT);

  // The legacy default stream, then several threads on streams of their own.
  CHECK(runAdd(m, nullptr, 1, 3));
  onStreamsOfTheirOwn(8, [&](int t, void *stream) {
    return runAdd(m, stream, 100 * t, 25);
  });
  fkrt_module_destroy(m);

  testDeviceApi(ptx);
  testCudaGraphs(ptx);
  testBoundWeights(ptx);
  testBoundWeightsTwoGraphs(dataDir);
  testTensorMaps(dataDir);
  testSymbolicTensorMaps(dataDir);
  testSymbols(dataDir);

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
}

} // namespace

int main(int argc, char **argv) {
  std::string dataDir = FKRT_TEST_DATA_DIR;
  bool loadOnly = false, outOfMemory = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--load-only") {
      loadOnly = true;
    } else if (arg == "--oom") {
      outOfMemory = true;
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr,
                   "fkrt-gpu-tests: unknown option '%s'\n"
                   "usage: fkrt-gpu-tests [--load-only] [--oom] [DATA_DIR]\n",
                   arg.c_str());
      return 2;
    } else {
      dataDir = arg;
    }
  }
  if (fkrt_driver_available() != FKRT_SUCCESS || !cuda.load()) {
    std::printf("skipped: no usable CUDA driver (%s)\n", fkrt_last_error());
    return fkrt_test::finish();
  }
  if (!loadOnly)
    runBasicTests(dataDir);
  fkrt_test::runLoadTests(dataDir, outOfMemory);
  return fkrt_test::finish();
}
