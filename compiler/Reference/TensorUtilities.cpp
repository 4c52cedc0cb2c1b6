//===- TensorUtilities.cpp - make, compare and print reference values -----===//
//
// What sits around an interpretation: seeded random inputs, the distance
// between two results with its tolerances, and a printed form for tests.
//
//===----------------------------------------------------------------------===//

#include "Reference/Interpreter.h"
#include "fk/IR/FkScalarSemantics.h"

#include "llvm/Support/Format.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

namespace {
/// SplitMix64 (Steele, Lea and Flood, 2014): a fixed sequence of integers for
/// a seed, where std:: distributions differ between standard libraries.
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
} // namespace

SmallVector<RefTensor> mlir::fk::makeRandomInputs(func::FuncOp fn,
                                                  uint64_t seed) {
  SplitMix64 random(seed);
  SmallVector<RefTensor> inputs;
  for (Type type : fn.getArgumentTypes()) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || !tensorType.hasStaticShape()) {
      inputs.push_back({});
      continue;
    }
    Type elementType = tensorType.getElementType();
    RefTensor input{tensorType,
                    std::vector<double>(tensorType.getNumElements())};
    for (double &value : input.values) {
      if (elementType.isSignlessInteger(1))
        value = static_cast<double>(random.next() >> 63);
      else if (elementType.isInteger())
        value =
            static_cast<double>(static_cast<int64_t>(random.next() % 17) - 8);
      else
        value = roundToElementType(2 * random.nextUnit() - 1, elementType);
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

TensorDifference mlir::fk::compareTensors(const RefTensor &expected,
                                          const RefTensor &actual) {
  TensorDifference difference;
  if (expected.values.size() != actual.values.size()) {
    difference.relativeNormError = std::numeric_limits<double>::infinity();
    return difference;
  }
  double errorSquares = 0, expectedSquares = 0;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    double e = expected.values[i], a = actual.values[i];
    if (std::isfinite(e) && std::isfinite(a)) {
      difference.maxAbsError =
          std::max(difference.maxAbsError, std::fabs(a - e));
      errorSquares += (a - e) * (a - e);
      expectedSquares += e * e;
      continue;
    }
    // Non-finite values agree when both are NaN or both the same infinity.
    bool same = (std::isnan(e) && std::isnan(a)) || e == a;
    if (!same)
      ++difference.nonFiniteMismatches;
  }
  difference.relativeNormError =
      std::sqrt(errorSquares) /
      std::max(std::sqrt(expectedSquares), std::numeric_limits<double>::min());
  return difference;
}

double mlir::fk::defaultTolerance(Type elementType) {
  // f32: a reduction over a few thousand terms in f32 order drifts from the
  // double-accumulated reference by ~sqrt(n) ulp (2^-24 each).
  if (elementType.isF32())
    return 1e-5;
  // f16 and bf16: about 20 units of roundoff (2^-11 and 2^-8), since an
  // unfused graph rounds every intermediate (attention scores before exp,
  // for one) that a fused kernel keeps in f32.
  if (elementType.isF16())
    return 1e-2;
  if (elementType.isBF16())
    return 8e-2;
  // Integers and booleans are computed exactly.
  return 0;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Prints one element so that FileCheck can match it exactly: integers
/// without decimals, floats as %.6g, and NaN as `nan` whatever its sign.
static void printElement(llvm::raw_ostream &os, double value,
                         Type elementType) {
  if (elementType.isSignlessInteger(1))
    os << (value != 0 ? "true" : "false");
  else if (elementType.isInteger())
    os << static_cast<int64_t>(value);
  else if (std::isnan(value))
    os << "nan";
  else if (std::isinf(value))
    os << (value < 0 ? "-inf" : "inf");
  else
    os << llvm::format("%.6g", value);
}

/// Prints the sub-tensor of `tensor` at dimension `dim` starting at `offset`
/// as nested brackets.
static void printNested(llvm::raw_ostream &os, const RefTensor &tensor,
                        ArrayRef<int64_t> strides, size_t dim, int64_t offset) {
  Type elementType = tensor.type.getElementType();
  if (dim == strides.size()) {
    printElement(os, tensor.values[offset], elementType);
    return;
  }
  os << '[';
  for (int64_t i = 0, e = tensor.type.getDimSize(dim); i < e; ++i) {
    if (i > 0)
      os << ", ";
    printNested(os, tensor, strides, dim + 1, offset + i * strides[dim]);
  }
  os << ']';
}

void mlir::fk::printTensor(llvm::raw_ostream &os, const RefTensor &tensor,
                           int64_t maxElements) {
  os << tensor.type << ' ';
  int64_t count = tensor.values.size();
  if (count <= maxElements) {
    SmallVector<int64_t> strides(tensor.type.getRank(), 1);
    for (int64_t d = tensor.type.getRank() - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * tensor.type.getDimSize(d + 1);
    printNested(os, tensor, strides, 0, 0);
    return;
  }
  int64_t shown = std::min(std::max<int64_t>(maxElements / 2, 1), count / 2);
  Type elementType = tensor.type.getElementType();
  os << '[';
  for (int64_t i = 0; i < shown; ++i) {
    printElement(os, tensor.values[i], elementType);
    os << ", ";
  }
  os << "...";
  for (int64_t i = count - shown; i < count; ++i) {
    os << ", ";
    printElement(os, tensor.values[i], elementType);
  }
  os << ']';
}
