//===- BundleTestSupport.h - checks shared by the tensor-file tests --------===//
//
// The tests of the bundle library's readers and writers (.fkt bundles and
// .safetensors files), which link no CUDA runtime: CHECK counts and prints
// each failure, `finish` prints the closing "N passed, M failed" line that
// the lit tests match. (TestSupport.h is the runtime tests' own, whose CHECK
// also prints fkrt_last_error().)
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_TESTS_BUNDLETESTSUPPORT_H
#define FKRT_TESTS_BUNDLETESTSUPPORT_H

#include "fkrt/bundle.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fkrt_bundle_test {
inline int passed = 0;
inline int failed = 0;

/// Prints the closing line and returns the process exit code.
inline int finish() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

/// The whole contents of a file, or "" if it cannot be read.
inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A new folder /tmp/PREFIX-XXXXXX (/tmp if it cannot be made).
inline std::string tempDir(const std::string &prefix) {
  std::string path = "/tmp/" + prefix + "-XXXXXX";
  return mkdtemp(path.data()) ? path : "/tmp";
}

/// A tensor of `shape` whose bytes count up from `fill` (i1: 0, 1, 0, ...).
inline fkrt::bundle::Tensor tensor(const std::string &name, fkrt_dtype dtype,
                                   std::vector<int64_t> shape,
                                   uint8_t fill = 0) {
  fkrt::bundle::Tensor t{name, dtype, std::move(shape), {}};
  t.data.resize(t.elementCount() * fkrt::bundle::dtypeSize(dtype));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = dtype == FKRT_I1 ? i % 2 : static_cast<uint8_t>(fill + i);
  return t;
}
} // namespace fkrt_bundle_test

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++fkrt_bundle_test::passed;                                              \
    } else {                                                                   \
      ++fkrt_bundle_test::failed;                                              \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);              \
    }                                                                          \
  } while (0)

#endif // FKRT_TESTS_BUNDLETESTSUPPORT_H
