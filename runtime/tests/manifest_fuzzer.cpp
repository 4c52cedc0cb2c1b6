//===- manifest_fuzzer.cpp - libFuzzer target over the artifact reader ----===//
//
// Loads arbitrary bytes as an artifact and, when they load, walks every
// manifest query. Any crash, leak or undefined behaviour is a bug.
//
//===----------------------------------------------------------------------===//

#include "fkrt/runtime.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fkrt_module m = nullptr;
  if (fkrt_module_load_memory(data, size, &m) != FKRT_SUCCESS)
    return 0;
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
  }
  fkrt_module_destroy(m);
  return 0;
}
