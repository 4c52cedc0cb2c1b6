//===- TensorUtilities.cpp - make, compare and print reference values -----===//
//
// What sits around an interpretation: seeded random inputs, the distance
// between two results with its tolerances, and a printed form for tests.
//
//===----------------------------------------------------------------------===//

#include "Reference/Interpreter.h"
#include "Reference/ReferenceBundle.h"
#include "fk/IR/FkScalarSemantics.h"

#include "fkrt/bundle.hpp"
#include "llvm/Support/Format.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

SmallVector<RefTensor> mlir::fk::makeRandomInputs(func::FuncOp fn,
                                                  uint64_t seed) {
  // The sequence fkc-run draws its seeded inputs from, too.
  fkrt::bundle::SplitMix64 random(seed);
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
    fkrt_dtype dtype = getBundleDtype(elementType);
    for (double &value : input.values) {
      value = random.nextInput(dtype);
      if (isa<FloatType>(elementType))
        value = roundToElementType(value, elementType);
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
    os << wrapToInt64(value);
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
