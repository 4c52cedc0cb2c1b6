//===- TestSupport.h - checks shared by the runtime's test programs -------===//
//
// The runtime's tests are plain programs (the GPU machine has no test
// framework to install): CHECK counts, prints each failure with the
// runtime's last error, and `finish` prints the closing "N passed, M failed"
// line that the lit tests match.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_TESTS_TESTSUPPORT_H
#define FKRT_TESTS_TESTSUPPORT_H

#include "fkrt/runtime.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace fkrt_test {
inline int passed = 0;
inline int failed = 0;

/// The whole contents of a file, or "" if it cannot be read.
inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Prints the closing line and returns the process exit code.
inline int finish() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
} // namespace fkrt_test

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++fkrt_test::passed;                                                     \
    } else {                                                                   \
      ++fkrt_test::failed;                                                     \
      std::printf("FAIL %s:%d: %s\n  last error: %s\n", __FILE__, __LINE__,     \
                  #cond, fkrt_last_error());                                   \
    }                                                                          \
  } while (0)

#define CHECK_EQ(a, b) CHECK((a) == (b))

#endif // FKRT_TESTS_TESTSUPPORT_H
