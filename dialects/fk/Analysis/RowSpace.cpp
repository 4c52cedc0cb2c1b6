//===- RowSpace.cpp - the rows of a reduction -----------------------------===//

#include "fk/Analysis/RowSpace.h"

using namespace mlir;
using namespace mlir::fk;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

std::optional<RowSpace> mlir::fk::getRowSpace(Operation *reduction) {
  RankedTensorType type = tensorType(reduction->getOperand(0));
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> axes = cast<DenseI64ArrayAttr>(reduction->getAttr("axes"));
  int64_t first = static_cast<int64_t>(shape.size()) - axes.size();
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis != first + static_cast<int64_t>(i))
      return std::nullopt;
  RowSpace space;
  space.shape.assign(shape.begin(), shape.end());
  space.leadingRank = first;
  space.symbols = type.getEncoding();
  return space;
}

bool RowSpace::hasRuntimeLength() const {
  return llvm::any_of(ArrayRef(shape).drop_front(leadingRank),
                      ShapedType::isDynamic);
}

int64_t RowSpace::rowLength() const {
  assert(!hasRuntimeLength() && "a row of a length given at run time");
  int64_t length = 1;
  for (int64_t size : ArrayRef(shape).drop_front(leadingRank))
    length *= size;
  return length;
}

std::string RowSpace::whyNotOnChip() const {
  if (hasRuntimeLength())
    return "";
  if (rowLength() == 0)
    return "its rows are empty";
  if (rowLength() > kMaxFusedRowLength)
    return "its rows of " + std::to_string(rowLength()) +
           " elements do not fit on chip (at most " +
           std::to_string(kMaxFusedRowLength) + ")";
  return "";
}

ArrayRef<int64_t> RowSpace::leadingShape() const {
  return ArrayRef(shape).take_front(leadingRank);
}

SmallVector<Dim> RowSpace::leadingDims() const {
  return llvm::to_vector(
      ArrayRef(getDims(shape, symbols)).take_front(leadingRank));
}

SmallVector<Dim> RowSpace::rowDims() const {
  return llvm::to_vector(
      ArrayRef(getDims(shape, symbols)).drop_front(leadingRank));
}

bool mlir::fk::equalUpToUnitDims(ArrayRef<Dim> dims, ArrayRef<Dim> other) {
  auto drop = [](ArrayRef<Dim> d) {
    SmallVector<Dim> kept;
    for (const Dim &dim : d)
      if (dim != Dim(1))
        kept.push_back(dim);
    return kept;
  };
  return drop(dims) == drop(other);
}

bool RowSpace::isRowType(RankedTensorType type) const {
  return getDims(type) == getDims(shape, symbols);
}

bool RowSpace::isReducedType(RankedTensorType type) const {
  return equalUpToUnitDims(getDims(type), leadingDims());
}

std::optional<RowSpace> mlir::fk::getFusionRowSpace(FusionOp fusion) {
  std::optional<RowSpace> rows;
  for (Operation &op : fusion.getBody().front()) {
    if (!isReduction(&op))
      continue;
    std::optional<RowSpace> space = getRowSpace(&op);
    if (!space || (rows && !(*rows == *space)))
      return std::nullopt;
    rows = space;
  }
  if (!rows)
    return std::nullopt;
  // Row and leading element counts whose coefficients fit 64 bits.
  if (!elementCount(rows->rowDims()) || !elementCount(rows->leadingDims()))
    return std::nullopt;
  for (Value result : fusion.getResults())
    if (!rows->isRowType(tensorType(result)) &&
        !rows->isReducedType(tensorType(result)))
      return std::nullopt;
  // Rows off chip only where they are streamed (never empty ones).
  if (!rows->whyNotOnChip().empty() && !isStreamedRowFusion(fusion, *rows))
    return std::nullopt;
  return rows;
}

bool mlir::fk::isStreamedRowFusion(FusionOp fusion, const RowSpace &rows) {
  if (rows.hasRuntimeLength() || rows.rowLength() <= kMaxFusedRowLength)
    return false;
  int64_t reductions = llvm::count_if(fusion.getBody().front(), [](Operation &op) {
    return isReduction(&op);
  });
  return reductions == 1 &&
         llvm::all_of(fusion.getResults(), [&](Value result) {
           return rows.isReducedType(tensorType(result));
         });
}

std::optional<int64_t> mlir::fk::getLongestRow(FusionOp fusion,
                                               const RowSpace &rows) {
  if (!rows.hasRuntimeLength())
    return rows.rowLength();
  std::optional<Dim> length = elementCount(rows.rowDims());
  if (!length)
    return std::nullopt;
  return getLargestSize(*length, getDimBounds(fusion));
}

bool mlir::fk::isLoopedRowFusion(FusionOp fusion, const RowSpace &rows) {
  if (!rows.hasRuntimeLength())
    return isStreamedRowFusion(fusion, rows);
  std::optional<int64_t> longest = getLongestRow(fusion, rows);
  return !longest || *longest > kMaxFusedRowLength;
}
