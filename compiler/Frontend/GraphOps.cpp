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
#include <algorithm>
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
  FailureOr<SmallVector<Dim>> shape = inferBroadcastShape(
      CallErrors{b, call}, getDims(cast<RankedTensorType>(condition->getType())),
      getDims(cast<RankedTensorType>((*branches)[0].getType())));
  if (failed(shape))
    return Expr::invalid(call.loc);
  auto broadcastTo = [&](Value value, Type dtype) -> Value {
    RankedTensorType type = getTensorType(*shape, dtype);
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
      getDims(cast<RankedTensorType>(operand->getType())), to->dtype);
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
    SmallVector<Dim> kept = getDims(type);
    for (int64_t axis : axes)
      kept[axis] = Dim(1);
    result = b.create<ReshapeOp>(
        call.loc, getTensorType(kept, type.getElementType()), result);
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

/// The dimensions of a shape attribute: its integers, and its entries that
/// are products of the graph's symbols.
SmallVector<Dim> getShapeDims(const AttrValue &attr) {
  SmallVector<Dim> dims;
  for (auto [integer, entry] : llvm::zip_equal(attr.ints, attr.entries))
    dims.push_back(entry.dim ? *entry.dim : Dim(integer));
  return dims;
}

/// The required `shape` attribute; `allowInferred` admits one -1 entry.
FailureOr<SmallVector<Dim>> getShape(GraphBuilder &b, const CallSite &call,
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
  return getShapeDims(*attr);
}

Expr buildReshape(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  FailureOr<SmallVector<Dim>> shape = getShape(b, call, true);
  if (failed(operand) || failed(shape))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  auto inferredDim = llvm::find(*shape, Dim(-1));
  if (inferredDim != shape->end()) {
    std::optional<Dim> known = Dim(1);
    for (const Dim &dim : *shape)
      if (dim != Dim(-1) && known)
        known = known->times(dim);
    std::optional<Dim> count = elementCount(getDims(type));
    if (!known || !count) {
      b.emitOpError(call) << "shape overflows a 64-bit element count";
      return Expr::invalid(call.loc);
    }
    // Symbolic counts divide as monomials: B*S*768 / (B*S*12) is 64.
    std::optional<Dim> quotient = count->dividedBy(*known);
    if (*known == Dim(0) || !quotient) {
      b.emitOpError(call) << "cannot infer the -1 entry: " << count->str()
                          << " elements are not a multiple of "
                          << known->str();
      return Expr::invalid(call.loc);
    }
    *inferredDim = *quotient;
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
  FailureOr<SmallVector<Dim>> shape = getShape(b, call);
  if (failed(operand) || failed(shape))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  FailureOr<RankedTensorType> resultType =
      b.makeType(call.lookup("shape")->loc, *shape, type.getElementType());
  if (failed(resultType) ||
      failed(verifyBroadcastTo(CallErrors{b, call}, getDims(type), *shape)))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(b.create<BroadcastOp>(call.loc, *resultType, *operand),
                        call.loc);
}

Type getDtype(GraphBuilder &b, const CallSite &call, Type fallback) {
  const AttrValue *attr = call.lookup("dtype");
  return attr ? attr->dtype : fallback;
}

Expr buildIota(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Dim>> shape = getShape(b, call);
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
  FailureOr<SmallVector<Dim>> shape = getShape(b, call);
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
    SmallVector<Dim> kept = getDims(type);
    kept[*axis] = Dim(1);
    result = b.create<ReshapeOp>(
        call.loc, getTensorType(kept, resultType->getElementType()), result);
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

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

/// An entry of `slice`'s start, stop or step for one dimension.
struct SliceBound {
  const AttrValue *attr;
  int64_t value;
};

/// Entry `index` of a slice attribute, or `fallback` when it is absent: in
/// the one-axis form an integer, else a list entry per dimension.
SliceBound sliceEntry(const CallSite &call, llvm::StringRef name,
                      bool oneAxis, size_t index, int64_t fallback) {
  const AttrValue *attr = call.lookup(name);
  if (!attr)
    return {nullptr, fallback};
  return {attr, oneAxis ? attr->integer : attr->ints[index]};
}

Expr buildSlice(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  int64_t rank = type.getRank();
  const AttrValue *axisAttr = call.lookup("axis");
  bool oneAxis = axisAttr != nullptr;
  // slice F1: one form or the other; slice F3: a list entry per dimension.
  for (llvm::StringRef name : {"start", "stop", "step"}) {
    const AttrValue *attr = call.lookup(name);
    if (!attr)
      continue;
    bool isList = attr->kind == AttrValue::Kind::IntList;
    if (oneAxis && isList) {
      b.emitError(attr->loc) << "'slice' " << name
                             << " must be an integer when 'axis' is given";
      return Expr::invalid(call.loc);
    }
    if (!oneAxis && !isList) {
      b.emitError(attr->loc)
          << "'slice' " << name
          << " must be a list of one entry per dimension without 'axis' "
             "(or give 'axis')";
      return Expr::invalid(call.loc);
    }
    if (!oneAxis && static_cast<int64_t>(attr->ints.size()) != rank) {
      b.emitError(attr->loc) << "'slice' " << name << " has "
                             << attr->ints.size()
                             << " entries for an operand of rank " << rank;
      return Expr::invalid(call.loc);
    }
  }
  std::optional<int64_t> axis;
  if (oneAxis) {
    // slice F2
    FailureOr<int64_t> normalized =
        b.normalizeAxis(call, "axis", axisAttr->integer, rank);
    if (failed(normalized))
      return Expr::invalid(call.loc);
    axis = *normalized;
  }
  SmallVector<int64_t> start, step;
  SmallVector<Dim> dims = getDims(type), shape;
  for (int64_t d = 0; d < rank; ++d) {
    // A dimension the one-axis form does not slice is taken whole.
    if (axis && *axis != d) {
      start.push_back(0);
      step.push_back(1);
      shape.push_back(dims[d]);
      continue;
    }
    SliceBound first = sliceEntry(call, "start", oneAxis, d, 0);
    SliceBound last = sliceEntry(call, "stop", oneAxis, d, 0);
    SliceBound stride = sliceEntry(call, "step", oneAxis, d, 1);
    // slice F4
    if (stride.value < 1) {
      b.emitError(stride.attr->loc)
          << "'slice' step must be >= 1, got " << stride.value;
      return Expr::invalid(call.loc);
    }
    int64_t from, to;
    if (dims[d].isStatic()) {
      // Python's rules: negative bounds count from the end, then both are
      // clamped into the dimension.
      int64_t dim = dims[d].getCoefficient();
      auto clampBound = [&](int64_t bound) {
        if (bound < 0)
          bound += dim;
        return std::clamp<int64_t>(bound, 0, dim);
      };
      from = clampBound(first.value);
      to = last.attr ? clampBound(last.value) : dim;
    } else {
      if (first.value == 0 && stride.value == 1 && !last.attr) {
        start.push_back(0);
        step.push_back(1);
        shape.push_back(dims[d]);
        continue;
      }
      // symbolic S2: a window of static size, counted from the start (a
      // start and a stop >= 0) or from the end (a start < 0 and a stop < 0
      // or none); the size must hold it, never clamp it (slice C3).
      bool fromStart = first.value >= 0 && last.attr && last.value >= 0;
      bool fromEnd = first.value < 0 && (!last.attr || last.value < 0);
      if (!fromStart && !fromEnd) {
        b.emitOpError(call)
            << "slicing along dimension " << d << " of size " << dims[d].str()
            << " from " << first.value
            << (last.attr ? " to " + std::to_string(last.value)
                          : std::string(" to its end"))
            << " is not supported on symbolic dimensions yet (the window "
               "of a symbolic dimension is the whole of it, or of a static "
               "size: both ends counted from the start, or from the end "
               "with a negative start)";
        return Expr::invalid(call.loc);
      }
      from = first.value;
      to = last.attr ? last.value : 0;
    }
    int64_t size = to > from ? (to - from - 1) / stride.value + 1 : 0;
    start.push_back(from);
    // A window of at most one element takes no step.
    step.push_back(size <= 1 ? 1 : stride.value);
    shape.push_back(Dim(size));
  }
  RankedTensorType resultType = getTensorType(shape, type.getElementType());
  if (failed(verifySlice(CallErrors{b, call}, type, start, step, resultType,
                         b.getDimLowerBounds())))
    return Expr::invalid(call.loc);
  OpBuilder &builder = b.getBuilder();
  return Expr::ofTensor(
      b.create<SliceOp>(call.loc, resultType, *operand,
                        builder.getDenseI64ArrayAttr(start),
                        builder.getDenseI64ArrayAttr(step)),
      call.loc);
}

Expr buildConcat(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  SmallVector<RankedTensorType> types;
  for (Value operand : *operands)
    types.push_back(cast<RankedTensorType>(operand.getType()));
  // concat F1
  FailureOr<int64_t> axis = b.normalizeAxis(call, "axis", getInt(call, "axis", 0),
                                            types.front().getRank());
  if (failed(axis))
    return Expr::invalid(call.loc);
  FailureOr<RankedTensorType> type =
      inferConcatType(CallErrors{b, call}, types, *axis);
  if (failed(type))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<ConcatOp>(call.loc, *type, *operands,
                         b.getBuilder().getI64IntegerAttr(*axis)),
      call.loc);
}

Expr buildPad(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  // Omitted sides pad nothing.
  auto amounts = [&](llvm::StringRef name) {
    if (const AttrValue *attr = call.lookup(name))
      return SmallVector<int64_t>(attr->ints);
    return SmallVector<int64_t>(type.getRank(), 0);
  };
  SmallVector<int64_t> low = amounts("low"), high = amounts("high");
  FailureOr<RankedTensorType> resultType =
      inferPadType(CallErrors{b, call}, type, low, high);
  if (failed(resultType))
    return Expr::invalid(call.loc);
  double value = 0;
  if (const AttrValue *attr = call.lookup("value")) {
    value = getFloat(call, "value", 0);
    // pad F1: the number rules of section 6, as for `full`.
    if (failed(b.checkNumber(Expr::ofNumber(value, attr->loc),
                             type.getElementType(), "pad")))
      return Expr::invalid(call.loc);
  }
  OpBuilder &builder = b.getBuilder();
  return Expr::ofTensor(
      b.create<PadOp>(call.loc, *resultType, *operand,
                      builder.getDenseI64ArrayAttr(low),
                      builder.getDenseI64ArrayAttr(high),
                      builder.getF64FloatAttr(value)),
      call.loc);
}

/// The start of a window of `window`'s shape in `full` (dynamic_slice,
/// update_slice): the static entries, clamped as the op clamps its dynamic
/// ones, with ShapedType::kDynamic for a named entry, and the named values.
struct WindowStart {
  SmallVector<int64_t> staticStart;
  SmallVector<Value> dynamic;
};

FailureOr<WindowStart> getWindowStart(GraphBuilder &b, const CallSite &call,
                                      RankedTensorType full,
                                      RankedTensorType window,
                                      llvm::StringRef windowName) {
  const AttrValue *attr = call.lookup("start");
  // dynamic_slice F1, update_slice F1
  if (!attr) {
    b.emitOpError(call) << "needs the attribute 'start'";
    return failure();
  }
  WindowStart start;
  for (const AttrValue::ListEntry &entry : attr->entries) {
    if (!entry.isName()) {
      start.staticStart.push_back(entry.integer);
      continue;
    }
    // dynamic_slice F2
    const Expr &value = entry.value;
    // A start of i32[] or i64[] is an operand of its own dtype (the ops
    // take either).
    Type dtype = value.isTensor() ? value.getType().getElementType() : Type();
    bool isIndex = value.isTensor() && value.getType().getRank() == 0 &&
                   (dtype.isSignlessInteger(32) || dtype.isSignlessInteger(64));
    if (!isIndex) {
      InFlightDiagnostic diag = b.emitError(entry.loc)
                                << "'" << call.opName << "' start entry '"
                                << entry.name
                                << "' must be a rank-0 i32 or i64 value, got ";
      if (value.isTensor())
        diag << formatType(value.getType());
      else
        diag << "a number";
      return failure();
    }
    start.staticStart.push_back(ShapedType::kDynamic);
    start.dynamic.push_back(value.tensor);
  }
  // Integer starts are clamped as the op clamps dynamic ones; a window
  // that does not fit is left to the op's checks (C3).
  if (start.staticStart.size() == static_cast<size_t>(full.getRank()) &&
      window.getRank() == full.getRank())
    for (int64_t d = 0; d < full.getRank(); ++d)
      if (start.staticStart[d] != ShapedType::kDynamic &&
          getDim(full, d).isStatic() && getDim(window, d).isStatic())
        start.staticStart[d] = std::min(
            std::max<int64_t>(start.staticStart[d], 0),
            getDim(full, d).getCoefficient() -
                getDim(window, d).getCoefficient());
  if (failed(verifyWindow(CallErrors{b, call}, windowName, full, window,
                          start.staticStart, start.dynamic.size(),
                          b.getDimBounds())))
    return failure();
  return start;
}

Expr buildDynamicSlice(GraphBuilder &b, const CallSite &call) {
  FailureOr<Value> operand = b.requireTensor(call, call.operands[0]);
  if (failed(operand))
    return Expr::invalid(call.loc);
  auto type = cast<RankedTensorType>(operand->getType());
  const AttrValue *size = call.lookup("size");
  // dynamic_slice F1
  if (!size) {
    b.emitOpError(call) << "needs the attribute 'size'";
    return Expr::invalid(call.loc);
  }
  FailureOr<RankedTensorType> resultType =
      b.makeType(size->loc, getShapeDims(*size), type.getElementType());
  if (failed(resultType))
    return Expr::invalid(call.loc);
  FailureOr<WindowStart> start =
      getWindowStart(b, call, type, *resultType, "result");
  if (failed(start))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<DynamicSliceOp>(
          call.loc, *resultType, *operand, start->dynamic,
          b.getBuilder().getDenseI64ArrayAttr(start->staticStart)),
      call.loc);
}

Expr buildUpdateSlice(GraphBuilder &b, const CallSite &call) {
  FailureOr<SmallVector<Value>> operands = requireTensors(b, call);
  if (failed(operands))
    return Expr::invalid(call.loc);
  Value dest = (*operands)[0], update = (*operands)[1];
  FailureOr<WindowStart> start = getWindowStart(
      b, call, typeOf(dest), typeOf(update), "update");
  if (failed(start))
    return Expr::invalid(call.loc);
  return Expr::ofTensor(
      b.create<UpdateSliceOp>(
          call.loc, dest.getType(), dest, update, start->dynamic,
          b.getBuilder().getDenseI64ArrayAttr(start->staticStart)),
      call.loc);
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
  // symbolic F5: 1/sqrt(D) of a symbolic D is no number yet.
  Dim headDim = getDims(typeOf(q)).back();
  if (!headDim.isStatic() && !call.lookup("scale")) {
    b.emitOpError(call) << "needs the attribute 'scale': the head dimension "
                        << headDim.str() << " is symbolic";
    return Expr::invalid(call.loc);
  }
  double scale = getFloat(call, "scale",
                          1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(
                                    1, headDim.getCoefficient()))));
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
constexpr AttrSpec kShapeAttrs[] = {{"shape", A::Shape}};
constexpr AttrSpec kTransposeAttrs[] = {{"perm", A::IntList}};
constexpr AttrSpec kIotaAttrs[] = {
    {"shape", A::Shape}, {"dim", A::Integer}, {"dtype", A::Dtype}};
constexpr AttrSpec kFullAttrs[] = {{"shape", A::Shape}, {"dtype", A::Dtype}};
constexpr AttrSpec kSoftmaxAttrs[] = {{"axis", A::Integer}};
constexpr AttrSpec kLayerNormAttrs[] = {{"axis", A::Integer}, {"eps", A::Float}};
constexpr AttrSpec kRmsNormAttrs[] = {{"eps", A::Float}};
constexpr AttrSpec kAttentionAttrs[] = {{"scale", A::Float},
                                        {"causal", A::Bool}};
constexpr AttrSpec kGatherAttrs[] = {{"axis", A::Integer}};
constexpr AttrSpec kArgReduceAttrs[] = {{"axis", A::Integer},
                                        {"keepdims", A::Bool}};
constexpr AttrSpec kSliceAttrs[] = {{"axis", A::Integer},
                                    {"start", A::IntOrIntList},
                                    {"stop", A::IntOrIntList},
                                    {"step", A::IntOrIntList}};
constexpr AttrSpec kConcatAttrs[] = {{"axis", A::Integer}};
constexpr AttrSpec kPadAttrs[] = {
    {"low", A::IntList}, {"high", A::IntList}, {"value", A::Float}};
constexpr AttrSpec kDynamicSliceAttrs[] = {{"start", A::IndexList},
                                           {"size", A::Shape}};
constexpr AttrSpec kUpdateSliceAttrs[] = {{"start", A::IndexList}};

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
    {"slice", 1, 1, kSliceAttrs, buildSlice},
    {"concat", 1, kUnboundedOperands, kConcatAttrs, buildConcat},
    {"pad", 1, 1, kPadAttrs, buildPad},
    {"dynamic_slice", 1, 1, kDynamicSliceAttrs, buildDynamicSlice},
    {"update_slice", 2, 2, kUpdateSliceAttrs, buildUpdateSlice},
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
