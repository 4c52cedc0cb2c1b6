//===- FkSymbolicShape.cpp - dimensions written as names ------------------===//

#include "fk/IR/FkSymbolicShape.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::fk;

Dim Dim::symbol(llvm::StringRef name) {
  Dim dim(1);
  dim.symbols.push_back(name.str());
  return dim;
}

void Dim::normalize() {
  if (coefficient == 0)
    symbols.clear();
  llvm::sort(symbols);
}

std::optional<Dim> Dim::parse(llvm::StringRef text) {
  Dim dim(1);
  bool sawCoefficient = false;
  llvm::SmallVector<llvm::StringRef> factors;
  text.split(factors, '*');
  for (llvm::StringRef factor : factors) {
    if (factor.empty())
      return std::nullopt;
    if (llvm::isDigit(factor.front())) {
      int64_t value;
      if (sawCoefficient || factor.getAsInteger(10, value) ||
          llvm::MulOverflow(dim.coefficient, value, dim.coefficient))
        return std::nullopt;
      sawCoefficient = true;
      continue;
    }
    if (!llvm::all_of(factor, [](char c) {
          return llvm::isAlnum(c) || c == '_';
        }))
      return std::nullopt;
    dim.symbols.push_back(factor.str());
  }
  dim.normalize();
  return dim;
}

std::optional<Dim> Dim::times(const Dim &other) const {
  Dim product(0);
  if (llvm::MulOverflow(coefficient, other.coefficient, product.coefficient))
    return std::nullopt;
  product.symbols = symbols;
  llvm::append_range(product.symbols, other.symbols);
  product.normalize();
  return product;
}

std::optional<Dim> Dim::dividedBy(const Dim &divisor) const {
  if (divisor.coefficient == 0 || coefficient % divisor.coefficient != 0)
    return std::nullopt;
  Dim quotient(coefficient / divisor.coefficient);
  // Both symbol lists are sorted: remove each of the divisor's once.
  std::vector<std::string> rest(symbols);
  for (const std::string &symbol : divisor.symbols) {
    auto it = llvm::find(rest, symbol);
    if (it == rest.end())
      return std::nullopt;
    rest.erase(it);
  }
  quotient.symbols = std::move(rest);
  quotient.normalize();
  return quotient;
}

std::string Dim::str() const {
  if (isStatic())
    return std::to_string(coefficient);
  std::string text = coefficient == 1 ? "" : std::to_string(coefficient) + "*";
  return text + llvm::join(symbols, "*");
}

SmallVector<Dim> mlir::fk::getDims(RankedTensorType type) {
  return getDims(type.getShape(), type.getEncoding());
}

SmallVector<Dim> mlir::fk::getDims(ArrayRef<int64_t> shape,
                                   Attribute monomials) {
  auto encoding = dyn_cast_or_null<ArrayAttr>(monomials);
  SmallVector<Dim> dims;
  unsigned dynamic = 0;
  for (int64_t size : shape) {
    if (!ShapedType::isDynamic(size)) {
      dims.push_back(Dim(size));
      continue;
    }
    std::optional<Dim> dim;
    if (encoding && dynamic < encoding.size())
      if (auto text = dyn_cast<StringAttr>(encoding[dynamic]))
        dim = Dim::parse(text.getValue());
    ++dynamic;
    assert(dim && "a dynamic dimension without its monomial");
    dims.push_back(dim ? *dim : Dim(0));
  }
  return dims;
}

Dim mlir::fk::getDim(RankedTensorType type, unsigned index) {
  return getDims(type)[index];
}

RankedTensorType mlir::fk::getTensorType(ArrayRef<Dim> dims,
                                         Type elementType) {
  SmallVector<int64_t> shape;
  SmallVector<Attribute> monomials;
  MLIRContext *context = elementType.getContext();
  for (const Dim &dim : dims) {
    if (dim.isStatic()) {
      shape.push_back(dim.getCoefficient());
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    monomials.push_back(StringAttr::get(context, dim.str()));
  }
  Attribute encoding =
      monomials.empty() ? Attribute() : ArrayAttr::get(context, monomials);
  return RankedTensorType::get(shape, elementType, encoding);
}

bool mlir::fk::isSymbolic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.hasStaticShape() &&
         isa_and_nonnull<ArrayAttr>(tensor.getEncoding());
}

bool mlir::fk::hasKnownShape(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  if (!tensor.getEncoding())
    return tensor.hasStaticShape();
  auto encoding = dyn_cast<ArrayAttr>(tensor.getEncoding());
  if (!encoding || encoding.empty() ||
      encoding.size() != static_cast<size_t>(tensor.getNumDynamicDims()))
    return false;
  return llvm::all_of(encoding, [](Attribute entry) {
    auto text = dyn_cast<StringAttr>(entry);
    if (!text)
      return false;
    std::optional<Dim> dim = Dim::parse(text.getValue());
    // Only the canonical text of a symbolic monomial, so that equal
    // monomials are equal types.
    return dim && !dim->isStatic() && dim->str() == text.getValue();
  });
}

std::string mlir::fk::formatBindHint(ArrayRef<std::string> symbols) {
  return llvm::join(llvm::map_range(symbols,
                                    [](const std::string &symbol) {
                                      return symbol + "=SIZE";
                                    }),
                    ",");
}

DictionaryAttr mlir::fk::getDimBounds(Operation *op) {
  auto graph = op->getParentOfType<FunctionOpInterface>();
  return graph ? graph->getAttrOfType<DictionaryAttr>(kDimBoundsAttrName)
               : DictionaryAttr();
}

std::optional<int64_t> mlir::fk::getLargestSize(const Dim &dim,
                                                DictionaryAttr bounds) {
  int64_t size = dim.getCoefficient();
  for (const std::string &symbol : dim.getSymbols()) {
    auto bound = bounds ? bounds.getAs<IntegerAttr>(symbol) : IntegerAttr();
    if (!bound || llvm::MulOverflow(size, bound.getInt(), size))
      return std::nullopt;
  }
  return size;
}

DictionaryAttr mlir::fk::getDimLowerBounds(Operation *op) {
  auto graph = op->getParentOfType<FunctionOpInterface>();
  return graph ? graph->getAttrOfType<DictionaryAttr>(kDimLowerBoundsAttrName)
               : DictionaryAttr();
}

SmallVector<SymbolBound> mlir::fk::getSymbolBounds(Operation *graph) {
  SmallVector<SymbolBound> result;
  for (bool lower : {false, true}) {
    auto bounds = graph->getAttrOfType<DictionaryAttr>(
        lower ? kDimLowerBoundsAttrName : kDimBoundsAttrName);
    if (!bounds)
      continue;
    for (NamedAttribute bound : bounds)
      if (auto limit = dyn_cast<IntegerAttr>(bound.getValue()))
        result.push_back({bound.getName().getValue(), lower, limit.getInt()});
  }
  return result;
}

int64_t mlir::fk::getSmallestSize(const Dim &dim,
                                  DictionaryAttr lowerBounds) {
  int64_t size = dim.getCoefficient();
  for (const std::string &symbol : dim.getSymbols()) {
    auto bound =
        lowerBounds ? lowerBounds.getAs<IntegerAttr>(symbol) : IntegerAttr();
    if (!bound)
      return 0;
    if (llvm::MulOverflow(size, bound.getInt(), size))
      return std::numeric_limits<int64_t>::max();
  }
  return size;
}

std::string mlir::fk::formatBoundedSymbol(const Dim &dim) {
  if (dim.getSymbols().size() == 1 && dim.getCoefficient() == 1)
    return dim.getSymbols()[0];
  return "SYMBOL";
}

std::optional<Dim> mlir::fk::elementCount(ArrayRef<Dim> dims) {
  Dim count(1);
  for (const Dim &dim : dims) {
    std::optional<Dim> product = count.times(dim);
    if (!product)
      return std::nullopt;
    count = *product;
  }
  return count;
}

std::string mlir::fk::formatShape(ArrayRef<Dim> dims) {
  std::string text = "[";
  llvm::interleave(
      dims, [&](const Dim &dim) { text += dim.str(); },
      [&] { text += ", "; });
  return text + "]";
}

void mlir::fk::collectSymbols(Type type,
                              SmallVectorImpl<std::string> &symbols) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isSymbolic(tensor))
    return;
  for (const Dim &dim : getDims(tensor))
    for (const std::string &symbol : dim.getSymbols())
      if (!llvm::is_contained(symbols, symbol))
        symbols.push_back(symbol);
}

std::optional<Dim> mlir::fk::substitute(const Dim &dim,
                                        const DimSubstitution &substitution) {
  std::optional<Dim> result = Dim(dim.getCoefficient());
  for (const std::string &symbol : dim.getSymbols()) {
    auto it = substitution.find(symbol);
    result = result->times(it == substitution.end() ? Dim::symbol(symbol)
                                                    : it->second);
    if (!result)
      return std::nullopt;
  }
  return result;
}

std::optional<Type> mlir::fk::substitute(Type type,
                                         const DimSubstitution &substitution) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isSymbolic(tensor))
    return type;
  SmallVector<Dim> dims;
  for (const Dim &dim : getDims(tensor)) {
    std::optional<Dim> replaced = substitute(dim, substitution);
    if (!replaced)
      return std::nullopt;
    dims.push_back(*replaced);
  }
  return getTensorType(dims, tensor.getElementType());
}

std::optional<Type> mlir::fk::specialize(Type type,
                                         const DimBindings &bindings) {
  DimSubstitution sizes;
  for (const auto &entry : bindings)
    sizes.try_emplace(entry.getKey(), Dim(entry.getValue()));
  std::optional<Type> specialized = substitute(type, sizes);
  if (!specialized || isSymbolic(*specialized))
    return std::nullopt;
  return specialized;
}

void mlir::fk::collectSymbols(Operation *root,
                              llvm::SmallVectorImpl<std::string> &symbols) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          collectSymbols(type, symbols);
    for (Type type : op->getResultTypes())
      collectSymbols(type, symbols);
  });
}
