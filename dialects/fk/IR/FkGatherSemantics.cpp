//===- FkGatherSemantics.cpp - what an fk.gather index selects --------===//

#include "fk/IR/FkGatherSemantics.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::fk;

int64_t mlir::fk::normalizeGatherIndex(double index, int64_t size) {
  int64_t i = wrapToInt64(index);
  if (i < 0 && i >= -size)
    i += size;
  return std::clamp<int64_t>(i, 0, size - 1);
}

Value mlir::fk::buildGatherCoordinate(OpBuilder &b, Location loc, Value index,
                                      int64_t size) {
  return buildGatherCoordinate(
      b, loc, index,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(size)));
}

Value mlir::fk::buildGatherCoordinate(OpBuilder &b, Location loc, Value index,
                                      Value size) {
  // In i64, where an i32 index plus the size cannot overflow.
  Type i64 = b.getI64Type();
  if (index.getType() != i64)
    index = arith::ExtSIOp::create(b, loc, i64, index);
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
  Value isNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value fromEnd = arith::AddIOp::create(b, loc, index, size);
  Value shifted = arith::SelectOp::create(b, loc, isNegative, fromEnd, index);
  Value clamped = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, shifted, zero),
      arith::SubIOp::create(b, loc, size, one));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
}
