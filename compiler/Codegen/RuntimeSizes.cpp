//===- RuntimeSizes.cpp - kernels over sizes given at run time ------------===//

#include "Codegen/RuntimeSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::fk;

SmallVector<std::string> mlir::fk::getFusionSymbols(FusionOp fusion) {
  SmallVector<std::string> symbols;
  for (Type type : fusion->getOperandTypes())
    collectSymbols(type, symbols);
  for (Type type : fusion->getResultTypes())
    collectSymbols(type, symbols);
  collectSymbols(fusion.getOperation(), symbols);
  llvm::sort(symbols);
  return symbols;
}

bool mlir::fk::isStaticallyEmpty(RankedTensorType type) {
  return llvm::is_contained(type.getShape(), 0);
}

int64_t mlir::fk::getCollapsedRank(RankedTensorType type) {
  int64_t last = 0;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      last = d;
  return type.getRank() - last;
}

int64_t mlir::fk::getPlaceholderExtent(int64_t elementsPerRow) {
  return std::max<int64_t>(
      1, (int64_t(1) << 52) / std::max<int64_t>(1, elementsPerRow));
}

MemRefType mlir::fk::getKernelBufferType(RankedTensorType type,
                                         Type storedElement,
                                         DictionaryAttr bounds) {
  int64_t rank = getCollapsedRank(type);
  ArrayRef<int64_t> suffix = type.getShape().take_back(rank - 1);
  int64_t suffixElements = 1;
  for (int64_t size : suffix)
    suffixElements *= size;
  SmallVector<Dim> dims = getDims(type);
  std::optional<Dim> leading =
      elementCount(ArrayRef(dims).drop_back(rank - 1));
  std::optional<int64_t> extent =
      leading ? getLargestSize(*leading, bounds) : std::nullopt;
  int64_t placeholder = getPlaceholderExtent(suffixElements);
  if (!extent || (suffixElements && *extent > placeholder))
    extent = placeholder;
  SmallVector<int64_t> shape = {std::max<int64_t>(1, *extent)};
  llvm::append_range(shape, suffix);
  return MemRefType::get(shape, storedElement);
}

RuntimeSizes::RuntimeSizes(Block *entry, Location loc,
                           ArrayRef<std::string> symbols, ValueRange arguments)
    : entry(entry), b(entry->getParentOp()->getContext()), loc(loc) {
  for (auto [symbol, argument] : llvm::zip(symbols, arguments)) {
    auto cast =
        arith::IndexCastOp::create(atEnd(), loc, b.getIndexType(), argument);
    values[symbol] = cast;
    last = cast;
  }
}

OpBuilder &RuntimeSizes::atEnd() {
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(entry);
  return b;
}

Value mlir::fk::buildSize(OpBuilder &b, Location loc, const Dim &dim,
                          const llvm::StringMap<Value> &symbols) {
  // Sizes are non-negative and, within the runtime's checks, fit the
  // index type.
  auto flags =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value product;
  for (const std::string &symbol : dim.getSymbols()) {
    Value factor = symbols.lookup(symbol);
    assert(factor && "a symbol without a value");
    product = product ? arith::MulIOp::create(b, loc, product, factor, flags)
                            .getResult()
                      : factor;
  }
  if (dim.getCoefficient() == 1 && product)
    return product;
  Value coefficient =
      arith::ConstantIndexOp::create(b, loc, dim.getCoefficient());
  return product ? arith::MulIOp::create(b, loc, coefficient, product, flags)
                       .getResult()
                 : coefficient;
}

Value mlir::fk::getViewedBuffer(Value operand) {
  while (Operation *view = operand.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(
            view))
      break;
    operand = view->getOperand(0);
  }
  return operand;
}

Value RuntimeSizes::get(const Dim &dim) {
  if (Value known = values.lookup(dim.str()))
    return known;
  OpBuilder &builder = atEnd();
  Value value = buildSize(builder, loc, dim, values);
  // The last op built, after which the next values go.
  last = &*std::prev(builder.getInsertionPoint());
  values[dim.str()] = value;
  return value;
}

void RuntimeSizes::addBuffer(Value buffer, RankedTensorType type) {
  if (isSymbolic(type))
    bufferTensors[buffer] = type;
}
