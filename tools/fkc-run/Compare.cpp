//===- Compare.cpp - An output against its expected value -----------------===//

#include "Compare.h"

#include "Elements.h"
#include "Statistics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

using namespace fkcrun;

double fkcrun::tolerance(fkrt_dtype dtype, bool tf32) {
  switch (dtype) {
  case FKRT_F32:
    // TF32 products are as precise as f16 operands (fkc's kTf32Tolerance).
    return tf32 ? 2e-3 : 1e-4;
  case FKRT_F16:
    return 1e-2;
  case FKRT_BF16:
    return 5e-2;
  case FKRT_I32:
  case FKRT_I64:
  case FKRT_I1:
    return 0;
  }
  return 0;
}

Comparison fkcrun::compare(fkrt_dtype dtype, const uint8_t *got,
                           const uint8_t *want, uint64_t count, bool tf32) {
  Comparison c;
  c.tolerance = tolerance(dtype, tf32);
  const size_t size = elementSize(dtype);
  double errorSquares = 0, wantSquares = 0, largest = -1;
  for (uint64_t i = 0; i < count; ++i) {
    double g = readElement(dtype, got + i * size);
    double w = readElement(dtype, want + i * size);
    if (!isFloat(dtype)) {
      if (g != w && c.mismatches++ == 0)
        c.hasWorst = true, c.worst = i, c.got = g, c.want = w;
      continue;
    }
    if (std::isfinite(g) && std::isfinite(w)) {
      double d = g - w;
      errorSquares += d * d;
      wantSquares += w * w;
      if (!c.mismatches && std::fabs(d) > largest && d != 0)
        largest = std::fabs(d), c.hasWorst = true, c.worst = i, c.got = g,
        c.want = w;
      continue;
    }
    bool same = (std::isnan(g) && std::isnan(w)) || g == w;
    if (!same && c.mismatches++ == 0)
      c.hasWorst = true, c.worst = i, c.got = g, c.want = w;
  }
  if (isFloat(dtype))
    c.relativeError =
        std::sqrt(errorSquares) / std::max(std::sqrt(wantSquares), DBL_MIN);
  c.ok = c.mismatches == 0 && c.relativeError <= c.tolerance;
  return c;
}

std::string fkcrun::formatComparison(fkrt_dtype dtype, const Comparison &c,
                                     const std::vector<int64_t> &shape) {
  char buffer[160];
  std::string text = c.ok ? "ok" : "MISMATCH";
  if (isFloat(dtype)) {
    std::snprintf(buffer, sizeof(buffer),
                  " rel. L2 error %.3g (tolerance %.0e)", c.relativeError,
                  c.tolerance);
    text += buffer;
    if (c.mismatches)
      text +=
          ", NaN/Inf differ at " + std::to_string(c.mismatches) + " positions";
  } else {
    text += c.mismatches
                ? ", " + std::to_string(c.mismatches) + " elements differ"
                : " (exact)";
  }
  if (!c.ok && c.hasWorst)
    text += std::string(c.mismatches ? ", first at " : ", largest at ") +
            formatIndex(shape, c.worst) + ": got " + formatValue(dtype, c.got) +
            ", want " + formatValue(dtype, c.want);
  return text;
}
