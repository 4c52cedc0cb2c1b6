//===- FkScalarSemantics.cpp - what elementwise fk ops compute ------------===//

#include "fk/IR/FkScalarSemantics.h"
#include "fk/IR/FkOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

static double roundToSemantics(double value, const llvm::fltSemantics &sem) {
  llvm::APFloat f(value);
  bool losesInfo;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToDouble();
}

double mlir::fk::roundToElementType(double value, Type elementType) {
  if (elementType.isF32())
    return static_cast<double>(static_cast<float>(value));
  if (elementType.isF16())
    return roundToSemantics(value, llvm::APFloat::IEEEhalf());
  if (elementType.isBF16())
    return roundToSemantics(value, llvm::APFloat::BFloat());
  if (elementType.isSignlessInteger(1))
    return value != 0 ? 1.0 : 0.0;
  // i32: two's complement wrap-around of the (integral) value.
  auto wide = static_cast<int64_t>(value);
  return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(wide)));
}

double mlir::fk::castScalar(double value, Type to) {
  if (to.isSignlessInteger(32)) {
    if (std::isnan(value))
      return 0;
    double truncated = std::trunc(value);
    return std::min<double>(std::max<double>(truncated, INT32_MIN), INT32_MAX);
  }
  return roundToElementType(value, to);
}

/// Integer ops compute in int64 so that products stay exact before wrapping.
static double evaluateIntegerBinary(Operation *op, int64_t a, int64_t b) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<AddOp>([&](auto) { return double(a + b); })
      .Case<SubOp>([&](auto) { return double(a - b); })
      .Case<MulOp>([&](auto) {
        // The low 32 bits of the product: exact under unsigned wrap-around.
        return double(static_cast<int32_t>(static_cast<uint32_t>(a) *
                                           static_cast<uint32_t>(b)));
      })
      .Case<DivOp>([&](auto) {
        // Division by zero gives 0, and INT32_MIN / -1 wraps to INT32_MIN.
        return b == 0 ? 0.0 : double(a / b);
      })
      .Case<MaxOp>([&](auto) { return double(std::max(a, b)); })
      .Case<MinOp>([&](auto) { return double(std::min(a, b)); });
}

/// max/min propagate NaN, as the GPU's fmax.NaN variants and numpy do.
static double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
}
static double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
}

static double evaluateFloatBinary(Operation *op, double a, double b) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<AddOp>([&](auto) { return a + b; })
      .Case<SubOp>([&](auto) { return a - b; })
      .Case<MulOp>([&](auto) { return a * b; })
      .Case<DivOp>([&](auto) { return a / b; })
      .Case<MaxOp>([&](auto) { return nanMax(a, b); })
      .Case<MinOp>([&](auto) { return nanMin(a, b); });
}

static double gelu(double x, GeluApproximation approximation) {
  if (approximation == GeluApproximation::Tanh) {
    const double kSqrt2OverPi = 0.7978845608028654;
    return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

static bool compare(ComparisonDirection direction, double a, double b) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return a == b;
  case ComparisonDirection::NE:
    return a != b;
  case ComparisonDirection::LT:
    return a < b;
  case ComparisonDirection::LE:
    return a <= b;
  case ComparisonDirection::GT:
    return a > b;
  case ComparisonDirection::GE:
    return a >= b;
  }
  llvm_unreachable("unknown comparison direction");
}

std::optional<double>
mlir::fk::evaluateElementwise(Operation *op, llvm::ArrayRef<double> x) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Type resultType = getElementTypeOrSelf(op->getResult(0).getType());
  bool isInteger = resultType.isSignlessInteger(32);
  std::optional<double> value =
      llvm::TypeSwitch<Operation *, std::optional<double>>(op)
          .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(
              [&](auto) -> std::optional<double> {
                if (isInteger)
                  return evaluateIntegerBinary(op, int64_t(x[0]),
                                               int64_t(x[1]));
                return evaluateFloatBinary(op, x[0], x[1]);
              })
          .Case<PowOp>([&](auto) { return std::pow(x[0], x[1]); })
          .Case<NegOp>([&](auto) { return -x[0]; })
          .Case<AbsOp>([&](auto) { return std::fabs(x[0]); })
          .Case<ReluOp>([&](auto) {
            return std::isnan(x[0]) ? x[0] : std::max(x[0], 0.0);
          })
          .Case<ExpOp>([&](auto) { return std::exp(x[0]); })
          .Case<LogOp>([&](auto) { return std::log(x[0]); })
          .Case<SqrtOp>([&](auto) { return std::sqrt(x[0]); })
          .Case<RsqrtOp>([&](auto) { return 1.0 / std::sqrt(x[0]); })
          .Case<TanhOp>([&](auto) { return std::tanh(x[0]); })
          .Case<SigmoidOp>([&](auto) { return 1.0 / (1.0 + std::exp(-x[0])); })
          .Case<SiluOp>([&](auto) { return x[0] / (1.0 + std::exp(-x[0])); })
          .Case<ErfOp>([&](auto) { return std::erf(x[0]); })
          .Case<GeluOp>([&](GeluOp gel) {
            return gelu(x[0], gel.getApproximate());
          })
          .Case<CompareOp>([&](CompareOp cmp) {
            return compare(cmp.getDirection(), x[0], x[1]) ? 1.0 : 0.0;
          })
          .Case<SelectOp>([&](auto) { return x[0] != 0 ? x[1] : x[2]; })
          .Case<CastOp>([&](auto) { return castScalar(x[0], resultType); })
          .Default([](Operation *) { return std::nullopt; });
  if (!value)
    return std::nullopt;
  return roundToElementType(*value, resultType);
}

double mlir::fk::attributeToDouble(Attribute element) {
  if (auto f = dyn_cast<FloatAttr>(element))
    return f.getValueAsDouble();
  auto i = cast<IntegerAttr>(element);
  if (i.getType().isSignlessInteger(1))
    return i.getValue().getZExtValue();
  return static_cast<double>(i.getValue().getSExtValue());
}

Attribute mlir::fk::doubleToAttribute(Type elementType, double value) {
  if (isa<FloatType>(elementType))
    return FloatAttr::get(elementType, value);
  return IntegerAttr::get(elementType,
                          llvm::APInt(elementType.getIntOrFloatBitWidth(),
                                      static_cast<int64_t>(value),
                                      /*isSigned=*/true, /*implicitTrunc=*/true));
}
