//===- FkScalarSemantics.cpp - what one element of an fk op is ------------===//

#include "fk/IR/FkScalarSemantics.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
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

bool mlir::fk::isIntegerNumber(Type elementType) {
  return elementType.isSignlessInteger(32) || elementType.isSignlessInteger(64);
}

int64_t mlir::fk::wrapToInt64(double value) {
  constexpr double kTwo63 = 0x1p63, kTwo64 = 0x1p64;
  if (!std::isfinite(value)) // no integer holds it; defined rather than UB
    return 0;
  if (value == kTwo63)
    return INT64_MAX;
  // Exact: fmod of doubles is, and so is the shift by 2^64 of a value that
  // lies within a factor of two of it.
  double wrapped = std::fmod(value, kTwo64);
  if (wrapped >= kTwo63)
    wrapped -= kTwo64;
  else if (wrapped < -kTwo63)
    wrapped += kTwo64;
  return static_cast<int64_t>(wrapped);
}

double mlir::fk::fromWrappedBits(uint64_t bits, Type elementType) {
  // Narrowed before the conversion, which rounds beyond 2^53.
  if (elementType.isSignlessInteger(32))
    return static_cast<int32_t>(static_cast<uint32_t>(bits));
  return static_cast<double>(static_cast<int64_t>(bits));
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
  // i32 and i64: two's complement wrap-around of the (integral) value.
  int64_t wide = wrapToInt64(value);
  if (elementType.isSignlessInteger(64))
    return static_cast<double>(wide);
  return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(wide)));
}

bool mlir::fk::isRepresentable(double value, Type elementType) {
  if (elementType.isSignlessInteger(1))
    return value == 0 || value == 1;
  if (auto integer = dyn_cast<IntegerType>(elementType)) {
    double limit = std::ldexp(1.0, integer.getWidth() - 1);
    return std::trunc(value) == value && value >= -limit && value < limit;
  }
  return !std::isfinite(value) ||
         std::isfinite(roundToElementType(value, elementType));
}

double mlir::fk::castScalar(double value, Type from, Type to) {
  // Float to integer saturates; integer to integer wraps (roundToElementType).
  if (isIntegerNumber(to) && isa<FloatType>(from)) {
    if (std::isnan(value))
      return 0;
    return std::min(std::max(std::trunc(value), lowestValue(to)),
                    highestValue(to));
  }
  return roundToElementType(value, to);
}

double mlir::fk::lowestValue(Type elementType) {
  if (elementType.isSignlessInteger(64))
    return static_cast<double>(INT64_MIN);
  if (elementType.isSignlessInteger(32))
    return INT32_MIN;
  return -std::numeric_limits<double>::infinity();
}

double mlir::fk::highestValue(Type elementType) {
  if (elementType.isSignlessInteger(64))
    return 0x1p63; // INT64_MAX as wrapToInt64 reads it.
  if (elementType.isSignlessInteger(32))
    return INT32_MAX;
  return std::numeric_limits<double>::infinity();
}

std::optional<double>
mlir::fk::evaluateElementwise(Operation *op, llvm::ArrayRef<double> operands) {
  auto scalarOp = dyn_cast<ScalarElementwiseOpInterface>(op);
  if (!scalarOp)
    return std::nullopt;
  Type resultType = getElementTypeOrSelf(op->getResult(0).getType());
  return roundToElementType(scalarOp.evaluateScalar(operands), resultType);
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
                                      wrapToInt64(value),
                                      /*isSigned=*/true, /*implicitTrunc=*/true));
}

DenseElementsAttr mlir::fk::getSplatAttribute(ShapedType type, double value) {
  return DenseElementsAttr::get(
      type, doubleToAttribute(type.getElementType(), value));
}

Value mlir::fk::buildSplatTensor(OpBuilder &b, Location loc,
                                 RankedTensorType type, double value) {
  if (!isSymbolic(type))
    return ConstantOp::create(b, loc, type, getSplatAttribute(type, value));
  auto scalar = RankedTensorType::get({}, type.getElementType());
  return BroadcastOp::create(
      b, loc, type,
      ConstantOp::create(b, loc, scalar, getSplatAttribute(scalar, value)));
}

//===----------------------------------------------------------------------===//
// As arith/math ops
//===----------------------------------------------------------------------===//

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
      b, loc,
      IntegerAttr::get(type, llvm::APInt(type.getIntOrFloatBitWidth(),
                                         wrapToInt64(value), /*isSigned=*/true,
                                         /*implicitTrunc=*/true)));
}

FailureOr<Value> mlir::fk::buildElementwise(OpBuilder &b, Operation *op,
                                            ValueRange operands) {
  auto scalarOp = dyn_cast<ScalarElementwiseOpInterface>(op);
  if (!scalarOp)
    return op->emitOpError() << "has no scalar lowering";
  Type resultType = getElementTypeOrSelf(op->getResult(0).getType());
  return roundToElementType(b, op->getLoc(), scalarOp.buildScalar(b, operands),
                            resultType);
}
