//===- Statistics.h - What an output holds, in one line ---------*- C++ -*-===//
//
// The summary fkc-run prints for each output: min, max and mean of the
// finite elements, how many are NaN or infinite, how many still hold the
// 0xFF poison written before the run, and the first few values.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_RUN_STATISTICS_H
#define FKC_RUN_STATISTICS_H

#include "fkrt/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fkcrun {

struct Statistics {
  uint64_t count = 0;
  /// Over the finite elements only; meaningless when `finite` is 0.
  double min = 0, max = 0, mean = 0;
  uint64_t finite = 0, nan = 0, inf = 0;
  /// Elements whose bytes are all 0xFF: never written if poisoned before.
  uint64_t poisoned = 0;
  std::vector<double> first;
};

/// The statistics of the `count` elements of `dtype` at `data`, keeping the
/// first `firstCount` values.
Statistics summarize(fkrt_dtype dtype, const uint8_t *data, uint64_t count,
                     size_t firstCount = 8);

/// One element as fkc-run prints it: integers in full, floats as %.6g, and
/// "nan", "inf", "-inf".
std::string formatValue(fkrt_dtype dtype, double value);

/// "min -0.5 max 0.9 mean 0.1 nan 0 inf 0 first [0.1, ...]".
std::string formatStatistics(fkrt_dtype dtype, const Statistics &s);

/// "[1, 2]": the multi-index of flat index `index` in a row-major `shape`.
std::string formatIndex(const std::vector<int64_t> &shape, uint64_t index);

} // namespace fkcrun

#endif // FKC_RUN_STATISTICS_H
