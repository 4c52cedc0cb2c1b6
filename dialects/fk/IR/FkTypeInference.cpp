//===- FkTypeInference.cpp - shape and dtype rules of fk ops --------------===//
//
// The `// op Cn` tags name the constraints of docs/language.md; constraints
// that ODS traits or type constraints check carry no tag here.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkTypeInference.h"
#include "fk/IR/FkScalarSemantics.h"
#include "fk/IR/FkSymbolicShape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

namespace {
/// Prints a shape the way the language writes it: `[4, 8]`.
struct ShapeText {
  ArrayRef<int64_t> shape;
};
Diagnostic &operator<<(Diagnostic &diag, ShapeText text) {
  diag << "[";
  llvm::interleave(
      text.shape, [&](int64_t d) { diag << d; }, [&] { diag << ", "; });
  return diag << "]";
}

/// Prints dimensions the way the language writes a shape: `[B, S, 768]`.
struct DimsText {
  ArrayRef<Dim> dims;
};
Diagnostic &operator<<(Diagnostic &diag, const DimsText &text) {
  return diag << formatShape(text.dims);
}

/// The error of a rule that needs arithmetic on a symbolic dimension other
/// than products (docs/language.md, "Symbolic dimensions").
InFlightDiagnostic emitSymbolicUnsupported(EmitErrorFn emitError,
                                           StringRef what, int64_t axis,
                                           const Dim &dim) {
  return emitError() << what << " along dimension " << axis << " of size "
                     << dim
                     << " is not supported on symbolic dimensions yet";
}

/// Prints a number as the language writes it: `inf`, `-inf`, `nan`, else
/// as MLIR prints a double.
struct NumberText {
  double value;
};
Diagnostic &operator<<(Diagnostic &diag, NumberText text) {
  if (std::isnan(text.value))
    return diag << "nan";
  if (std::isinf(text.value))
    return diag << (text.value > 0 ? "inf" : "-inf");
  return diag << text.value;
}
} // namespace

bool mlir::fk::isFkElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16() ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64) ||
         type.isSignlessInteger(1);
}

LogicalResult mlir::fk::checkDtype(EmitErrorFn emitError, Type elementType,
                                   DtypeClass allowed) {
  bool isFloat = elementType.isF32() || elementType.isF16() ||
                 elementType.isBF16();
  switch (allowed) {
  case DtypeClass::Float:
    if (isFloat)
      return success();
    return emitError() << "expects a floating-point operand (f32, f16, bf16), "
                          "got "
                       << elementType;
  case DtypeClass::Numeric:
    if (isFloat || isIntegerNumber(elementType))
      return success();
    return emitError() << "expects a numeric operand (f32, f16, bf16, i32, "
                          "i64), got "
                       << elementType;
  case DtypeClass::Any:
    if (isFkElementType(elementType))
      return success();
    return emitError() << "unsupported element type " << elementType;
  }
  llvm_unreachable("unknown dtype class");
}

std::optional<int64_t> mlir::fk::elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  }
  return count;
}

FailureOr<RankedTensorType> mlir::fk::makeTensorType(EmitErrorFn emitError,
                                                     ArrayRef<Dim> dims,
                                                     Type elementType) {
  for (const Dim &dim : dims)
    if (dim.getCoefficient() < 0)
      return emitError() << "dimension sizes must be non-negative, got "
                         << DimsText{dims};
  if (dims.size() > static_cast<size_t>(kMaxTensorRank))
    return emitError() << "shape " << DimsText{dims} << " has rank "
                       << dims.size() << "; tensors have at most "
                       << kMaxTensorRank << " dimensions";
  // A symbolic count's coefficient is a lower bound of its elements (every
  // symbol is at least 1 or the count is 0); binding checks the rest.
  std::optional<Dim> count = elementCount(dims);
  if (!count)
    return emitError() << "shape " << DimsText{dims}
                       << " has more elements than a 64-bit count can hold";
  // The runtime addresses a tensor's bytes with 64-bit signed offsets.
  int64_t elementBytes = elementType.isSignlessInteger(1)
                             ? 1
                             : elementType.getIntOrFloatBitWidth() / 8;
  int64_t bytes;
  if (llvm::MulOverflow(count->getCoefficient(), elementBytes, bytes))
    return emitError() << "shape " << DimsText{dims} << " of " << elementType
                       << " takes more than 2^63 - 1 bytes";
  return getTensorType(dims, elementType);
}

FailureOr<RankedTensorType> mlir::fk::makeTensorType(EmitErrorFn emitError,
                                                     ArrayRef<int64_t> shape,
                                                     Type elementType) {
  SmallVector<Dim> dims(shape.begin(), shape.end());
  return makeTensorType(emitError, dims, elementType);
}

FailureOr<SmallVector<Dim>>
mlir::fk::inferBroadcastShape(EmitErrorFn emitError, ArrayRef<Dim> lhs,
                              ArrayRef<Dim> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<Dim> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Dimensions align from the right, as in numpy.
    Dim l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : Dim(1);
    Dim r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : Dim(1);
    if (l != r && l != Dim(1) && r != Dim(1)) {
      InFlightDiagnostic diag = emitError()
                                << "shapes " << DimsText{lhs} << " and "
                                << DimsText{rhs}
                                << " do not broadcast: dimension " << l
                                << " vs " << r;
      // symbolic S1: a symbol never broadcasts implicitly.
      if (!l.isStatic() || !r.isStatic())
        diag << " (a symbolic dimension matches only itself or 1)";
      return diag;
    }
    result[rank - 1 - i] = l == Dim(1) ? r : l;
  }
  return result;
}

FailureOr<SmallVector<int64_t>>
mlir::fk::inferBroadcastShape(EmitErrorFn emitError, ArrayRef<int64_t> lhs,
                              ArrayRef<int64_t> rhs) {
  SmallVector<Dim> l(lhs.begin(), lhs.end()), r(rhs.begin(), rhs.end());
  FailureOr<SmallVector<Dim>> dims = inferBroadcastShape(emitError, l, r);
  if (failed(dims))
    return failure();
  return llvm::to_vector(llvm::map_range(
      *dims, [](const Dim &dim) { return dim.getCoefficient(); }));
}

LogicalResult mlir::fk::verifyBroadcastTo(EmitErrorFn emitError,
                                          ArrayRef<Dim> from,
                                          ArrayRef<Dim> to) {
  // broadcast C1
  if (from.size() > to.size())
    return emitError() << "cannot broadcast shape " << DimsText{from}
                       << " to the lower rank shape " << DimsText{to};
  // broadcast C2
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != Dim(1) && from[i] != to[offset + i])
      return emitError() << "cannot broadcast shape " << DimsText{from}
                         << " to " << DimsText{to} << ": dimension "
                         << from[i] << " vs " << to[offset + i];
  return success();
}

LogicalResult mlir::fk::verifyAxis(EmitErrorFn emitError, StringRef what,
                                   int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitError() << what << " " << axis << " is out of range for rank "
                       << rank;
  return success();
}

FailureOr<RankedTensorType> mlir::fk::inferMatmulType(EmitErrorFn emitError,
                                                      RankedTensorType lhs,
                                                      RankedTensorType rhs) {
  // matmul C1
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitError() << "operands must have rank >= 2, got rank "
                       << lhs.getRank() << " and rank " << rhs.getRank();
  // matmul C2
  if (lhs.getElementType() != rhs.getElementType())
    return emitError() << "operand dtypes differ: " << lhs.getElementType()
                       << " vs " << rhs.getElementType();
  // matmul C6: the front end's check; in the IR the ODS type constraint holds
  // it already.
  if (failed(checkDtype(emitError, lhs.getElementType(), DtypeClass::Numeric)))
    return failure();
  SmallVector<Dim> a = getDims(lhs), b = getDims(rhs);
  // matmul C3
  Dim k = a.back(), kRhs = b[b.size() - 2];
  if (k != kRhs)
    return emitError() << "contracting dimensions differ: " << DimsText{a}
                       << " has " << k << ", " << DimsText{b} << " has "
                       << kRhs;
  // matmul C4
  FailureOr<SmallVector<Dim>> batch = inferBroadcastShape(
      emitError, ArrayRef(a).drop_back(2), ArrayRef(b).drop_back(2));
  if (failed(batch))
    return failure();
  batch->push_back(a[a.size() - 2]);
  batch->push_back(b.back());
  return makeTensorType(emitError, *batch, lhs.getElementType());
}

FailureOr<RankedTensorType> mlir::fk::inferReduceType(EmitErrorFn emitError,
                                                      RankedTensorType operand,
                                                      ArrayRef<int64_t> axes) {
  // reduce C1
  if (axes.empty())
    return emitError() << "expects at least one axis";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    // reduce C2
    if (failed(verifyAxis(emitError, "axis", axis, operand.getRank())))
      return failure();
    // reduce C3
    if (i > 0 && axes[i - 1] >= axis)
      return emitError() << "axes must be distinct and ascending, got "
                         << ShapeText{axes};
  }
  SmallVector<Dim> shape;
  for (auto [dim, size] : llvm::enumerate(getDims(operand)))
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      shape.push_back(size);
  return getTensorType(shape, operand.getElementType());
}

FailureOr<RankedTensorType>
mlir::fk::inferTransposeType(EmitErrorFn emitError, RankedTensorType operand,
                             ArrayRef<int64_t> perm) {
  // transpose C1
  int64_t rank = operand.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitError() << "perm " << ShapeText{perm} << " has "
                       << perm.size() << " entries for an operand of rank "
                       << rank;
  // transpose C2
  SmallVector<bool> seen(rank, false);
  SmallVector<Dim> dims = getDims(operand), shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitError() << "perm " << ShapeText{perm}
                         << " is not a permutation of the dimensions 0.."
                         << rank - 1;
    seen[p] = true;
    shape.push_back(dims[p]);
  }
  return getTensorType(shape, operand.getElementType());
}

LogicalResult mlir::fk::verifyReshape(EmitErrorFn emitError,
                                      RankedTensorType from,
                                      RankedTensorType to) {
  // reshape C1
  if (from.getElementType() != to.getElementType())
    return emitError() << "reshape cannot change the dtype: "
                       << from.getElementType() << " vs "
                       << to.getElementType();
  // reshape C2: symbolic counts are equal as monomials (B*S*768 is
  // B*S*12*64), so they agree for every binding.
  SmallVector<Dim> fromDims = getDims(from), toDims = getDims(to);
  std::optional<Dim> fromCount = elementCount(fromDims),
                     toCount = elementCount(toDims);
  if (!fromCount || !toCount || *fromCount != *toCount)
    return emitError() << "cannot reshape " << DimsText{fromDims} << " ("
                       << (fromCount ? fromCount->str() : "too many")
                       << " elements) to " << DimsText{toDims} << " ("
                       << (toCount ? toCount->str() : "too many")
                       << " elements)";
  return success();
}

LogicalResult mlir::fk::verifyNormParameter(EmitErrorFn emitError,
                                            StringRef name,
                                            RankedTensorType operand,
                                            int64_t axis,
                                            RankedTensorType parameter) {
  // layernorm C2 (gamma), C3 (beta); rmsnorm C2 (gamma)
  if (parameter.getElementType() != operand.getElementType())
    return emitError() << "parameter '" << name << "' has dtype "
                       << parameter.getElementType() << " but the operand has "
                       << operand.getElementType();
  Dim length = getDim(operand, axis);
  if (parameter.getRank() != 1 || getDim(parameter, 0) != length)
    return emitError() << "parameter '" << name << "' must have shape [" << length
                       << "] (the normalized axis), got "
                       << DimsText{getDims(parameter)};
  return success();
}

LogicalResult mlir::fk::verifyEpsilon(EmitErrorFn emitError, double eps) {
  // layernorm C4, rmsnorm C3
  if (!std::isfinite(eps) || eps < 0)
    return emitError() << "eps must be finite and non-negative, got "
                       << NumberText{eps};
  return success();
}

FailureOr<RankedTensorType>
mlir::fk::inferGatherType(EmitErrorFn emitError, RankedTensorType table,
                          RankedTensorType indices, int64_t axis) {
  // gather C2
  if (failed(verifyAxis(emitError, "axis", axis, table.getRank())))
    return failure();
  // gather C3
  SmallVector<Dim> tableDims = getDims(table);
  if (tableDims[axis] == Dim(0) &&
      elementCount(getDims(indices)) != std::optional<Dim>(Dim(0)))
    return emitError() << "gathers from the empty axis " << axis
                       << " of a table of shape " << DimsText{tableDims};
  SmallVector<Dim> shape(ArrayRef(tableDims).take_front(axis));
  llvm::append_range(shape, getDims(indices));
  llvm::append_range(shape, ArrayRef(tableDims).drop_front(axis + 1));
  return makeTensorType(emitError, shape, table.getElementType());
}

FailureOr<RankedTensorType>
mlir::fk::inferArgReduceType(EmitErrorFn emitError, RankedTensorType operand,
                             int64_t axis) {
  // argmax C2
  if (failed(verifyAxis(emitError, "axis", axis, operand.getRank())))
    return failure();
  // argmax C3: an index of the axis, and the axis's length as the "none"
  // sentinel of the decomposition, must be i32 values.
  // A symbolic axis is checked once bound.
  SmallVector<Dim> shape = getDims(operand);
  if (shape[axis].isStatic()) {
    int64_t size = shape[axis].getCoefficient();
    if (size == 0 || size > std::numeric_limits<int32_t>::max())
      return emitError() << "axis " << axis << " has " << size
                         << " elements; expected 1 to 2147483647";
  }
  shape.erase(shape.begin() + axis);
  return getTensorType(shape, IntegerType::get(operand.getContext(), 32));
}

FailureOr<RankedTensorType> mlir::fk::inferAttentionType(
    EmitErrorFn emitError, RankedTensorType query, RankedTensorType key,
    RankedTensorType value, std::optional<RankedTensorType> mask,
    double scale) {
  // attention C1
  if (query.getRank() < 2 || key.getRank() < 2 || value.getRank() < 2)
    return emitError() << "query, key and value must have rank >= 2";
  // attention C2
  Type dtype = query.getElementType();
  if (key.getElementType() != dtype || value.getElementType() != dtype ||
      (mask && mask->getElementType() != dtype))
    return emitError() << "query, key, value and mask must share one dtype";
  SmallVector<Dim> q = getDims(query), k = getDims(key), v = getDims(value);
  // attention C3
  if (q.back() != k.back())
    return emitError() << "query and key head dimensions differ: " << q.back()
                       << " vs " << k.back();
  // attention C4
  if (k[k.size() - 2] != v[v.size() - 2])
    return emitError() << "key and value sequence lengths differ: "
                       << k[k.size() - 2] << " vs " << v[v.size() - 2];
  // attention C5
  FailureOr<SmallVector<Dim>> batch = inferBroadcastShape(
      emitError, ArrayRef(q).drop_back(2), ArrayRef(k).drop_back(2));
  if (failed(batch))
    return failure();
  batch = inferBroadcastShape(emitError, *batch, ArrayRef(v).drop_back(2));
  if (failed(batch))
    return failure();
  // attention C6
  if (mask) {
    SmallVector<Dim> scores(*batch);
    scores.push_back(q[q.size() - 2]);
    scores.push_back(k[k.size() - 2]);
    if (failed(verifyBroadcastTo(emitError, getDims(*mask), scores)))
      return failure();
  }
  // attention C7
  if (!std::isfinite(scale))
    return emitError() << "scale must be finite, got " << NumberText{scale};
  batch->push_back(q[q.size() - 2]);
  batch->push_back(v.back());
  return makeTensorType(emitError, *batch, dtype);
}

LogicalResult mlir::fk::verifySlice(EmitErrorFn emitError,
                                    RankedTensorType operand,
                                    ArrayRef<int64_t> start,
                                    ArrayRef<int64_t> step,
                                    RankedTensorType result,
                                    DictionaryAttr lowerBounds) {
  int64_t rank = operand.getRank();
  // slice C1
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return emitError() << "start " << ShapeText{start} << " and step "
                       << ShapeText{step}
                       << " must have one entry per dimension of the operand "
                          "(rank "
                       << rank << ")";
  // slice C2
  for (int64_t s : step)
    if (s < 1)
      return emitError() << "step entries must be >= 1, got "
                         << ShapeText{step};
  // slice C3
  if (result.getElementType() != operand.getElementType() ||
      result.getRank() != rank)
    return emitError() << "result " << result
                       << " must have the operand's dtype and rank";
  SmallVector<Dim> operandDims = getDims(operand), resultDims = getDims(result);
  for (int64_t d = 0; d < rank; ++d) {
    // symbolic S2: a symbolic dimension is sliced whole, or by a window of
    // static size counted from its start or (a negative start) its end.
    if (!resultDims[d].isStatic()) {
      if (operandDims[d] != resultDims[d] || start[d] != 0 || step[d] != 1)
        return emitSymbolicUnsupported(emitError, "slicing", d,
                                       operandDims[d])
               << " (a window of a symbolic size is the whole dimension)";
      continue;
    }
    int64_t size = resultDims[d].getCoefficient();
    if (size == 0)
      continue;
    // slice C3: the window's first and last elements, counted from the
    // start or, for a negative start, from the end.
    int64_t last;
    if (llvm::MulOverflow(step[d], size - 1, last) ||
        llvm::AddOverflow(last, start[d], last))
      return emitError() << "a window of " << size << " elements by "
                         << step[d] << " overflows a 64-bit index";
    bool fromEnd = start[d] < 0;
    if (fromEnd && last >= 0)
      return emitError() << "a window of " << size << " elements from "
                         << start[d] << " (counted from the end) by "
                         << step[d] << " passes the end of dimension " << d;
    // The elements the dimension needs to hold the window.
    int64_t needed = fromEnd ? -start[d] : last + 1;
    if (operandDims[d].isStatic()) {
      int64_t dim = operandDims[d].getCoefficient();
      if (needed > dim)
        return emitError() << "a window of " << size << " elements from "
                           << start[d] << " by " << step[d]
                           << " does not fit dimension " << d << " of size "
                           << dim;
      continue;
    }
    int64_t smallest = getSmallestSize(operandDims[d], lowerBounds);
    if (needed > smallest)
      return emitError() << "a window of " << size << " elements from "
                         << start[d] << " by " << step[d]
                         << " needs dimension " << d << " of size "
                         << operandDims[d] << " to hold at least " << needed
                         << " elements, but its size may be " << smallest
                         << " (give its symbols lower bounds: `where "
                         << needed << " <= "
                         << formatBoundedSymbol(operandDims[d]) << "`)";
  }
  return success();
}

FailureOr<RankedTensorType>
mlir::fk::inferConcatType(EmitErrorFn emitError,
                          ArrayRef<RankedTensorType> operands, int64_t axis) {
  // concat C1
  if (operands.empty())
    return emitError() << "expects at least one operand";
  RankedTensorType first = operands.front();
  // concat C2
  if (failed(verifyAxis(emitError, "axis", axis, first.getRank())))
    return failure();
  SmallVector<Dim> firstDims = getDims(first), shape = firstDims;
  int64_t joined = 0;
  for (RankedTensorType type : operands) {
    // concat C3
    if (type.getElementType() != first.getElementType())
      return emitError() << "operand dtypes differ: "
                         << first.getElementType() << " vs "
                         << type.getElementType();
    if (type.getRank() != first.getRank())
      return emitError() << "operand ranks differ: " << first.getRank()
                         << " vs " << type.getRank();
    SmallVector<Dim> dims = getDims(type);
    // concat C4
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && dims[d] != firstDims[d])
        return emitError() << "operand shapes " << DimsText{firstDims}
                           << " and " << DimsText{dims}
                           << " differ in dimension " << d
                           << ", not the joined axis " << axis;
    // symbolic S2
    if (!dims[axis].isStatic())
      return emitSymbolicUnsupported(emitError, "joining", axis,
                                     dims[axis]);
    if (llvm::AddOverflow(joined, dims[axis].getCoefficient(), joined))
      return emitError() << "the joined axis overflows a 64-bit size";
  }
  shape[axis] = Dim(joined);
  return makeTensorType(emitError, shape, first.getElementType());
}

FailureOr<RankedTensorType> mlir::fk::inferPadType(EmitErrorFn emitError,
                                                   RankedTensorType operand,
                                                   ArrayRef<int64_t> low,
                                                   ArrayRef<int64_t> high) {
  int64_t rank = operand.getRank();
  // pad C1
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitError() << "low " << ShapeText{low} << " and high "
                       << ShapeText{high}
                       << " must have one entry per dimension of the operand "
                          "(rank "
                       << rank << ")";
  SmallVector<Dim> shape = getDims(operand);
  for (int64_t d = 0; d < rank; ++d) {
    // pad C2
    if (low[d] < 0 || high[d] < 0)
      return emitError() << "low " << ShapeText{low} << " and high "
                         << ShapeText{high} << " must be non-negative";
    // symbolic S2
    if (!shape[d].isStatic()) {
      if (low[d] != 0 || high[d] != 0)
        return emitSymbolicUnsupported(emitError, "padding", d, shape[d]);
      continue;
    }
    int64_t size;
    if (llvm::AddOverflow(shape[d].getCoefficient(), low[d], size) ||
        llvm::AddOverflow(size, high[d], size))
      return emitError() << "padded dimension " << d
                         << " overflows a 64-bit size";
    shape[d] = Dim(size);
  }
  return makeTensorType(emitError, shape, operand.getElementType());
}

LogicalResult mlir::fk::verifyPadValue(EmitErrorFn emitError, double value,
                                       Type dtype) {
  // pad C4
  if (!isRepresentable(value, dtype))
    return emitError() << "padding value " << NumberText{value}
                       << " is not a value of " << dtype;
  return success();
}

LogicalResult mlir::fk::verifyWindow(EmitErrorFn emitError,
                                     StringRef windowName,
                                     RankedTensorType full,
                                     RankedTensorType window,
                                     ArrayRef<int64_t> staticStart,
                                     size_t dynamicCount,
                                     DictionaryAttr bounds) {
  int64_t rank = full.getRank();
  // dynamic_slice C1, update_slice C1
  if (static_cast<int64_t>(staticStart.size()) != rank)
    return emitError() << "start has " << staticStart.size()
                       << " entries for a tensor of rank " << rank;
  // dynamic_slice C2, update_slice C2
  size_t dynamic = llvm::count(staticStart, ShapedType::kDynamic);
  if (dynamic != dynamicCount)
    return emitError() << "start has " << dynamic
                       << " dynamic entries but there are " << dynamicCount
                       << " start operands";
  // dynamic_slice C3, update_slice C3
  if (window.getElementType() != full.getElementType())
    return emitError() << windowName << " dtype " << window.getElementType()
                       << " differs from " << full.getElementType();
  SmallVector<Dim> windowDims = getDims(window), fullDims = getDims(full);
  if (window.getRank() != rank)
    return emitError() << windowName << " shape " << DimsText{windowDims}
                       << " has rank " << window.getRank() << ", not "
                       << rank;
  // The window's largest extent per dimension of static size.
  SmallVector<int64_t> largest(rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    if (windowDims[d].isStatic()) {
      largest[d] = windowDims[d].getCoefficient();
      if (fullDims[d].isStatic() && largest[d] > fullDims[d].getCoefficient())
        return emitError() << windowName << " shape " << DimsText{windowDims}
                           << " exceeds " << DimsText{fullDims}
                           << " in dimension " << d;
    }
    if (fullDims[d].isStatic() && windowDims[d].isStatic())
      continue;
    // symbolic S2: a window spans a symbolic dimension whole, from 0 ...
    if (fullDims[d] == windowDims[d] &&
        (staticStart[d] == ShapedType::kDynamic || staticStart[d] == 0))
      continue;
    // ... or is of a symbolic size that the bounds keep within a
    // dimension of static size (dynamic_slice C3, update_slice C3).
    if (!fullDims[d].isStatic())
      return emitSymbolicUnsupported(emitError, "window", d, fullDims[d])
             << " (a symbolic dimension is taken whole)";
    std::optional<int64_t> most = getLargestSize(windowDims[d], bounds);
    int64_t size = fullDims[d].getCoefficient();
    if (!most || *most > size) {
      InFlightDiagnostic diag = emitError()
                                << windowName << " dimension " << d << " ("
                                << windowDims[d] << ") may exceed the "
                                << size << " elements it is a window of: ";
      if (most)
        return diag << "its bounds allow " << *most << " (bound it: `where "
                    << formatBoundedSymbol(windowDims[d]) << " <= " << size
                    << "`)";
      return diag << "give its symbols bounds (`where "
                  << formatBoundedSymbol(windowDims[d]) << " <= " << size
                  << "`)";
    }
    largest[d] = *most;
  }
  // dynamic_slice C4, update_slice C4
  for (int64_t d = 0; d < rank; ++d) {
    if (!fullDims[d].isStatic())
      continue;
    int64_t start = staticStart[d];
    int64_t limit = fullDims[d].getCoefficient() - largest[d];
    if (start != ShapedType::kDynamic && (start < 0 || start > limit))
      return emitError() << "static start " << start << " of dimension " << d
                         << " is outside [0, " << limit << "]"
                         << (windowDims[d].isStatic()
                                 ? ""
                                 : " (the window's largest extent is " +
                                       std::to_string(largest[d]) + ")");
  }
  return success();
}
