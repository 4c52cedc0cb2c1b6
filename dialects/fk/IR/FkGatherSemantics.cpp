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
  // In i64, where an i32 index plus the size cannot overflow.
  Type i64 = b.getI64Type();
  if (index.getType() != i64)
    index = arith::ExtSIOp::create(b, loc, i64, index);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  };
  Value zero = constant(0);
  Value isNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value fromEnd = arith::AddIOp::create(b, loc, index, constant(size));
  Value shifted = arith::SelectOp::create(b, loc, isNegative, fromEnd, index);
  Value clamped = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, shifted, zero),
      constant(size - 1));
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
}
