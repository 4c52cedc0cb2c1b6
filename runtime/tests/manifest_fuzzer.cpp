//===- manifest_fuzzer.cpp - libFuzzer target over the artifact reader ----===//
//
// Each input is read three ways:
//  1. loaded as a whole artifact and, when it loads, every manifest query
//     is walked and each graph's run is checked at made-up sizes;
//  2. scanned as PTX by the `.entry` scanner alone, whose results must be
//     well formed (names are identifiers, lines in order) and whose errors
//     must name a line;
//  3. loaded as the PTX of an artifact with a fixed valid manifest, so that
//     mutations reach the scanner and the check of launches against
//     kernels even when they would break a manifest: when that loads, the
//     scanner must have found the kernel the manifest launches, defined,
//     with parameters its arguments fit.
// Any crash, leak, undefined behaviour or abort is a bug.
//
//===----------------------------------------------------------------------===//

#include "PtxEntries.h"
#include "fkrt/runtime.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// The tensors of a run of graph `g` at made-up addresses, each symbolic
/// dimension 3: fkrt_run's checks, the symbols'
/// binding and the per-run sizes of the launches are walked (the run then
/// stops at the driver or the unloaded module).
void checkRun(fkrt_module m, size_t g) {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<fkrt_tensor> tensors[2];
  uintptr_t address = uintptr_t(1) << 40;
  for (int output = 0; output < 2; ++output) {
    size_t count = output ? fkrt_manifest_output_count(m, g)
                          : fkrt_manifest_input_count(m, g);
    for (size_t i = 0; i < count; ++i) {
      fkrt_tensor_info info;
      if ((output ? fkrt_manifest_output(m, g, i, &info)
                  : fkrt_manifest_input(m, g, i, &info)) != FKRT_SUCCESS)
        std::abort();
      shapes.emplace_back(info.shape, info.shape + info.rank);
      for (size_t d = 0; d < shapes.back().size(); ++d) {
        const char *dim = output ? fkrt_manifest_output_dim(m, g, i, d)
                                 : fkrt_manifest_input_dim(m, g, i, d);
        if ((shapes.back()[d] < 0) != (dim != nullptr))
          std::abort();
        if (dim)
          shapes.back()[d] = 3;
      }
      if (!output)
        for (size_t s = 0; s < fkrt_manifest_symbol_count(m, g); ++s)
          (void)fkrt_manifest_symbol_max(m, g, s);
      address += uintptr_t(1) << 36;
      tensors[output].push_back({reinterpret_cast<void *>(address),
                                 int32_t(info.dtype), info.rank, nullptr});
    }
  }
  size_t next = 0;
  for (int output = 0; output < 2; ++output)
    for (fkrt_tensor &t : tensors[output])
      t.shape = shapes[next++].data();
  if (!tensors[1].empty()) {
    std::vector<int64_t> shape(16);
    (void)fkrt_output_shape(m, fkrt_manifest_graph_name(m, g),
                            tensors[0].data(), tensors[0].size(), 0,
                            shape.data());
  }
  (void)fkrt_run(m, fkrt_manifest_graph_name(m, g), tensors[0].data(),
                 tensors[0].size(), tensors[1].data(), tensors[1].size(),
                 nullptr);
}

void walkQueries(fkrt_module m) {
  for (size_t g = 0; g < fkrt_manifest_graph_count(m); ++g) {
    size_t found;
    if (fkrt_manifest_find_graph(m, fkrt_manifest_graph_name(m, g), &found) !=
            FKRT_SUCCESS ||
        found != g)
      std::abort();
    fkrt_tensor_info info;
    for (size_t i = 0; i < fkrt_manifest_input_count(m, g); ++i)
      if (fkrt_manifest_input(m, g, i, &info) != FKRT_SUCCESS ||
          (info.rank && !info.shape))
        std::abort();
    for (size_t i = 0; i < fkrt_manifest_output_count(m, g); ++i)
      if (fkrt_manifest_output(m, g, i, &info) != FKRT_SUCCESS)
        std::abort();
    for (size_t s = 0; s < fkrt_manifest_symbol_count(m, g); ++s)
      if (!fkrt_manifest_symbol_name(m, g, s))
        std::abort();
    checkRun(m, g);
  }
}

void scanAlone(const std::string &text) {
  std::vector<fkrt::ptx::Entry> entries;
  std::string error;
  if (!fkrt::ptx::scanEntries(text, entries, error)) {
    if (error.compare(0, 10, "ptx: line ") != 0)
      std::abort();
    return;
  }
  unsigned lines = 1;
  for (char c : text)
    lines += c == '\n';
  unsigned last = 0;
  for (const fkrt::ptx::Entry &e : entries) {
    if (!fkrt::ptx::isIdentifier(e.name) || e.line < last || e.line > lines)
      std::abort();
    last = e.line;
    for (const fkrt::ptx::Param &p : e.params)
      if (!fkrt::ptx::isIdentifier(p.name) || p.type.empty() ||
          p.text().empty())
        std::abort();
  }
}

/// A valid manifest launching kernel "k" with a buffer, a buffer, an i64 and
/// an i32.
const char kManifest[] =
    "// fkc-manifest-begin\n"
    "// {\"format\": \"fkc-artifact\", \"version\": 1, \"target\": \"sm_90\",\n"
    "//  \"graphs\": [{\"name\": \"g\",\n"
    "//   \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [4]}],\n"
    "//   \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [4]}],\n"
    "//   \"workspace_bytes\": 0,\n"
    "//   \"buffers\": [{\"id\": 0, \"kind\": \"input\", \"index\": 0},\n"
    "//               {\"id\": 1, \"kind\": \"output\", \"index\": 0}],\n"
    "//   \"launches\": [{\"kernel\": \"k\", \"grid\": [1, 1, 1], \"block\": "
    "[4, 1, 1], \"shared_bytes\": 0,\n"
    "//     \"args\": [{\"buffer\": 0}, {\"buffer\": 1}, {\"i64\": 4}, "
    "{\"i32\": 4}]}]}]}\n"
    "// fkc-manifest-end\n";

void loadAsPtx(const std::string &ptx) {
  std::string text = std::string(kManifest) + ptx;
  fkrt_module m = nullptr;
  if (fkrt_module_load_memory(text.data(), text.size(), &m) != FKRT_SUCCESS)
    return;
  walkQueries(m);
  fkrt_module_destroy(m);
  std::vector<fkrt::ptx::Entry> entries;
  std::string error;
  if (!fkrt::ptx::scanEntries(text, entries, error))
    std::abort();
  for (const fkrt::ptx::Entry &e : entries)
    if (e.name == "k" && e.defined) {
      const auto &p = e.params;
      if (p.size() != 4 || p[2].bits != 64 || p[3].bits != 32 || p[2].array ||
          !p[3].integer || p[2].pointer || p[3].pointer)
        std::abort();
      return;
    }
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fkrt_module m = nullptr;
  if (fkrt_module_load_memory(data, size, &m) == FKRT_SUCCESS) {
    walkQueries(m);
    fkrt_module_destroy(m);
  }
  std::string text(reinterpret_cast<const char *>(data), size);
  scanAlone(text);
  loadAsPtx(text);
  return 0;
}
