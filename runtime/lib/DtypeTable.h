//===- DtypeTable.h - sizes and spellings of fkrt dtypes --------*- C++ -*-===//
//
// The one table of dtype sizes and names, shared by the runtime's C API and
// the bundle library (which does not link the runtime): the manifest's
// spellings and those of .safetensors headers.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_DTYPETABLE_H
#define FKRT_LIB_DTYPETABLE_H

#include "fkrt/runtime.h"
#include <cstddef>

namespace fkrt::detail {

/// The storage size of one element in bytes, 0 if `dtype` is not a dtype.
inline size_t dtypeSize(fkrt_dtype dtype) {
  switch (dtype) {
  case FKRT_I64:
    return 8;
  case FKRT_F32:
  case FKRT_I32:
    return 4;
  case FKRT_F16:
  case FKRT_BF16:
    return 2;
  case FKRT_I1:
    return 1;
  }
  return 0;
}

/// The manifest spelling ("f32", ...), null if `dtype` is not a dtype.
inline const char *dtypeName(fkrt_dtype dtype) {
  switch (dtype) {
  case FKRT_F32:
    return "f32";
  case FKRT_F16:
    return "f16";
  case FKRT_BF16:
    return "bf16";
  case FKRT_I32:
    return "i32";
  case FKRT_I64:
    return "i64";
  case FKRT_I1:
    return "i1";
  }
  return nullptr;
}

/// The .safetensors spelling ("F32", ...), null if `dtype` is not a dtype.
inline const char *safetensorsDtypeName(fkrt_dtype dtype) {
  switch (dtype) {
  case FKRT_F32:
    return "F32";
  case FKRT_F16:
    return "F16";
  case FKRT_BF16:
    return "BF16";
  case FKRT_I32:
    return "I32";
  case FKRT_I64:
    return "I64";
  case FKRT_I1:
    return "BOOL";
  }
  return nullptr;
}

} // namespace fkrt::detail

#endif // FKRT_LIB_DTYPETABLE_H
