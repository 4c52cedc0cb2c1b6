//===- GraphOps.cpp - the catalogue of .graph operations ------------------===//
//
// How each call of the language becomes fk ops. Every builder receives a
// call whose operand count and attribute kinds were already checked; it
// checks the rest (dtypes, shapes, attribute values) through the shared
// rules of FkTypeInference.h, with errors at the call.
//
//===----------------------------------------------------------------------===//

#include "Frontend/GraphOps.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>

using namespace mlir;
using namespace mlir::fk;
using namespace mlir::fk::frontend;

namespace {
using A = AttrKind;

/// Errors about `call` from a shared rule carry the op's name.
struct CallErrors {
  GraphBuilder &b;
  const CallSite &call;
  InFlightDiagnostic operator()() const { return b.emitOpError(call); }
};

int64_t getInt(const CallSite &call, llvm::StringRef name, int64_t fallback) {
  const AttrValue *attr = call.lookup(name);
  return attr ? attr->integer : fallback;
}

double getFloat(const CallSite &call, llvm::StringRef name, double fallback) {
  const AttrValue *attr = call.lookup(name);
  if (!attr)
    return fallback;
  return attr->kind == AttrValue::Kind::Integer
             ? static_cast<double>(attr->integer)
             : attr->floating;
}

Expr tensorResult(const CallSite &call, FailureOr<Value> value) {
  return succeeded(value) ? Expr::ofTensor(*value, call.loc)
                          : Expr::invalid(call.loc);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy, DtypeClass Allowed>
Expr buildElementwise(GraphBuilder &b, const CallSite &call) {
  // A unary op has no partner to lend a number its dtype.
  if (call.operands.size() == 1 && failed(b.requireTensor(call, call.operands[0])))
    return Expr::invalid(call.loc);
  FailureOr<SmallVector<Value>> operands = b.unifyOperands(call, call.operands);
  if (failed(operands))
    return Expr::invalid(call.loc);
  Type dtype = getElementTypeOrSelf((*operands)[0].getType());
  if (failed(checkDtype(CallErrors{b, call}, dtype, Allowed)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<OpTy>(call.loc, *operands), call.loc);
}

Expr buildGelu(GraphBuilder &b, const CallSite &call) {
  GeluApproximation approximation = GeluApproximation::None;
  if (const AttrValue *attr = call.lookup("approximate")) {
    std::optional<GeluApproximation> parsed =
        symbolizeGeluApproximation(attr->string);
    if (!parsed) {
      b.emitError(attr->loc) << "'gelu' approximate must be \"none\" or "
                                "\"tanh\", got \""
                             << attr->string << "\"";
      return Expr::invalid(call.loc);
    }
    approximation = *parsed;
  }
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand) ||
      failed(checkDtype(CallErrors{b, call},
                        getElementTypeOrSelf(operand->getType()),
                        DtypeClass::Float)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<GeluOp>(call.loc, *operand,
                       GeluApproximationAttr::get(b.getContext(), approximation)),
      call.loc);
}

template <ComparisonDirection Direction>
Expr buildCompare(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = b.unifyOperands(call, call.operands);
  if (failed(operands))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>((*operands)[0].getType());
  auto resultType = type.clone(b.getBuilder().getI1Type());
  return Expr::ofTensor(
      b.create<CompareOp>(call.loc, resultType,
                          ComparisonDirectionAttr::get(b.getContext(), Direction),
                          (*operands)[0], (*operands)[1]),
      call.loc);
}

Expr buildSelect(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> condition = b.requireTensor(call, call.operands[0]);
  if (failed(condition))
    return Expr::invalid(call.loc);
  Type conditionType = getElementTypeOrSelf(condition->getType());
  if (!conditionType.isSignlessInteger(1)) {
    b.emitError(call.operands[0].loc)
        << "'select' condition must be i1, got " << conditionType;
    return Expr::invalid(call.loc);
  }
  // The branches share a dtype; all three share one broadcast shape.
  FailureOr<SmallVector<Value>> branches =
      b.unifyOperands(call, ArrayRef(call.operands).drop_front());
  if (failed(branches))
    return Expr::invalid(call.loc);
  FailureOr<SmallVector<int64_t>> shape = inferBroadcastShape(
      CallErrors{b, call}, cast<RankedTensorType>(condition->getType()).getShape(),
      cast<RankedTensorType>((*branches)[0].getType()).getShape());
  if (failed(shape))
    return Expr::invalid(call.loc);
  auto broadcastTo = [&](Value value, Type dtype) -> Value {
    auto type = RankedTensorType::get(*shape, dtype);
    if (value.getType() == type)
      return value;
    return b.create<BroadcastOp>(call.loc, type, value);
  };
  Type dtype = getElementTypeOrSelf((*branches)[0].getType());
  return Expr::ofTensor(
      b.create<SelectOp>(call.loc, broadcastTo(*condition, conditionType),
                         broadcastTo((*branches)[0], dtype),
                         broadcastTo((*branches)[1], dtype)),
      call.loc);
}

Expr buildCast(GraphBuilder &b, const CallSite &call) {
  const AttrValue *to = call.lookup("to");
  if (!to) {
    b.emitOpError(call) << "needs the attribute 'to' (the target dtype)";
    return Expr::invalid(call.loc);
  }
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  // A wider dtype may take more bytes than a tensor can.
  FailureOr<RankedTensorType> type = makeTensorType(
      CallErrors{b, call},
      cast<RankedTensorType>(operand->getType()).getShape(), to->dtype);
  if (failed(type))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<CastOp>(call.loc, *type, *operand), call.loc);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy, DtypeClass Allowed>
Expr buildReduce(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  if (failed(checkDtype(CallErrors{b, call}, type.getElementType(), Allowed)))
    return Expr::invalid(call.loc);
  SmallVector<int64_t> axes;
  if (const AttrValue *attr = call.lookup("axes")) {
    for (int64_t axis : attr->ints) {
      FailureOr<int64_t> normalized =
          b.normalizeAxis(call, "axis", axis, type.getRank());
      if (failed(normalized))
        return Expr::invalid(call.loc);
      if (llvm::is_contained(axes, *normalized)) {
        b.emitError(attr->loc) << "'" << call.opName << "' axis " << axis
                               << " appears twice in axes";
        return Expr::invalid(call.loc);
      }
      axes.push_back(*normalized);
    }
    llvm::sort(axes);
  } else {
    // Without axes, reduce everything, as numpy does.
    for (int64_t i = 0; i < type.getRank(); ++i)
      axes.push_back(i);
  }
  // Reducing over no axis (a scalar, or `axes=[]`) is the identity, as in
  // numpy.
  if (axes.empty())
    return Expr::ofTensor(*operand, call.loc);
  FailureOr<RankedTensorType> resultType =
      inferReduceType(CallErrors{b, call}, type, axes);
  if (failed(resultType))
    return Expr::invalid(call.loc);
  Value result = b.create<OpTy>(call.loc, *resultType, *operand,
                                b.getBuilder().getDenseI64ArrayAttr(axes));
  if (const AttrValue *keep = call.lookup("keepdims"); keep && keep->boolean) {
    SmallVector<int64_t> kept(type.getShape());
    for (int64_t axis : axes)
      kept[axis] = 1;
    result = b.create<ReshapeOp>(call.loc, type.clone(kept), result);
  }
  return Expr::ofTensor(result, call.loc);
}

/// `max` and `min` are elementwise with two operands, reductions with one.
template <typename ElementwiseOp, typename ReduceOp>
Expr buildMaxMin(GraphBuilder &b, const CallSite &call) {
  if (call.operands.size() == 1)
    return buildReduce<ReduceOp, DtypeClass::Numeric>(b, call);
  if (!call.attrs.empty()) {
    b.emitError(call.attrs.front().nameLoc)
        << "'" << call.opName
        << "' with two operands is elementwise and takes no attributes";
    return Expr::invalid(call.loc);
  }
  return buildElementwise<ElementwiseOp, DtypeClass::Numeric>(b, call);
}

//===----------------------------------------------------------------------===//
// Shapes and generators
//===----------------------------------------------------------------------===//

/// The required `shape` attribute; `allowInferred` admits one -1 entry.
FailureOr<SmallVector<int64_t>> getShape(GraphBuilder &b, const CallSite &call,
                                         bool allowInferred = false) {
  const AttrValue *attr = call.lookup("shape");
  if (!attr) {
    b.emitOpError(call) << "needs the attribute 'shape'";
    return failure();
  }
  int inferred = 0;
  for (int64_t dim : attr->ints) {
    if (dim == -1 && allowInferred && ++inferred == 1)
      continue;
    if (dim < 0) {
      b.emitError(attr->loc)
          << "'" << call.opName << "' shape entries must be non-negative"
          << (allowInferred ? " (one -1 may stand for the rest)" : "")
          << ", got " << dim;
      return failure();
    }
  }
  return SmallVector<int64_t>(attr->ints);
}

Expr buildReshape(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  FailureOr<SmallVector<int64_t>> shape = getShape(b, call, true);
  if (failed(operand) || failed(shape))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  auto inferredDim = llvm::find(*shape, -1);
  if (inferredDim != shape->end()) {
    int64_t known = 1;
    for (int64_t dim : *shape)
      if (dim != -1 && llvm::MulOverflow(known, dim, known)) {
        b.emitOpError(call) << "shape overflows a 64-bit element count";
        return Expr::invalid(call.loc);
      }
    if (known == 0 || type.getNumElements() % known != 0) {
      b.emitOpError(call) << "cannot infer the -1 entry: "
                          << type.getNumElements()
                          << " elements are not a multiple of " << known;
      return Expr::invalid(call.loc);
    }
    *inferredDim = type.getNumElements() / known;
  }
  FailureOr<RankedTensorType> resultType =
      b.makeType(call.lookup("shape")->loc, *shape, type.getElementType());
  if (failed(resultType) ||
      failed(verifyReshape(CallErrors{b, call}, type, *resultType)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<ReshapeOp>(call.loc, *resultType, *operand),
                        call.loc);
}

Expr buildTranspose(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  SmallVector<int64_t> perm;
  if (const AttrValue *attr = call.lookup("perm"))
    perm.assign(attr->ints.begin(), attr->ints.end());
  else // Without perm, reverse the dimensions, as numpy does.
    for (int64_t i = type.getRank() - 1; i >= 0; --i)
      perm.push_back(i);
  FailureOr<RankedTensorType> resultType =
      inferTransposeType(CallErrors{b, call}, type, perm);
  if (failed(resultType))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<TransposeOp>(call.loc, *resultType, *operand,
                            b.getBuilder().getDenseI64ArrayAttr(perm)),
      call.loc);
}

Expr buildBroadcast(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  FailureOr<SmallVector<int64_t>> shape = getShape(b, call);
  if (failed(operand) || failed(shape))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  FailureOr<RankedTensorType> resultType =
      b.makeType(call.lookup("shape")->loc, *shape, type.getElementType());
  if (failed(resultType) ||
      failed(verifyBroadcastTo(CallErrors{b, call}, type.getShape(), *shape)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<BroadcastOp>(call.loc, *resultType, *operand),
                        call.loc);
}

Type getDtype(GraphBuilder &b, const CallSite &call, Type fallback) {
  const AttrValue *attr = call.lookup("dtype");
  return attr ? attr->dtype : fallback;
}

Expr buildIota(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<int64_t>> shape = getShape(b, call);
  if (failed(shape))
    return Expr::invalid(call.loc);
  Type dtype = getDtype(b, call, b.getBuilder().getI32Type());
  if (failed(checkDtype(CallErrors{b, call}, dtype, DtypeClass::Numeric)))
    return Expr::invalid(call.loc);
  FailureOr<RankedTensorType> type =
      b.makeType(call.lookup("shape")->loc, *shape, dtype);
  if (failed(type))
    return Expr::invalid(call.loc);
  FailureOr<int64_t> dim =
      b.normalizeAxis(call, "dim", getInt(call, "dim", 0), type->getRank());
  if (failed(dim))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<IotaOp>(call.loc, *type, *dim), call.loc);
}

Expr buildFull(GraphBuilder &b, const CallSite &call) {
  const Expr &value = call.operands[0];
  if (!value.isNumber()) {
    b.emitError(value.loc) << "'full' expects a number as its value";
    return Expr::invalid(call.loc);
  }
  FailureOr<SmallVector<int64_t>> shape = getShape(b, call);
  if (failed(shape))
    return Expr::invalid(call.loc);
  FailureOr<RankedTensorType> type =
      b.makeType(call.lookup("shape")->loc, *shape,
                 getDtype(b, call, b.getBuilder().getF32Type()));
  if (failed(type))
    return Expr::invalid(call.loc);
  return tensorResult(call, b.materializeNumber(value, *type, "full"));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

Expr buildGather(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> table = b.requireTensor(call, call.operands[0]);
  FailureOr<Value> indices = b.requireTensor(call, call.operands[1]);
  if (failed(table) || failed(indices))
    return Expr::invalid(call.loc);
  auto tableType = cast<RankedTensorType>(table->getType());
  auto indicesType = cast<RankedTensorType>(indices->getType());
  Type indexDtype = indicesType.getElementType();
  if (!isIntegerNumber(indexDtype)) {
    b.emitError(call.operands[1].loc)
        << "'gather' indices must be i32 or i64, got " << indexDtype;
    return Expr::invalid(call.loc);
  }
  FailureOr<int64_t> axis = b.normalizeAxis(
      call, "axis", getInt(call, "axis", 0), tableType.getRank());
  if (failed(axis))
    return Expr::invalid(call.loc);
  FailureOr<RankedTensorType> type =
      inferGatherType(CallErrors{b, call}, tableType, indicesType, *axis);
  if (failed(type))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<GatherOp>(call.loc, *type, *table, *indices, *axis), call.loc);
}

/// argmax and argmin: the axis is required; keepdims keeps it as size 1.
template <typename OpTy>
Expr buildArgReduce(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  if (failed(checkDtype(CallErrors{b, call}, type.getElementType(),
                        DtypeClass::Numeric)))
    return Expr::invalid(call.loc);
  const AttrValue *axisAttr = call.lookup("axis");
  if (!axisAttr) {
    b.emitOpError(call) << "needs the attribute 'axis'";
    return Expr::invalid(call.loc);
  }
  FailureOr<int64_t> axis =
      b.normalizeAxis(call, "axis", axisAttr->integer, type.getRank());
  if (failed(axis))
    return Expr::invalid(call.loc);
  FailureOr<RankedTensorType> resultType =
      inferArgReduceType(CallErrors{b, call}, type, *axis);
  if (failed(resultType))
    return Expr::invalid(call.loc);
  Value result = b.create<OpTy>(call.loc, *resultType, *operand, *axis);
  if (const AttrValue *keep = call.lookup("keepdims"); keep && keep->boolean) {
    SmallVector<int64_t> kept(type.getShape());
    kept[*axis] = 1;
    result = b.create<ReshapeOp>(call.loc, resultType->clone(kept), result);
  }
  return Expr::ofTensor(result, call.loc);
}

//===----------------------------------------------------------------------===//
// Compound ops
//===----------------------------------------------------------------------===//

/// The operands of a call that takes tensors only.
FailureOr<SmallVector<Value>> requireTensors(GraphBuilder &b,
                                             const CallSite &call) {
  SmallVector<Value> values;
  for (const Expr &operand : call.operands) {
    FailureOr<Value> value = b.requireTensor(call, operand);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The operands of a call that takes tensors only and computes in floating
/// point: the first operand's dtype must be a float type.
FailureOr<SmallVector<Value>> requireFloatTensors(GraphBuilder &b,
                                                  const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireTensors(b, call);
  if (failed(operands) ||
      failed(checkDtype(CallErrors{b, call},
                        typeOf((*operands)[0]).getElementType(),
                        DtypeClass::Float)))
    return failure();
  return operands;
}

Expr buildMatmul(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  Value lhs = (*operands)[0], rhs = (*operands)[1];
  FailureOr<RankedTensorType> type =
      inferMatmulType(CallErrors{b, call}, typeOf(lhs), typeOf(rhs));
  if (failed(type))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<MatmulOp>(call.loc, *type, lhs, rhs),
                        call.loc);
}

Expr buildSoftmax(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireFloatTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  RankedTensorType type = typeOf((*operands)[0]);
  FailureOr<int64_t> axis =
      b.normalizeAxis(call, "axis", getInt(call, "axis", -1), type.getRank());
  if (failed(axis))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<SoftmaxOp>(call.loc, (*operands)[0], *axis),
                        call.loc);
}

Expr buildLayerNorm(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireFloatTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  RankedTensorType type = typeOf((*operands)[0]);
  FailureOr<int64_t> axis =
      b.normalizeAxis(call, "axis", getInt(call, "axis", -1), type.getRank());
  double eps = getFloat(call, "eps", 1e-5);
  if (failed(axis) ||
      failed(verifyNormParameter(CallErrors{b, call}, "gamma", type, *axis,
                                 typeOf((*operands)[1]))) ||
      failed(verifyNormParameter(CallErrors{b, call}, "beta", type, *axis,
                                 typeOf((*operands)[2]))) ||
      failed(verifyEpsilon(CallErrors{b, call}, eps)))
    return Expr::invalid(call.loc);
  OpBuilder &builder = b.getBuilder();
  return Expr::ofTensor(
      b.create<LayerNormOp>(call.loc, type, (*operands)[0], (*operands)[1],
                            (*operands)[2], builder.getI64IntegerAttr(*axis),
                            builder.getF64FloatAttr(eps)),
      call.loc);
}

Expr buildRmsNorm(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireFloatTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  RankedTensorType type = typeOf((*operands)[0]);
  if (type.getRank() < 1) {
    b.emitOpError(call) << "expects an operand of rank >= 1";
    return Expr::invalid(call.loc);
  }
  double eps = getFloat(call, "eps", 1e-6);
  if (failed(verifyNormParameter(CallErrors{b, call}, "gamma", type,
                                 type.getRank() - 1, typeOf((*operands)[1]))) ||
      failed(verifyEpsilon(CallErrors{b, call}, eps)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<RmsNormOp>(call.loc, type, (*operands)[0], (*operands)[1],
                          b.getBuilder().getF64FloatAttr(eps)),
      call.loc);
}

Expr buildAttention(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireFloatTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  Value q = (*operands)[0], k = (*operands)[1], v = (*operands)[2];
  Value mask = operands->size() == 4 ? (*operands)[3] : Value();
  // The default scale is 1/sqrt(head dim), as in scaled dot-product attention.
  double scale = getFloat(call, "scale",
                          1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(
                                    1, typeOf(q).getShape().back()))));
  std::optional<RankedTensorType> maskType;
  if (mask)
    maskType = typeOf(mask);
  FailureOr<RankedTensorType> type =
      inferAttentionType(CallErrors{b, call}, typeOf(q), typeOf(k), typeOf(v),
                         maskType, scale);
  if (failed(type))
    return Expr::invalid(call.loc);
  const AttrValue *causal = call.lookup("causal");
  OpBuilder &builder = b.getBuilder();
  return Expr::ofTensor(
      b.create<AttentionOp>(call.loc, *type, q, k, v, mask,
                            builder.getF64FloatAttr(scale),
                            builder.getBoolAttr(causal && causal->boolean)),
      call.loc);
}

//===----------------------------------------------------------------------===//
// The catalogue
//===----------------------------------------------------------------------===//

constexpr AttrSpec kReduceAttrs[] = {{"axes", A::IntList},
                                     {"keepdims", A::Bool}};
constexpr AttrSpec kGeluAttrs[] = {{"approximate", A::String}};
constexpr AttrSpec kCastAttrs[] = {{"to", A::Dtype}};
constexpr AttrSpec kShapeAttrs[] = {{"shape", A::IntList}};
constexpr AttrSpec kTransposeAttrs[] = {{"perm", A::IntList}};
constexpr AttrSpec kIotaAttrs[] = {
    {"shape", A::IntList}, {"dim", A::Integer}, {"dtype", A::Dtype}};
constexpr AttrSpec kFullAttrs[] = {{"shape", A::IntList}, {"dtype", A::Dtype}};
constexpr AttrSpec kSoftmaxAttrs[] = {{"axis", A::Integer}};
constexpr AttrSpec kLayerNormAttrs[] = {{"axis", A::Integer}, {"eps", A::Float}};
constexpr AttrSpec kRmsNormAttrs[] = {{"eps", A::Float}};
constexpr AttrSpec kAttentionAttrs[] = {{"scale", A::Float},
                                        {"causal", A::Bool}};
constexpr AttrSpec kGatherAttrs[] = {{"axis", A::Integer}};
constexpr AttrSpec kArgReduceAttrs[] = {{"axis", A::Integer},
                                        {"keepdims", A::Bool}};

constexpr DtypeClass kFloat = DtypeClass::Float;
constexpr DtypeClass kNumeric = DtypeClass::Numeric;
using CD = ComparisonDirection;

const OpSpec kOpSpecs[] = {
    {"add", 2, 2, {}, buildElementwise<AddOp, kNumeric>},
    {"sub", 2, 2, {}, buildElementwise<SubOp, kNumeric>},
    {"mul", 2, 2, {}, buildElementwise<MulOp, kNumeric>},
    {"div", 2, 2, {}, buildElementwise<DivOp, kNumeric>},
    {"pow", 2, 2, {}, buildElementwise<PowOp, kFloat>},
    {"max", 1, 2, kReduceAttrs, buildMaxMin<MaxOp, ReduceMaxOp>},
    {"min", 1, 2, kReduceAttrs, buildMaxMin<MinOp, ReduceMinOp>},
    {"neg", 1, 1, {}, buildElementwise<NegOp, kNumeric>},
    {"abs", 1, 1, {}, buildElementwise<AbsOp, kNumeric>},
    {"relu", 1, 1, {}, buildElementwise<ReluOp, kNumeric>},
    {"floor", 1, 1, {}, buildElementwise<FloorOp, kNumeric>},
    {"exp", 1, 1, {}, buildElementwise<ExpOp, kFloat>},
    {"log", 1, 1, {}, buildElementwise<LogOp, kFloat>},
    {"sqrt", 1, 1, {}, buildElementwise<SqrtOp, kFloat>},
    {"rsqrt", 1, 1, {}, buildElementwise<RsqrtOp, kFloat>},
    {"tanh", 1, 1, {}, buildElementwise<TanhOp, kFloat>},
    {"sigmoid", 1, 1, {}, buildElementwise<SigmoidOp, kFloat>},
    {"silu", 1, 1, {}, buildElementwise<SiluOp, kFloat>},
    {"erf", 1, 1, {}, buildElementwise<ErfOp, kFloat>},
    {"sin", 1, 1, {}, buildElementwise<SinOp, kFloat>},
    {"cos", 1, 1, {}, buildElementwise<CosOp, kFloat>},
    {"gelu", 1, 1, kGeluAttrs, buildGelu},
    {"eq", 2, 2, {}, buildCompare<CD::EQ>},
    {"ne", 2, 2, {}, buildCompare<CD::NE>},
    {"lt", 2, 2, {}, buildCompare<CD::LT>},
    {"le", 2, 2, {}, buildCompare<CD::LE>},
    {"gt", 2, 2, {}, buildCompare<CD::GT>},
    {"ge", 2, 2, {}, buildCompare<CD::GE>},
    {"select", 3, 3, {}, buildSelect},
    {"cast", 1, 1, kCastAttrs, buildCast},
    {"sum", 1, 1, kReduceAttrs, buildReduce<ReduceSumOp, kNumeric>},
    {"mean", 1, 1, kReduceAttrs, buildReduce<ReduceMeanOp, kFloat>},
    {"reshape", 1, 1, kShapeAttrs, buildReshape},
    {"transpose", 1, 1, kTransposeAttrs, buildTranspose},
    {"broadcast", 1, 1, kShapeAttrs, buildBroadcast},
    {"iota", 0, 0, kIotaAttrs, buildIota},
    {"full", 1, 1, kFullAttrs, buildFull},
    {"matmul", 2, 2, {}, buildMatmul},
    {"softmax", 1, 1, kSoftmaxAttrs, buildSoftmax},
    {"layernorm", 3, 3, kLayerNormAttrs, buildLayerNorm},
    {"rmsnorm", 2, 2, kRmsNormAttrs, buildRmsNorm},
    {"attention", 3, 4, kAttentionAttrs, buildAttention},
    {"gather", 2, 2, kGatherAttrs, buildGather},
    {"argmax", 1, 1, kArgReduceAttrs, buildArgReduce<ArgMaxOp>},
    {"argmin", 1, 1, kArgReduceAttrs, buildArgReduce<ArgMinOp>},
};
} // namespace

const OpSpec *mlir::fk::frontend::lookupOpSpec(llvm::StringRef name) {
  for (const OpSpec &spec : kOpSpecs)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

llvm::ArrayRef<OpSpec> mlir::fk::frontend::getOpSpecs() { return kOpSpecs; }
