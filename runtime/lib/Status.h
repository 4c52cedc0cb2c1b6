//===- Status.h - Error reporting of the C API ------------------*- C++ -*-===//
//
// Every fallible C entry point leaves its message in a thread-local buffer
// (fkrt_last_error) and returns a status; no C++ exception may cross the C
// API. Shared by the files that implement the API.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_STATUS_H
#define FKRT_LIB_STATUS_H

#include "fkrt/runtime.h"

#include <new>
#include <string>

namespace fkrt {

/// This thread's last error message.
std::string &lastError();

/// Records `message` as this thread's last error and returns `status`.
inline fkrt_status fail(fkrt_status status, std::string message) {
  lastError() = std::move(message);
  return status;
}

/// Runs `body` so that no C++ exception crosses the C API: the only ones the
/// runtime can raise are allocation failures.
template <typename F> fkrt_status guarded(F body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(FKRT_ERROR_OUT_OF_MEMORY, "out of host memory");
  }
}

} // namespace fkrt

#endif // FKRT_LIB_STATUS_H
