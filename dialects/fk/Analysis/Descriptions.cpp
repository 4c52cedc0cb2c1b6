//===- Descriptions.cpp - how remarks name ops and sizes ------------------===//

#include "fk/Analysis/Descriptions.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fk;

/// The elements of `type` with each symbol at 1: a symbolic dimension
/// counts its coefficient, so that the byte counts of a symbolic graph
/// compare per unit of its symbols.
static int64_t getElementsPerSymbolUnit(RankedTensorType type) {
  int64_t elements = 1;
  for (const Dim &dim : getDims(type))
    elements *= dim.getCoefficient();
  return elements;
}

int64_t mlir::fk::getTensorBytes(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  int64_t elementBytes =
      element.isSignlessInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  return getElementsPerSymbolUnit(type) * elementBytes;
}

std::string mlir::fk::describeSymbolUnits(Operation *root) {
  SmallVector<std::string> symbols;
  collectSymbols(root, symbols);
  if (symbols.empty())
    return "";
  return ", counted with " + llvm::join(symbols, " = ") + " = 1";
}

std::string mlir::fk::formatBytes(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} B", bytes).str();
  return llvm::formatv("{0:f1} {1}", value, units[unit]).str();
}

std::string mlir::fk::describeOp(Operation *op) {
  std::string name;
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name = "'" + loc.getName().str() + "' (" + op->getName().getStringRef().str() + ")";
  else
    name = "'" + op->getName().getStringRef().str() + "'";
  return name;
}

/// The axis a gather reads along. Symbolic, its slices count per unit of
/// its symbols, as the sizes of symbolic tensors do (its coefficient).
static Dim getGatherAxis(GatherOp gather) {
  return getDim(cast<RankedTensorType>(gather.getTable().getType()),
                gather.getAxis());
}

/// The number of table slices a gather reads at most: one per index, and
/// repeated indices read the same slice.
static int64_t gatheredSlices(GatherOp gather) {
  int64_t indices = getElementsPerSymbolUnit(
      cast<RankedTensorType>(gather.getIndices().getType()));
  Dim axis = getGatherAxis(gather);
  return axis.isStatic() ? std::min(indices, axis.getCoefficient()) : indices;
}

int64_t mlir::fk::getGatherTableReadBytes(Operation *op) {
  auto gather = cast<GatherOp>(op);
  int64_t size = getGatherAxis(gather).getCoefficient();
  int64_t tableBytes = getTensorBytes(gather.getTable());
  return size == 0 ? 0 : tableBytes / size * gatheredSlices(gather);
}

std::string mlir::fk::describeGatherReads(Operation *op) {
  auto gather = cast<GatherOp>(op);
  int64_t tableBytes = getTensorBytes(gather.getTable());
  int64_t read = getGatherTableReadBytes(op);
  return llvm::formatv("{0} reads at most {1} of the {2} slices of its "
                       "table along axis {3} ({4} of {5})",
                       describeOp(op), gatheredSlices(gather),
                       getGatherAxis(gather).str(), gather.getAxis(),
                       formatBytes(read), formatBytes(tableBytes))
      .str();
}

/// "[1, 0]", with "?" for a start read at run time.
static std::string formatIndices(ArrayRef<int64_t> indices) {
  std::string text = "[";
  for (auto [i, index] : llvm::enumerate(indices)) {
    if (i)
      text += ", ";
    text += index == ShapedType::kDynamic ? "?" : std::to_string(index);
  }
  return text + "]";
}

std::string mlir::fk::describeIndexing(Operation *op) {
  if (auto slice = dyn_cast<SliceOp>(op))
    return llvm::formatv("reads its operand from {0} by {1}{2}",
                         formatIndices(slice.getStart()),
                         formatIndices(slice.getStep()),
                         llvm::any_of(slice.getStart(),
                                      [](int64_t s) { return s < 0; })
                             ? " (a negative start counts from the end)"
                             : "")
        .str();
  if (auto slice = dyn_cast<DynamicSliceOp>(op))
    return llvm::formatv("reads its operand from {0} (? read at run time and "
                         "clamped)",
                         formatIndices(slice.getStaticStart()))
        .str();
  if (auto concat = dyn_cast<ConcatOp>(op))
    return llvm::formatv("chooses among its {0} operands by the coordinate "
                         "along axis {1}",
                         concat.getInputs().size(), concat.getAxis())
        .str();
  if (isa<PadOp>(op))
    return "reads its operand inside the padding, the padding value outside";
  if (auto update = dyn_cast<UpdateSliceOp>(op))
    return llvm::formatv("reads the update inside its window at {0} (? read "
                         "at run time and clamped), the destination outside",
                         formatIndices(update.getStaticStart()))
        .str();
  return "";
}
