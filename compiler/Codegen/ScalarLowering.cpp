//===- ScalarLowering.cpp - fk element semantics as arith/math ------------===//

#include "Codegen/ScalarLowering.h"
#include "fk/IR/FkOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cstdint>

using namespace mlir;
using namespace mlir::fk;

Type mlir::fk::getComputeType(Type elementType) {
  if (isa<FloatType>(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

static bool isNarrowFloat(Type elementType) {
  return elementType.isF16() || elementType.isBF16();
}

Value mlir::fk::extendToComputeType(OpBuilder &b, Location loc, Value value,
                                    Type elementType) {
  if (!isNarrowFloat(elementType))
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

Value mlir::fk::truncateToElementType(OpBuilder &b, Location loc, Value value,
                                      Type elementType) {
  if (!isNarrowFloat(elementType))
    return value;
  return arith::TruncFOp::create(b, loc, elementType, value);
}

Value mlir::fk::roundToElementType(OpBuilder &b, Location loc, Value value,
                                   Type elementType) {
  if (!isNarrowFloat(elementType))
    return value;
  return extendToComputeType(
      b, loc, truncateToElementType(b, loc, value, elementType), elementType);
}

Value mlir::fk::buildScalarConstant(OpBuilder &b, Location loc,
                                    Type elementType, double value) {
  Type type = getComputeType(elementType);
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(type, static_cast<int64_t>(value)));
}

namespace {
/// Emits the scalar ops of one elementwise fk op.
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;

  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value i32(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value negate(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  /// x / (1 + exp(-x)) and 1 / (1 + exp(-x)).
  Value logisticOf(Value x) { return div(f32(1.0), add(f32(1.0), exp(negate(x)))); }

  Value gelu(Value x, GeluApproximation approximation) {
    Value inner;
    if (approximation == GeluApproximation::Tanh) {
      Value cube = mul(mul(x, x), x);
      Value arg = mul(f32(0.7978845608028654), add(x, mul(f32(0.044715), cube)));
      inner = math::TanhOp::create(b, loc, arg);
    } else {
      inner = math::ErfOp::create(b, loc, mul(x, f32(0.7071067811865476)));
    }
    return mul(mul(f32(0.5), x), add(f32(1.0), inner));
  }

  /// Truncating division where x / 0 is 0 and INT32_MIN / -1 wraps, as the
  /// language defines (LLVM leaves both undefined).
  Value divideI32(Value x, Value y) {
    Value isZero = cmpi(arith::CmpIPredicate::eq, y, i32(0));
    Value isMinusOne = cmpi(arith::CmpIPredicate::eq, y, i32(-1));
    Value special = arith::OrIOp::create(b, loc, isZero, isMinusOne);
    Value safe = select(special, i32(1), y);
    Value quotient = arith::DivSIOp::create(b, loc, x, safe);
    Value negated = arith::SubIOp::create(b, loc, i32(0), x);
    return select(isZero, i32(0), select(isMinusOne, negated, quotient));
  }

  /// Float to i32: truncation toward zero, saturating, NaN to 0.
  Value floatToI32(Value x) {
    Value converted = arith::FPToSIOp::create(b, loc, b.getI32Type(), x);
    Value tooLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x,
                                         f32(-2147483648.0));
    Value tooHigh = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                          f32(2147483648.0));
    Value isNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    return select(isNaN, i32(0),
                  select(tooLow, i32(INT32_MIN),
                         select(tooHigh, i32(INT32_MAX), converted)));
  }

  Value cast(Value x, Type from, Type to) {
    if (isa<FloatType>(from)) {
      if (isa<FloatType>(to))
        return x; // Both are f32 in compute form; the caller rounds.
      if (to.isSignlessInteger(32))
        return floatToI32(x);
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   f32(0.0));
    }
    if (from.isSignlessInteger(32)) {
      if (isa<FloatType>(to))
        return arith::SIToFPOp::create(b, loc, b.getF32Type(), x);
      if (to.isSignlessInteger(32))
        return x;
      return cmpi(arith::CmpIPredicate::ne, x, i32(0));
    }
    // From i1.
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(b, loc, b.getF32Type(), x);
    if (to.isSignlessInteger(32))
      return arith::ExtUIOp::create(b, loc, b.getI32Type(), x);
    return x;
  }

  Value compare(ComparisonDirection direction, Type operandType, Value x,
                Value y) {
    using D = ComparisonDirection;
    if (isa<FloatType>(operandType)) {
      // Ordered, except that NaN != anything, as in C.
      arith::CmpFPredicate predicate;
      switch (direction) {
      case D::EQ: predicate = arith::CmpFPredicate::OEQ; break;
      case D::NE: predicate = arith::CmpFPredicate::UNE; break;
      case D::LT: predicate = arith::CmpFPredicate::OLT; break;
      case D::LE: predicate = arith::CmpFPredicate::OLE; break;
      case D::GT: predicate = arith::CmpFPredicate::OGT; break;
      case D::GE: predicate = arith::CmpFPredicate::OGE; break;
      }
      return arith::CmpFOp::create(b, loc, predicate, x, y);
    }
    // i1 compares as 0 < 1, so unsigned; i32 is signed.
    bool isBool = operandType.isSignlessInteger(1);
    arith::CmpIPredicate predicate;
    switch (direction) {
    case D::EQ: predicate = arith::CmpIPredicate::eq; break;
    case D::NE: predicate = arith::CmpIPredicate::ne; break;
    case D::LT: predicate = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
    case D::LE: predicate = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
    case D::GT: predicate = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
    case D::GE: predicate = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
    }
    return cmpi(predicate, x, y);
  }
};
} // namespace

FailureOr<Value> mlir::fk::buildElementwiseOp(OpBuilder &b, Operation *op,
                                              ArrayRef<Value> x) {
  ScalarBuilder s{b, op->getLoc()};
  Location loc = op->getLoc();
  Type resultType = getElementTypeOrSelf(op->getResult(0).getType());
  bool isFloat = isa<FloatType>(resultType);

  Value value =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case<AddOp>([&](auto) -> Value {
            if (isFloat)
              return s.add(x[0], x[1]);
            return arith::AddIOp::create(b, loc, x[0], x[1]);
          })
          .Case<SubOp>([&](auto) -> Value {
            if (isFloat)
              return arith::SubFOp::create(b, loc, x[0], x[1]);
            return arith::SubIOp::create(b, loc, x[0], x[1]);
          })
          .Case<MulOp>([&](auto) -> Value {
            if (isFloat)
              return s.mul(x[0], x[1]);
            return arith::MulIOp::create(b, loc, x[0], x[1]);
          })
          .Case<DivOp>([&](auto) -> Value {
            if (isFloat)
              return s.div(x[0], x[1]);
            return s.divideI32(x[0], x[1]);
          })
          .Case<MaxOp>([&](auto) -> Value {
            if (isFloat) // NaN-propagating, as the language's max is.
              return arith::MaximumFOp::create(b, loc, x[0], x[1]);
            return arith::MaxSIOp::create(b, loc, x[0], x[1]);
          })
          .Case<MinOp>([&](auto) -> Value {
            if (isFloat)
              return arith::MinimumFOp::create(b, loc, x[0], x[1]);
            return arith::MinSIOp::create(b, loc, x[0], x[1]);
          })
          .Case<PowOp>([&](auto) -> Value {
            return math::PowFOp::create(b, loc, x[0], x[1]);
          })
          .Case<NegOp>([&](auto) -> Value {
            if (isFloat)
              return s.negate(x[0]);
            return arith::SubIOp::create(b, loc, s.i32(0), x[0]);
          })
          .Case<AbsOp>([&](auto) -> Value {
            if (isFloat)
              return math::AbsFOp::create(b, loc, x[0]);
            return math::AbsIOp::create(b, loc, x[0]);
          })
          .Case<ReluOp>([&](auto) -> Value {
            if (isFloat) // max(NaN, 0) is NaN.
              return arith::MaximumFOp::create(b, loc, x[0], s.f32(0.0));
            return arith::MaxSIOp::create(b, loc, x[0], s.i32(0));
          })
          .Case<ExpOp>([&](auto) -> Value { return s.exp(x[0]); })
          .Case<LogOp>([&](auto) -> Value {
            return math::LogOp::create(b, loc, x[0]);
          })
          .Case<SqrtOp>([&](auto) -> Value {
            return math::SqrtOp::create(b, loc, x[0]);
          })
          .Case<RsqrtOp>([&](auto) -> Value {
            // 1 / sqrt, both correctly rounded; math.rsqrt is approximate.
            return s.div(s.f32(1.0), math::SqrtOp::create(b, loc, x[0]));
          })
          .Case<TanhOp>([&](auto) -> Value {
            return math::TanhOp::create(b, loc, x[0]);
          })
          .Case<SigmoidOp>([&](auto) -> Value { return s.logisticOf(x[0]); })
          .Case<SiluOp>([&](auto) -> Value {
            return s.div(x[0], s.add(s.f32(1.0), s.exp(s.negate(x[0]))));
          })
          .Case<ErfOp>([&](auto) -> Value {
            return math::ErfOp::create(b, loc, x[0]);
          })
          .Case<GeluOp>([&](GeluOp gelu) -> Value {
            return s.gelu(x[0], gelu.getApproximate());
          })
          .Case<CompareOp>([&](CompareOp compare) -> Value {
            return s.compare(compare.getDirection(),
                             getElementTypeOrSelf(compare.getLhs().getType()),
                             x[0], x[1]);
          })
          .Case<SelectOp>(
              [&](auto) -> Value { return s.select(x[0], x[1], x[2]); })
          .Case<CastOp>([&](CastOp cast) -> Value {
            return s.cast(x[0],
                          getElementTypeOrSelf(cast.getOperand().getType()),
                          resultType);
          })
          .Default([](Operation *) { return Value(); });
  if (!value)
    return op->emitOpError() << "has no scalar lowering";
  return roundToElementType(b, loc, value, resultType);
}
