//===- weight_binding_tests.cpp - Weights bound to a module, without GPU --===//
//
// The host side of fkrt_bind_weights: the matching of a file's tensors to a
// graph's inputs (fkrt::matchWeights, a pure function, every rejection and
// all of them at once), and the C API's checks, in their documented order,
// up to where a GPU is needed; fkrt_run_bound with nothing bound is
// fkrt_run. The upload and bound runs are in gpu_tests.cpp.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "WeightBinding.h"
#include "fkrt/runtime.h"
#include "fkrt/safetensors.hpp"

#include <cstring>
#include <unistd.h>

namespace {

using fkrt::bundle::Tensor;
namespace st = fkrt::safetensors;

const std::string kData = FKRT_TEST_DATA_DIR;

Tensor tensor(const std::string &name, fkrt_dtype dtype,
              std::vector<int64_t> shape) {
  Tensor t{name, dtype, std::move(shape), {}};
  t.data.assign(t.elementCount() * fkrt::bundle::dtypeSize(dtype), 0);
  return t;
}

fkrt::TensorSpec spec(const std::string &name, fkrt_dtype dtype,
                      std::vector<int64_t> shape, int64_t aliases = -1) {
  fkrt::TensorSpec t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.aliases = aliases;
  return t;
}

void expectMatch(const fkrt::GraphSpec &g, const std::vector<bool> &bound,
                 const std::vector<Tensor> &tensors, const std::string &want,
                 std::vector<int64_t> *tensorOf = nullptr) {
  st::File file;
  file.tensors = tensors;
  std::vector<int64_t> found;
  std::string got = fkrt::matchWeights(g, bound, file, found);
  CHECK(got == want);
  if (got != want)
    std::printf("  expected '%s'\n  got      '%s'\n", want.c_str(),
                got.c_str());
  if (tensorOf)
    *tensorOf = found;
}

void testMatchWeights() {
  fkrt::GraphSpec g;
  g.name = "block";
  g.inputs = {spec("x", FKRT_F16, {4, 8}), spec("w", FKRT_F16, {8, 8}),
              spec("b", FKRT_F32, {8}), spec("cache", FKRT_F16, {2, 8})};
  g.outputs = {spec("y", FKRT_F16, {4, 8}),
               spec("cache_1", FKRT_F16, {2, 8}, /*aliases=*/3)};

  // Weights: a subset, in any order; the rest is the caller's.
  std::vector<int64_t> tensorOf;
  expectMatch(g, {}, {tensor("b", FKRT_F32, {8}), tensor("w", FKRT_F16, {8, 8})},
              "", &tensorOf);
  CHECK((tensorOf == std::vector<int64_t>{-1, 1, 0, -1}));
  expectMatch(g, {false, false, false, false}, {}, "", &tensorOf);
  CHECK((tensorOf == std::vector<int64_t>{-1, -1, -1, -1}));

  // Each rejection, then all at once.
  expectMatch(g, {}, {tensor("w", FKRT_F32, {8, 8})},
              "tensor 'w' is f32[8, 8], parameter 'w' of graph 'block' is "
              "f16[8, 8]");
  expectMatch(g, {}, {tensor("b", FKRT_F32, {1, 8})},
              "tensor 'b' is f32[1, 8], parameter 'b' of graph 'block' is "
              "f32[8]");
  expectMatch(g, {}, {tensor("bias", FKRT_F32, {8})},
              "tensor 'bias' is no parameter of graph 'block'");
  expectMatch(g, {}, {tensor("cache", FKRT_F16, {2, 8})},
              "input 'cache' of graph 'block' is inout (runs update it in "
              "place): it cannot be bound");
  expectMatch(g, {false, true, false, false}, {tensor("w", FKRT_F16, {8, 8})},
              "input 'w' of graph 'block' is bound already");
  expectMatch(g, {false, true, false, false},
              {tensor("w", FKRT_F16, {8, 8}), tensor("b", FKRT_BF16, {8}),
               tensor("cache", FKRT_F16, {2, 8}), tensor("u", FKRT_I1, {}),
               tensor("v", FKRT_I1, {})},
              "tensor 'b' is bf16[8], parameter 'b' of graph 'block' is "
              "f32[8]; tensors 'u' and 'v' are no parameter of graph "
              "'block'; input 'w' of graph 'block' is bound already; input "
              "'cache' of graph 'block' is inout (runs update it in place): "
              "it cannot be bound");
}

std::string tempDir() {
  char path[] = "/tmp/fkrt-weight-tests-XXXXXX";
  return mkdtemp(path) ? path : "/tmp";
}

void testBindWithoutGpu() {
  fkrt_module m = nullptr, inout = nullptr;
  CHECK_EQ(fkrt_module_load_file((kData + "/sample.ptx").c_str(), &m),
           FKRT_SUCCESS);
  CHECK_EQ(fkrt_module_load_file((kData + "/inout.ptx").c_str(), &inout),
           FKRT_SUCCESS);
  if (!m || !inout)
    return;
  const std::string dir = tempDir();
  auto write = [&](const std::string &name, std::vector<Tensor> tensors) {
    st::File f;
    f.tensors = std::move(tensors);
    std::string error, path = dir + "/" + name;
    CHECK(st::write(path, f, error));
    return path;
  };
  auto expect = [&](fkrt_status got, fkrt_status status,
                    const std::string &text) {
    bool ok = got == status && std::strstr(fkrt_last_error(), text.c_str());
    CHECK(ok);
    if (!ok)
      std::printf("  got %d: '%s', expected %d: '%s'\n", got,
                  fkrt_last_error(), status, text.c_str());
  };

  // sample.ptx's graph 'mlp' takes x: f16[64, 32] and w: f16[32, 32].
  const std::string w = write("w.safetensors", {tensor("w", FKRT_F16, {32, 32})});
  expect(fkrt_bind_weights(nullptr, "mlp", w.c_str()),
         FKRT_ERROR_INVALID_ARGUMENT, "fkrt_bind_weights: module is null");
  expect(fkrt_bind_weights(m, nullptr, w.c_str()), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_bind_weights: graph_name is null");
  expect(fkrt_bind_weights(m, "mlp", nullptr), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_bind_weights: path is null");
  expect(fkrt_bind_weights(m, "nope", w.c_str()), FKRT_ERROR_NOT_FOUND,
         "fkrt_bind_weights: no graph named 'nope'");
  expect(fkrt_bind_weights(m, "mlp", (dir + "/missing.safetensors").c_str()),
         FKRT_ERROR_IO,
         "fkrt_bind_weights: " + dir +
             "/missing.safetensors: cannot open: No such file or directory");
  const std::string garbage = dir + "/garbage.safetensors";
  {
    std::FILE *f = std::fopen(garbage.c_str(), "wb");
    std::fputs("short", f);
    std::fclose(f);
  }
  expect(fkrt_bind_weights(m, "mlp", garbage.c_str()),
         FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_bind_weights: " + garbage +
             ": truncated: 5 bytes, the header length alone takes 8");
  const std::string bad = write(
      "bad.safetensors",
      {tensor("w", FKRT_F32, {32, 32}), tensor("extra", FKRT_F32, {1})});
  expect(fkrt_bind_weights(m, "mlp", bad.c_str()), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_bind_weights: " + bad +
             ": tensor 'w' is f32[32, 32], parameter 'w' of graph 'mlp' is "
             "f16[32, 32]; tensor 'extra' is no parameter of graph 'mlp'");
  const std::string cache =
      write("cache.safetensors", {tensor("cache", FKRT_F32, {1000})});
  expect(fkrt_bind_weights(inout, "accumulate", cache.c_str()),
         FKRT_ERROR_INVALID_ARGUMENT,
         "input 'cache' of graph 'accumulate' is inout (runs update it in "
         "place): it cannot be bound");

  // A binding that matches: only then does the GPU matter.
  bool driver = fkrt_driver_available() == FKRT_SUCCESS;
  fkrt_status status = fkrt_bind_weights(m, "mlp", w.c_str());
  if (driver)
    expect(status, FKRT_ERROR_NOT_LOADED,
           "fkrt_bind_weights: the module is not loaded on CUDA");
  else
    expect(status, FKRT_ERROR_NO_DRIVER,
           "fkrt_bind_weights: CUDA driver library libcuda.so.1 not found");
  // Nothing was bound.
  CHECK_EQ(fkrt_input_bound(m, 0, 0), 0);
  CHECK_EQ(fkrt_input_bound(m, 0, 1), 0);
  CHECK_EQ(fkrt_input_bound(m, 7, 0), 0);
  CHECK_EQ(fkrt_input_bound(nullptr, 0, 0), 0);

  // fkrt_run_bound with nothing bound is fkrt_run, messages included.
  int64_t xShape[] = {64, 32}, wShape[] = {32, 32}, yShape[] = {64, 32};
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *q = reinterpret_cast<void *>(uintptr_t(0x80000));
  fkrt_tensor in[2] = {{p, FKRT_F16, 2, xShape}, {p, FKRT_F16, 2, wShape}};
  fkrt_tensor out[1] = {{q, FKRT_F16, 2, yShape}};
  expect(fkrt_run_bound(nullptr, "mlp", in, 2, out, 1, nullptr),
         FKRT_ERROR_INVALID_ARGUMENT, "fkrt_run_bound: module is null");
  expect(fkrt_run_bound(m, nullptr, in, 2, out, 1, nullptr),
         FKRT_ERROR_INVALID_ARGUMENT, "fkrt_run_bound: graph_name is null");
  expect(fkrt_run_bound(m, "nope", in, 2, out, 1, nullptr),
         FKRT_ERROR_NOT_FOUND, "fkrt_run_bound: no graph named 'nope'");
  expect(fkrt_run_bound(m, "mlp", in, 1, out, 1, nullptr),
         FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' takes 2 inputs, got 1");
  CHECK(fkrt_run_bound(m, "mlp", in, 2, out, 1, nullptr) ==
        fkrt_run(m, "mlp", in, 2, out, 1, nullptr));
  fkrt_module_destroy(m);
  fkrt_module_destroy(inout);
}

} // namespace

int main() {
  testMatchWeights();
  testBindWithoutGpu();
  return fkrt_test::finish();
}
