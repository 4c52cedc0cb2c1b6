//===- safetensors_fuzzer.cpp - libFuzzer target over .safetensors --------===//
//
// Parses arbitrary bytes as a .safetensors file; what parses must write and
// read back to the same tensors and metadata. Any crash, leak, undefined
// behaviour or mismatch is a bug.
//
//===----------------------------------------------------------------------===//

#include "fkrt/safetensors.hpp"

#include <cstdlib>

using namespace fkrt::safetensors;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  File file, back;
  std::string error, bytes;
  if (!parse(data, size, file, error)) {
    if (error.empty())
      std::abort();
    return 0;
  }
  if (!serialize(file, bytes, error) ||
      !parse(bytes.data(), bytes.size(), back, error) ||
      back.metadata != file.metadata ||
      back.tensors.size() != file.tensors.size())
    std::abort();
  for (const fkrt::bundle::Tensor &t : file.tensors) {
    const fkrt::bundle::Tensor *u = back.find(t.name);
    if (!u || u->dtype != t.dtype || u->shape != t.shape || u->data != t.data)
      std::abort();
  }
  return 0;
}
