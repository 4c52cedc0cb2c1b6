//===- FkElementwiseOps.cpp - what each elementwise fk op computes --------===//
//
// The one place that says what an elementwise op computes on one element:
// `evaluateScalar` in double (constant folding, the reference interpreter)
// and `buildScalar` as arith/math ops (GPU kernels), side by side per op so
// that the two stay the same function. docs/language.md states the same
// semantics in words. Rounding to the result's element type is done by the
// callers (FkScalarSemantics.cpp), once for every op.
//
// Kernels hold floats in f32 (see getComputeType), so `buildScalar` of a
// float op computes in f32; integer ops get i32, i64 and i1 operands.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include <cmath>
#include <cstdint>

using namespace mlir;
using namespace mlir::fk;

#include "fk/IR/FkInterfaces.cpp.inc"

namespace {
/// Emits the scalar ops of one elementwise op at its location.
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;

  ScalarBuilder(OpBuilder &b, Operation *op) : b(b), loc(op->getLoc()) {}

  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  /// An integer constant of `type` (i32 or i64).
  Value integer(Type type, int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  /// x / y to within 2 ulp of f32 (PTX div.approx.f32), for results that
  /// are rounded to a 16-bit float: a few instructions where the correctly
  /// rounded division is a subroutine of a dozen, and no f16 or bf16 value
  /// farther than one ulp from the exact quotient's rounding.
  Value approximateDiv(Value x, Value y) {
    return arith::DivFOp::create(b, loc, x, y, arith::FastMathFlags::afn);
  }
  /// The division for a float op's result element type `type`.
  Value divFor(Type type, Value x, Value y) {
    return type.getIntOrFloatBitWidth() <= 16 ? approximateDiv(x, y)
                                              : div(x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value negate(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
};

/// The element type of `op`'s result, which decides integer or float math.
Type resultElementType(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType());
}

bool hasIntegerResult(Operation *op) {
  return isIntegerNumber(resultElementType(op));
}

/// The product wrapped to `type` (i32 or i64).
double wrappingProduct(double a, double b, Type type) {
  return fromWrappedBits(static_cast<uint64_t>(wrapToInt64(a)) *
                             static_cast<uint64_t>(wrapToInt64(b)),
                         type);
}

/// max and min propagate NaN, as the GPU's fmax.NaN variants and numpy do.
double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
}
double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
}
} // namespace

//===----------------------------------------------------------------------===//
// Arithmetic. On i32 and i64 the value is computed in double (exact up to
// 2^53) or in 64 bits, and wraps when rounded.
//===----------------------------------------------------------------------===//

double AddOp::evaluateScalar(ArrayRef<double> x) { return x[0] + x[1]; }
Value AddOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return arith::AddIOp::create(b, getLoc(), x[0], x[1]);
  return ScalarBuilder(b, *this).add(x[0], x[1]);
}

double SubOp::evaluateScalar(ArrayRef<double> x) { return x[0] - x[1]; }
Value SubOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return arith::SubIOp::create(b, getLoc(), x[0], x[1]);
  return arith::SubFOp::create(b, getLoc(), x[0], x[1]);
}

double MulOp::evaluateScalar(ArrayRef<double> x) {
  if (hasIntegerResult(*this))
    return wrappingProduct(x[0], x[1], resultElementType(*this));
  return x[0] * x[1];
}
Value MulOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return arith::MulIOp::create(b, getLoc(), x[0], x[1]);
  return ScalarBuilder(b, *this).mul(x[0], x[1]);
}

// On i32 and i64, division truncates toward zero, x / 0 is 0 and MIN / -1
// wraps to MIN (LLVM leaves both undefined).
double DivOp::evaluateScalar(ArrayRef<double> x) {
  if (hasIntegerResult(*this)) {
    int64_t a = wrapToInt64(x[0]), d = wrapToInt64(x[1]);
    if (d == -1) // INT64_MIN / -1 wraps; the caller wraps INT32_MIN's too.
      return double(static_cast<int64_t>(0 - static_cast<uint64_t>(a)));
    return d == 0 ? 0.0 : double(a / d);
  }
  return x[0] / x[1];
}
Value DivOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  if (!hasIntegerResult(*this))
    return s.div(x[0], x[1]);
  Type type = x[1].getType();
  Value zero = s.integer(type, 0);
  Value isZero = s.cmpi(arith::CmpIPredicate::eq, x[1], zero);
  Value isMinusOne =
      s.cmpi(arith::CmpIPredicate::eq, x[1], s.integer(type, -1));
  Value special = arith::OrIOp::create(b, getLoc(), isZero, isMinusOne);
  Value safe = s.select(special, s.integer(type, 1), x[1]);
  Value quotient = arith::DivSIOp::create(b, getLoc(), x[0], safe);
  Value negated = arith::SubIOp::create(b, getLoc(), zero, x[0]);
  return s.select(isZero, zero, s.select(isMinusOne, negated, quotient));
}

double MaxOp::evaluateScalar(ArrayRef<double> x) { return nanMax(x[0], x[1]); }
Value MaxOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return arith::MaxSIOp::create(b, getLoc(), x[0], x[1]);
  return arith::MaximumFOp::create(b, getLoc(), x[0], x[1]);
}

double MinOp::evaluateScalar(ArrayRef<double> x) { return nanMin(x[0], x[1]); }
Value MinOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return arith::MinSIOp::create(b, getLoc(), x[0], x[1]);
  return arith::MinimumFOp::create(b, getLoc(), x[0], x[1]);
}

double PowOp::evaluateScalar(ArrayRef<double> x) {
  return std::pow(x[0], x[1]);
}
Value PowOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::PowFOp::create(b, getLoc(), x[0], x[1]);
}

double NegOp::evaluateScalar(ArrayRef<double> x) { return -x[0]; }
Value NegOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  if (hasIntegerResult(*this))
    return arith::SubIOp::create(b, getLoc(), s.integer(x[0].getType(), 0),
                                 x[0]);
  return s.negate(x[0]);
}

double AbsOp::evaluateScalar(ArrayRef<double> x) { return std::fabs(x[0]); }
Value AbsOp::buildScalar(OpBuilder &b, ValueRange x) {
  // The NVVM lowering maps math.absi to libdevice's i32 __nv_abs only, so
  // i64 is spelled out (abs(INT64_MIN) wraps, as 0 - x does).
  if (resultElementType(*this).isSignlessInteger(64)) {
    ScalarBuilder s(b, *this);
    Value zero = s.integer(x[0].getType(), 0);
    return s.select(s.cmpi(arith::CmpIPredicate::slt, x[0], zero),
                    arith::SubIOp::create(b, getLoc(), zero, x[0]), x[0]);
  }
  if (hasIntegerResult(*this))
    return math::AbsIOp::create(b, getLoc(), x[0]);
  return math::AbsFOp::create(b, getLoc(), x[0]);
}

// relu(NaN) is NaN.
double ReluOp::evaluateScalar(ArrayRef<double> x) {
  return std::isnan(x[0]) ? x[0] : std::max(x[0], 0.0);
}
Value ReluOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  if (hasIntegerResult(*this))
    return arith::MaxSIOp::create(b, getLoc(), x[0],
                                  s.integer(x[0].getType(), 0));
  return arith::MaximumFOp::create(b, getLoc(), x[0], s.f32(0.0));
}

double FloorOp::evaluateScalar(ArrayRef<double> x) { return std::floor(x[0]); }
Value FloorOp::buildScalar(OpBuilder &b, ValueRange x) {
  if (hasIntegerResult(*this))
    return x[0];
  return math::FloorOp::create(b, getLoc(), x[0]);
}

//===----------------------------------------------------------------------===//
// Transcendental functions (floats only)
//===----------------------------------------------------------------------===//

double ExpOp::evaluateScalar(ArrayRef<double> x) { return std::exp(x[0]); }
Value ExpOp::buildScalar(OpBuilder &b, ValueRange x) {
  return ScalarBuilder(b, *this).exp(x[0]);
}

double LogOp::evaluateScalar(ArrayRef<double> x) { return std::log(x[0]); }
Value LogOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::LogOp::create(b, getLoc(), x[0]);
}

double SqrtOp::evaluateScalar(ArrayRef<double> x) { return std::sqrt(x[0]); }
Value SqrtOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::SqrtOp::create(b, getLoc(), x[0]);
}

// 1 / sqrt, both correctly rounded; math.rsqrt is approximate.
double RsqrtOp::evaluateScalar(ArrayRef<double> x) {
  return 1.0 / std::sqrt(x[0]);
}
Value RsqrtOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  return s.div(s.f32(1.0), math::SqrtOp::create(b, getLoc(), x[0]));
}

double TanhOp::evaluateScalar(ArrayRef<double> x) { return std::tanh(x[0]); }
Value TanhOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::TanhOp::create(b, getLoc(), x[0]);
}

double SigmoidOp::evaluateScalar(ArrayRef<double> x) {
  return 1.0 / (1.0 + std::exp(-x[0]));
}
Value SigmoidOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  return s.divFor(resultElementType(*this), s.f32(1.0),
                  s.add(s.f32(1.0), s.exp(s.negate(x[0]))));
}

double SiluOp::evaluateScalar(ArrayRef<double> x) {
  return x[0] / (1.0 + std::exp(-x[0]));
}
Value SiluOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  return s.divFor(resultElementType(*this), x[0],
                  s.add(s.f32(1.0), s.exp(s.negate(x[0]))));
}

double ErfOp::evaluateScalar(ArrayRef<double> x) { return std::erf(x[0]); }
Value ErfOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::ErfOp::create(b, getLoc(), x[0]);
}

double SinOp::evaluateScalar(ArrayRef<double> x) { return std::sin(x[0]); }
Value SinOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::SinOp::create(b, getLoc(), x[0]);
}

double CosOp::evaluateScalar(ArrayRef<double> x) { return std::cos(x[0]); }
Value CosOp::buildScalar(OpBuilder &b, ValueRange x) {
  return math::CosOp::create(b, getLoc(), x[0]);
}

// x * Phi(x), Phi exactly through erf or by the tanh formula.
static constexpr double kSqrt2OverPi = 0.7978845608028654;
static constexpr double kTanhCubicCoefficient = 0.044715;

double GeluOp::evaluateScalar(ArrayRef<double> x) {
  double v = x[0];
  if (getApproximate() == GeluApproximation::Tanh)
    return 0.5 * v *
           (1.0 + std::tanh(kSqrt2OverPi * (v + kTanhCubicCoefficient * v * v * v)));
  return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
}
Value GeluOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  Value v = x[0];
  Value inner;
  if (getApproximate() == GeluApproximation::Tanh) {
    Value cube = s.mul(s.mul(v, v), v);
    Value arg = s.mul(s.f32(kSqrt2OverPi),
                      s.add(v, s.mul(s.f32(kTanhCubicCoefficient), cube)));
    inner = math::TanhOp::create(b, getLoc(), arg);
  } else {
    inner = math::ErfOp::create(b, getLoc(), s.mul(v, s.f32(0.7071067811865476)));
  }
  return s.mul(s.mul(s.f32(0.5), v), s.add(s.f32(1.0), inner));
}

//===----------------------------------------------------------------------===//
// Comparison, choice and conversion
//===----------------------------------------------------------------------===//

// Any comparison with NaN is false except `ne`, as in C.
double CompareOp::evaluateScalar(ArrayRef<double> x) {
  double a = x[0], c = x[1];
  switch (getDirection()) {
  case ComparisonDirection::EQ:
    return a == c;
  case ComparisonDirection::NE:
    return a != c;
  case ComparisonDirection::LT:
    return a < c;
  case ComparisonDirection::LE:
    return a <= c;
  case ComparisonDirection::GT:
    return a > c;
  case ComparisonDirection::GE:
    return a >= c;
  }
  llvm_unreachable("unknown comparison direction");
}
Value CompareOp::buildScalar(OpBuilder &b, ValueRange x) {
  using D = ComparisonDirection;
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  ScalarBuilder s(b, *this);
  Type operandType = getElementTypeOrSelf(getLhs().getType());
  D direction = getDirection();
  if (isa<FloatType>(operandType)) {
    // Ordered, except that NaN != anything.
    FP predicate = direction == D::EQ   ? FP::OEQ
                   : direction == D::NE ? FP::UNE
                   : direction == D::LT ? FP::OLT
                   : direction == D::LE ? FP::OLE
                   : direction == D::GT ? FP::OGT
                                        : FP::OGE;
    return s.cmpf(predicate, x[0], x[1]);
  }
  // i1 compares as 0 < 1, so unsigned; i32 and i64 are signed.
  bool isBool = operandType.isSignlessInteger(1);
  IP predicate = direction == D::EQ   ? IP::eq
                 : direction == D::NE ? IP::ne
                 : direction == D::LT ? (isBool ? IP::ult : IP::slt)
                 : direction == D::LE ? (isBool ? IP::ule : IP::sle)
                 : direction == D::GT ? (isBool ? IP::ugt : IP::sgt)
                                      : (isBool ? IP::uge : IP::sge);
  return s.cmpi(predicate, x[0], x[1]);
}

double SelectOp::evaluateScalar(ArrayRef<double> x) {
  return x[0] != 0 ? x[1] : x[2];
}
Value SelectOp::buildScalar(OpBuilder &b, ValueRange x) {
  return ScalarBuilder(b, *this).select(x[0], x[1], x[2]);
}

// Floats round to nearest even; float to i32 or i64 truncates toward zero,
// saturates and maps NaN to 0; integers wrap or sign extend; to i1 gives
// x != 0.
double CastOp::evaluateScalar(ArrayRef<double> x) {
  return castScalar(x[0], getElementTypeOrSelf(getOperand().getType()),
                    resultElementType(*this));
}
Value CastOp::buildScalar(OpBuilder &b, ValueRange x) {
  ScalarBuilder s(b, *this);
  Type from = getElementTypeOrSelf(getOperand().getType());
  Type to = resultElementType(*this);
  Value v = x[0];
  if (isa<FloatType>(from)) {
    if (isa<FloatType>(to))
      return v; // Both are f32 in compute form; the caller rounds.
    if (!isIntegerNumber(to))
      return s.cmpf(arith::CmpFPredicate::UNE, v, s.f32(0.0));
    // The bounds -2^(w-1) and 2^(w-1) are exact in f32.
    unsigned width = to.getIntOrFloatBitWidth();
    double bound = std::ldexp(1.0, width - 1);
    Value converted = arith::FPToSIOp::create(b, getLoc(), to, v);
    Value tooLow = s.cmpf(arith::CmpFPredicate::OLE, v, s.f32(-bound));
    Value tooHigh = s.cmpf(arith::CmpFPredicate::OGE, v, s.f32(bound));
    Value isNaN = s.cmpf(arith::CmpFPredicate::UNO, v, v);
    auto lowest = llvm::APInt::getSignedMinValue(width).getSExtValue();
    auto highest = llvm::APInt::getSignedMaxValue(width).getSExtValue();
    return s.select(isNaN, s.integer(to, 0),
                    s.select(tooLow, s.integer(to, lowest),
                             s.select(tooHigh, s.integer(to, highest),
                                      converted)));
  }
  if (isIntegerNumber(from)) {
    if (isa<FloatType>(to))
      return arith::SIToFPOp::create(b, getLoc(), b.getF32Type(), v);
    if (!isIntegerNumber(to))
      return s.cmpi(arith::CmpIPredicate::ne, v, s.integer(from, 0));
    unsigned fromWidth = from.getIntOrFloatBitWidth(),
             toWidth = to.getIntOrFloatBitWidth();
    if (toWidth < fromWidth)
      return arith::TruncIOp::create(b, getLoc(), to, v);
    if (toWidth > fromWidth)
      return arith::ExtSIOp::create(b, getLoc(), to, v);
    return v;
  }
  // From i1.
  if (isa<FloatType>(to))
    return arith::UIToFPOp::create(b, getLoc(), b.getF32Type(), v);
  if (isIntegerNumber(to))
    return arith::ExtUIOp::create(b, getLoc(), to, v);
  return v;
}
