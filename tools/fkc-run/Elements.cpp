//===- Elements.cpp - Reading and writing tensor elements -----------------===//

#include "Elements.h"
#include "fkrt/bundle.hpp"

#include <cmath>
#include <cstring>

using namespace fkcrun;

namespace {

/// A binary floating-point format narrower than double: `mantissa` stored
/// fraction bits, exponent bias `bias`, quiet NaN pattern `nan`.
struct Format {
  int exponentBits, mantissa, bias;
  uint16_t nan;
};

constexpr Format kHalf{5, 10, 15, 0x7E00};
constexpr Format kBFloat16{8, 7, 127, 0x7FC0};

/// Rounds `value` to `f`, ties to even, and returns its bit pattern. Every
/// step is exact in double arithmetic (scalings by powers of two, and
/// rounding a number of at most 53 bits to an integer) but the rounding
/// itself, which std::nearbyint does in the default ties-to-even mode.
uint16_t encode(double value, const Format &f) {
  if (std::isnan(value))
    return f.nan;
  uint16_t sign = std::signbit(value) ? uint16_t(1) << 15 : 0;
  double a = std::fabs(value);
  const int minExponent = 1 - f.bias;
  const int maxExponent = (1 << f.exponentBits) - 2 - f.bias;
  const uint16_t infinity = uint16_t(((1 << f.exponentBits) - 1) << f.mantissa);
  if (a == 0)
    return sign;
  if (std::isinf(a))
    return sign | infinity;
  int exponent;
  std::frexp(a, &exponent); // a = m * 2^exponent, m in [0.5, 1)
  --exponent;               // a = m' * 2^exponent, m' in [1, 2)
  if (exponent < minExponent)
    exponent = minExponent; // subnormal: the quantum of the smallest binade
  if (exponent > maxExponent + 1)
    return sign | infinity;
  double quantum = std::ldexp(1.0, exponent - f.mantissa);
  double rounded = std::nearbyint(a / quantum) * quantum;
  if (rounded == 0) // a subnormal's half quantum or less
    return sign;
  // The rounded value, exactly representable in the format unless it
  // overflowed past the largest finite value.
  std::frexp(rounded, &exponent);
  --exponent;
  if (exponent > maxExponent)
    return sign | infinity;
  if (exponent < minExponent) // subnormal
    return sign | uint16_t(rounded / std::ldexp(1.0, minExponent - f.mantissa));
  uint16_t fraction = uint16_t((rounded / std::ldexp(1.0, exponent) - 1) *
                               std::ldexp(1.0, f.mantissa));
  return sign | uint16_t((exponent + f.bias) << f.mantissa) | fraction;
}

double decode(uint16_t bits, const Format &f) {
  double sign = bits >> 15 ? -1.0 : 1.0;
  int exponentField = (bits >> f.mantissa) & ((1 << f.exponentBits) - 1);
  int fraction = bits & ((1 << f.mantissa) - 1);
  if (exponentField == (1 << f.exponentBits) - 1)
    return fraction ? std::nan("") : sign * HUGE_VAL;
  if (exponentField == 0)
    return sign * std::ldexp(fraction, 1 - f.bias - f.mantissa);
  return sign * std::ldexp(fraction + (1 << f.mantissa),
                           exponentField - f.bias - f.mantissa);
}

template <typename T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T> void store(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

} // namespace

uint16_t fkcrun::toHalf(double value) { return encode(value, kHalf); }
uint16_t fkcrun::toBFloat16(double value) { return encode(value, kBFloat16); }
double fkcrun::fromHalf(uint16_t bits) { return decode(bits, kHalf); }
double fkcrun::fromBFloat16(uint16_t bits) { return decode(bits, kBFloat16); }

size_t fkcrun::elementSize(fkrt_dtype dtype) {
  return fkrt::bundle::dtypeSize(dtype);
}

bool fkcrun::isFloat(fkrt_dtype dtype) {
  return dtype == FKRT_F32 || dtype == FKRT_F16 || dtype == FKRT_BF16;
}

double fkcrun::readElement(fkrt_dtype dtype, const uint8_t *p) {
  switch (dtype) {
  case FKRT_F32:
    return load<float>(p);
  case FKRT_F16:
    return fromHalf(load<uint16_t>(p));
  case FKRT_BF16:
    return fromBFloat16(load<uint16_t>(p));
  case FKRT_I32:
    return load<int32_t>(p);
  case FKRT_I64:
    return static_cast<double>(load<int64_t>(p));
  case FKRT_I1:
    return *p;
  }
  return 0;
}

void fkcrun::writeElement(fkrt_dtype dtype, double value, uint8_t *p) {
  switch (dtype) {
  case FKRT_F32:
    return store(p, static_cast<float>(value));
  case FKRT_F16:
    return store(p, toHalf(value));
  case FKRT_BF16:
    return store(p, toBFloat16(value));
  case FKRT_I32:
    return store(p, static_cast<int32_t>(value));
  case FKRT_I64: // 2^63, the double nearest to INT64_MAX, stands for it.
    return store(p, value >= 0x1p63 ? INT64_MAX : static_cast<int64_t>(value));
  case FKRT_I1:
    *p = value != 0;
    return;
  }
}
