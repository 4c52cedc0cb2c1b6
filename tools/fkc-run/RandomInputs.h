//===- RandomInputs.h - Seeded random graph inputs --------------*- C++ -*-===//
//
// The inputs fkc's reference interpreter makes for `fkc --interpret --seed N`
// (compiler/Reference/TensorUtilities.cpp), value for value: both draw from
// fkrt::bundle::SplitMix64::nextInput, floats rounded to their dtype. A
// seeded run of fkc-run therefore sees exactly the inputs the interpreter
// would.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_RANDOMINPUTS_H
#define FKC_RUN_RANDOMINPUTS_H

#include "fkrt/bundle.hpp"

#include <cstdint>
#include <vector>

namespace fkcrun {

/// The generator fkc's reference interpreter uses too.
using fkrt::bundle::SplitMix64;

/// Fills `count` elements of `dtype` with the next values of `random`,
/// stored as fkrt stores them.
std::vector<uint8_t> randomElements(fkrt_dtype dtype, uint64_t count,
                                    SplitMix64 &random);

} // namespace fkcrun

#endif // FKC_RUN_RANDOMINPUTS_H
