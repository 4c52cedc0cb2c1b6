//===- Compare.h - An output against its expected value ---------*- C++ -*-===//
//
// Floats: the relative error in the L2 norm, ||got - want|| / ||want||, in
// double over the positions where both are finite, within a per-dtype
// tolerance; NaN and infinities must sit at the same positions (NaN matches
// any NaN, an infinity the same infinity). Integers and booleans: equal.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_COMPARE_H
#define FKC_RUN_COMPARE_H

#include "fkrt/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fkcrun {

/// The relative L2 error allowed for `dtype`: 1e-4 for f32 (2e-3 where the
/// artifact allows TF32), 1e-2 for f16, 5e-2 for bf16, 0 (exact) for i32,
/// i64 and i1.
double tolerance(fkrt_dtype dtype, bool tf32 = false);

struct Comparison {
  bool ok = true;
  /// Floats only: the relative L2 error over the finite positions (0 when
  /// both norms are 0).
  double relativeError = 0;
  double tolerance = 0;
  /// Floats: positions where one side is NaN or infinite and the other is
  /// not the same. Integers: positions that differ.
  uint64_t mismatches = 0;
  /// The position worth showing, if any: the first mismatch, or for floats
  /// without one the largest finite difference.
  bool hasWorst = false;
  uint64_t worst = 0;
  double got = 0, want = 0;
};

/// Compares `count` elements of `dtype` at `got` with those at `want`.
/// `tf32`: the artifact allows TF32 (its f32 tolerance is TF32's).
Comparison compare(fkrt_dtype dtype, const uint8_t *got, const uint8_t *want,
                   uint64_t count, bool tf32 = false);

/// "ok      rel. L2 error 1.2e-07 (tolerance 1e-04)" or "MISMATCH ...".
std::string formatComparison(fkrt_dtype dtype, const Comparison &c,
                             const std::vector<int64_t> &shape);

} // namespace fkcrun

#endif // FKC_RUN_COMPARE_H
