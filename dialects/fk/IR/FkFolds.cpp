//===- FkFolds.cpp - folding of fk ops ------------------------------------===//
//
// The obvious cases: elementwise ops on splat constants (for every op of
// ScalarElementwiseOpInterface, through the dialect's fold hook), identity
// shape ops, shape ops of shape ops, and x*1, x/1, -(-x).
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FoldInterfaces.h"

#include <limits>

using namespace mlir;
using namespace mlir::fk;

/// The element value of a splat constant operand, if it is one.
static std::optional<double> splatValue(Attribute operand) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(operand);
  if (!splat)
    return std::nullopt;
  return attributeToDouble(splat.getSplatValue<Attribute>());
}

static Attribute makeSplat(Type type, double value) {
  auto shaped = cast<ShapedType>(type);
  return DenseElementsAttr::get(
      shaped, doubleToAttribute(shaped.getElementType(), value));
}

namespace {
/// Folds an elementwise op whose operands are all splat constants through
/// its scalar semantics. MLIR asks the dialect when the op's own folder, if
/// it has one, does not fold.
struct SplatElementwiseFolder : DialectFoldInterface {
  using DialectFoldInterface::DialectFoldInterface;

  LogicalResult fold(Operation *op, ArrayRef<Attribute> operands,
                     SmallVectorImpl<OpFoldResult> &results) const final {
    if (!isa<ScalarElementwiseOpInterface>(op))
      return failure();
    SmallVector<double> values;
    for (Attribute operand : operands) {
      std::optional<double> value = splatValue(operand);
      if (!value)
        return failure();
      values.push_back(*value);
    }
    std::optional<double> result = evaluateElementwise(op, values);
    if (!result)
      return failure();
    results.push_back(makeSplat(op->getResult(0).getType(), *result));
    return success();
  }
};
} // namespace

void mlir::fk::addElementwiseFolding(FkDialect &dialect) {
  dialect.addInterfaces<SplatElementwiseFolder>();
}

static bool isSplatOne(Attribute operand) {
  std::optional<double> value = splatValue(operand);
  return value && *value == 1.0;
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 is exactly x (NaN and signed zeros included).
  if (isSplatOne(adaptor.getRhs()))
    return getLhs();
  if (isSplatOne(adaptor.getLhs()))
    return getRhs();
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOne(adaptor.getRhs()))
    return getLhs();
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return {};
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (std::optional<double> condition = splatValue(adaptor.getCondition()))
    return *condition != 0 ? getOnTrue() : getOnFalse();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

/// A shape op of a splat constant is a splat constant of the new shape.
static OpFoldResult reshapeSplat(Attribute operand, Type resultType) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(operand))
    return splat.resizeSplat(cast<ShapedType>(resultType));
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // reshape(reshape(x)) is reshape(x): only the element order matters.
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool isIdentity = llvm::all_of(llvm::enumerate(perm), [](auto entry) {
    return static_cast<int64_t>(entry.index()) == entry.value();
  });
  if (isIdentity)
    return getOperand();
  // transpose(transpose(x, p), q) is transpose(x, p∘q).
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    getOperandMutable().assign(inner.getOperand());
    setPerm(composed);
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // Numpy broadcasting composes: broadcast(broadcast(x)) is broadcast(x).
  if (auto inner = getOperand().getDefiningOp<BroadcastOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult AttentionOp::fold(FoldAdaptor) {
  // A query that sees no key gives NaN (docs/language.md, attention): with
  // no keys at all every element is NaN, whatever the operands hold. Folded
  // here, every later stage and kernel agrees with the graph on it.
  auto key = cast<RankedTensorType>(getKey().getType());
  if (key.getDimSize(key.getRank() - 2) != 0)
    return {};
  auto type = cast<RankedTensorType>(getType());
  return DenseElementsAttr::get(
      type, FloatAttr::get(type.getElementType(),
                           std::numeric_limits<double>::quiet_NaN()));
}
