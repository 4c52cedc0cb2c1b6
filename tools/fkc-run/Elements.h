//===- Elements.h - Reading and writing tensor elements ---------*- C++ -*-===//
//
// Converts single elements of every fkrt dtype between their stored bytes
// and doubles: f16 and bf16 by bit manipulation (no compiler support for
// them is assumed), rounding to nearest-even like the reference interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_ELEMENTS_H
#define FKC_RUN_ELEMENTS_H

#include "fkrt/runtime.h"

#include <cstddef>
#include <cstdint>

namespace fkcrun {

/// The size of an element of `dtype` in bytes, 0 if it is not a dtype.
size_t elementSize(fkrt_dtype dtype);

/// Whether `dtype` is f32, f16 or bf16.
bool isFloat(fkrt_dtype dtype);

/// The value of the element stored at `p`: exact for every dtype but i64
/// values beyond 2^53, which round to the nearest double (an i1 byte is
/// returned as is, so a byte other than 0 or 1 shows).
double readElement(fkrt_dtype dtype, const uint8_t *p);

/// Stores `value` at `p`, rounded to nearest-even for the float dtypes; for
/// i32, i64 and i1, `value` must be an integer in range (i1: nonzero stores
/// 1; i64: 2^63 stores INT64_MAX, the value it stands for).
void writeElement(fkrt_dtype dtype, double value, uint8_t *p);

/// IEEE binary16 and bfloat16 bit patterns of `value`, correctly rounded
/// (ties to even; NaN becomes a quiet NaN, overflow infinity).
uint16_t toHalf(double value);
uint16_t toBFloat16(double value);
double fromHalf(uint16_t bits);
double fromBFloat16(uint16_t bits);

} // namespace fkcrun

#endif // FKC_RUN_ELEMENTS_H
