//===- bundle_fuzzer.cpp - libFuzzer target over the bundle reader --------===//
//
// Parses arbitrary bytes as a tensor bundle; what parses must validate and
// encode back to the very same bytes. Any crash, leak, undefined behaviour
// or mismatch is a bug.
//
//===----------------------------------------------------------------------===//

#include "fkrt/bundle.hpp"

#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fkrt::bundle::Bundle bundle;
  std::string error;
  if (!fkrt::bundle::parse(data, size, bundle, error)) {
    if (error.empty())
      std::abort();
    return 0;
  }
  std::string bytes;
  if (!fkrt::bundle::validate(bundle, error) ||
      !fkrt::bundle::serialize(bundle, bytes, error) || bytes.size() != size ||
      std::memcmp(bytes.data(), data, size) != 0)
    std::abort();
  return 0;
}
