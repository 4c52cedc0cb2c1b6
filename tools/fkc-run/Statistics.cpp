//===- Statistics.cpp - What an output holds, in one line -----------------===//

#include "Statistics.h"

#include "Elements.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace fkcrun;

Statistics fkcrun::summarize(fkrt_dtype dtype, const uint8_t *data,
                             uint64_t count, size_t firstCount) {
  Statistics s;
  s.count = count;
  const size_t size = elementSize(dtype);
  double sum = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t *p = data + i * size;
    double v = readElement(dtype, p);
    if (std::all_of(p, p + size, [](uint8_t b) { return b == 0xFF; }))
      ++s.poisoned;
    if (i < firstCount)
      s.first.push_back(v);
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    if (std::isinf(v)) {
      ++s.inf;
      continue;
    }
    s.min = s.finite ? std::min(s.min, v) : v;
    s.max = s.finite ? std::max(s.max, v) : v;
    sum += v;
    ++s.finite;
  }
  s.mean = s.finite ? sum / static_cast<double>(s.finite) : 0;
  return s;
}

std::string fkcrun::formatValue(fkrt_dtype dtype, double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  if (isFloat(dtype))
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  else
    std::snprintf(buffer, sizeof(buffer), "%lld",
                  static_cast<long long>(value));
  return buffer;
}

std::string fkcrun::formatStatistics(fkrt_dtype dtype, const Statistics &s) {
  // The mean of integers is not an integer: print it as a float.
  fkrt_dtype meanType = FKRT_F32;
  std::string text;
  if (s.finite)
    text = "min " + formatValue(dtype, s.min) + " max " +
           formatValue(dtype, s.max) + " mean " + formatValue(meanType, s.mean);
  else
    text = "min - max - mean -";
  text += " nan " + std::to_string(s.nan) + " inf " + std::to_string(s.inf);
  if (s.poisoned)
    text += " poisoned " + std::to_string(s.poisoned);
  text += " first [";
  for (size_t i = 0; i < s.first.size(); ++i)
    text += (i ? ", " : "") + formatValue(dtype, s.first[i]);
  if (s.count > s.first.size())
    text += s.first.empty() ? "..." : ", ...";
  return text + "]";
}

std::string fkcrun::formatIndex(const std::vector<int64_t> &shape,
                                uint64_t index) {
  std::vector<uint64_t> digits(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t extent = static_cast<uint64_t>(std::max<int64_t>(shape[d], 1));
    digits[d] = index % extent;
    index /= extent;
  }
  std::string text = "[";
  for (size_t d = 0; d < digits.size(); ++d)
    text += (d ? ", " : "") + std::to_string(digits[d]);
  return text + "]";
}
