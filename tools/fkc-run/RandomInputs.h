//===- RandomInputs.h - Seeded random graph inputs --------------*- C++ -*-===//
//
// The inputs fkc's reference interpreter makes for `fkc --interpret --seed N`
// (compiler/Reference/TensorUtilities.cpp), value for value: one SplitMix64
// sequence over the inputs in order; floats uniform in [-1, 1) rounded to
// their dtype, i32 in [-8, 8], i1 0 or 1 with equal odds. A seeded run of
// fkc-run therefore sees exactly the inputs the interpreter would.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_RANDOMINPUTS_H
#define FKC_RUN_RANDOMINPUTS_H

#include "fkrt/runtime.h"

#include <cstdint>
#include <vector>

namespace fkcrun {

/// SplitMix64 (Steele, Lea and Flood, 2014): the same integers for a seed on
/// every platform, where std:: distributions differ between libraries.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}

  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1): the top 53 bits, exact in a double.
  double nextUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};

/// Fills `count` elements of `dtype` with the next values of `random`,
/// stored as fkrt stores them.
std::vector<uint8_t> randomElements(fkrt_dtype dtype, uint64_t count,
                                    SplitMix64 &random);

} // namespace fkcrun

#endif // FKC_RUN_RANDOMINPUTS_H
