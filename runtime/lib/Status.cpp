//===- Status.cpp - Error reporting of the C API --------------------------===//

#include "Status.h"

std::string &fkrt::lastError() {
  static thread_local std::string message;
  return message;
}

extern "C" const char *fkrt_last_error(void) {
  return fkrt::lastError().c_str();
}
