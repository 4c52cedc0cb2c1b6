//===- FkFolds.cpp - folding of fk ops ------------------------------------===//
//
// The obvious cases: elementwise ops on splat constants, identity shape ops,
// shape ops of shape ops, and x*1, x/1, -(-x).
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/IR/TypeUtilities.h"

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

/// Folds an elementwise op whose operands are all splat constants.
static OpFoldResult foldSplatElementwise(Operation *op,
                                         ArrayRef<Attribute> operands) {
  SmallVector<double> values;
  for (Attribute operand : operands) {
    std::optional<double> value = splatValue(operand);
    if (!value)
      return {};
    values.push_back(*value);
  }
  std::optional<double> result = evaluateElementwise(op, values);
  if (!result)
    return {};
  return makeSplat(op->getResult(0).getType(), *result);
}

static bool isSplatOne(Attribute operand) {
  std::optional<double> value = splatValue(operand);
  return value && *value == 1.0;
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define FOLD_SPLAT_ONLY(Op)                                                    \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldSplatElementwise(*this, adaptor.getOperands());                 \
  }
FOLD_SPLAT_ONLY(AddOp)
FOLD_SPLAT_ONLY(SubOp)
FOLD_SPLAT_ONLY(MaxOp)
FOLD_SPLAT_ONLY(MinOp)
FOLD_SPLAT_ONLY(PowOp)
FOLD_SPLAT_ONLY(AbsOp)
FOLD_SPLAT_ONLY(ReluOp)
FOLD_SPLAT_ONLY(ExpOp)
FOLD_SPLAT_ONLY(LogOp)
FOLD_SPLAT_ONLY(SqrtOp)
FOLD_SPLAT_ONLY(RsqrtOp)
FOLD_SPLAT_ONLY(TanhOp)
FOLD_SPLAT_ONLY(SigmoidOp)
FOLD_SPLAT_ONLY(SiluOp)
FOLD_SPLAT_ONLY(ErfOp)
#undef FOLD_SPLAT_ONLY

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 is exactly x (NaN and signed zeros included).
  if (isSplatOne(adaptor.getRhs()))
    return getLhs();
  if (isSplatOne(adaptor.getLhs()))
    return getRhs();
  return foldSplatElementwise(*this, adaptor.getOperands());
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOne(adaptor.getRhs()))
    return getLhs();
  return foldSplatElementwise(*this, adaptor.getOperands());
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldSplatElementwise(*this, adaptor.getOperands());
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (std::optional<double> condition = splatValue(adaptor.getCondition()))
    return *condition != 0 ? getOnTrue() : getOnFalse();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (std::optional<double> value = splatValue(adaptor.getOperand()))
    return makeSplat(getType(), castScalar(*value, getElementTypeOrSelf(getType())));
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
