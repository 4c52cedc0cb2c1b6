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

#include <cmath>
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

/// A splat constant of `type`, or null for a symbolic shape (a constant
/// holds its elements; fk-bind-dims gives the shape sizes first).
static Attribute makeSplat(Type type, double value) {
  if (isSymbolic(type))
    return {};
  return getSplatAttribute(cast<ShapedType>(type), value);
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
    Attribute splat = makeSplat(op->getResult(0).getType(), *result);
    if (!splat)
      return failure();
    results.push_back(splat);
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
  if (isSymbolic(resultType))
    return {};
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

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  auto operandType = cast<RankedTensorType>(getOperand().getType());
  // A start counted from the end of a dimension of known size (a symbolic
  // one bound) is counted from its start.
  if (llvm::any_of(llvm::enumerate(getStart()), [&](auto entry) {
        return entry.value() < 0 && !operandType.isDynamicDim(entry.index());
      })) {
    SmallVector<int64_t> start(getStart());
    for (auto [d, s] : llvm::enumerate(start))
      if (s < 0 && !operandType.isDynamicDim(d))
        s += operandType.getDimSize(d);
    setStart(start);
    return getResult();
  }
  // A window of the whole operand (a larger step would leave it) is the
  // operand.
  if (getOperand().getType() == getType() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }))
    return getOperand();
  // slice(slice(x, s1, k1), s2, k2) reads x at s1 + k1 * (s2 + k2 * i),
  // where both count from the start.
  auto inner = getOperand().getDefiningOp<SliceOp>();
  auto fromStart = [](ArrayRef<int64_t> start) {
    return llvm::all_of(start, [](int64_t s) { return s >= 0; });
  };
  if (inner && fromStart(inner.getStart()) && fromStart(getStart())) {
    auto innerType = cast<RankedTensorType>(inner.getOperand().getType());
    ArrayRef<int64_t> sizes = cast<RankedTensorType>(getType()).getShape();
    SmallVector<int64_t> start, step;
    for (auto [d, s1, k1, s2, k2] :
         llvm::enumerate(inner.getStart(), inner.getStep(), getStart(),
                         getStep())) {
      // An empty window's start may be past the inner window's end; any
      // start in bounds reads nothing as well.
      int64_t first = s1 + k1 * s2;
      if (!innerType.isDynamicDim(d))
        first = std::min(first, innerType.getDimSize(d));
      start.push_back(first);
      // A window of one element reads no second one: step 1 keeps the
      // product from growing through a chain of slices.
      step.push_back(sizes[d] <= 1 ? 1 : k1 * k2);
    }
    getOperandMutable().assign(inner.getOperand());
    setStart(start);
    setStep(step);
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  // Splats of one value joined are a splat of it.
  std::optional<double> value;
  for (Attribute operand : adaptor.getInputs()) {
    std::optional<double> splat = splatValue(operand);
    if (!splat || (value && *splat != *value) || std::isnan(*splat))
      return {};
    value = splat;
  }
  return makeSplat(getType(), *value);
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  auto isZero = [](int64_t n) { return n == 0; };
  if (llvm::all_of(getLow(), isZero) && llvm::all_of(getHigh(), isZero))
    return getOperand();
  // A splat padded with its own value is a larger splat.
  double padding = getValue().convertToDouble();
  std::optional<double> splat = splatValue(adaptor.getOperand());
  if (splat && *splat == padding && !std::isnan(padding))
    return makeSplat(getType(), padding);
  return {};
}

OpFoldResult DynamicSliceOp::fold(FoldAdaptor adaptor) {
  // A window as large as the operand can only start at 0.
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult UpdateSliceOp::fold(FoldAdaptor) {
  // An update as large as the destination replaces all of it; an empty one
  // replaces nothing.
  if (getUpdate().getType() == getType())
    return getUpdate();
  // (A symbolic update is empty only at some sizes: a static 0 is empty at
  // all.)
  if (llvm::is_contained(
          cast<RankedTensorType>(getUpdate().getType()).getShape(), 0))
    return getDest();
  return {};
}

OpFoldResult AttentionOp::fold(FoldAdaptor) {
  // Over no keys the product with the value sums nothing: every element is
  // 0, whatever the operands hold (docs/language.md, attention), as the
  // spelled-out graph's empty contraction gives. Folded here, every later
  // stage agrees with the graph on it.
  auto key = cast<RankedTensorType>(getKey().getType());
  if (key.getDimSize(key.getRank() - 2) != 0)
    return {};
  auto type = cast<RankedTensorType>(getType());
  return DenseElementsAttr::get(type,
                                FloatAttr::get(type.getElementType(), 0.0));
}
