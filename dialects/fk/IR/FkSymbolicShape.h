//===- FkSymbolicShape.h - dimensions written as names ----------*- C++ -*-===//
//
// A dimension of a graph is a size (`768`) or a product of the graph's
// symbols and a size (`S`, `B*S`, `2*S`): a monomial. In the IR a symbolic
// dimension is a dynamic dimension (`?`) of a RankedTensorType whose
// encoding, an ArrayAttr of StringAttr with one entry per dynamic
// dimension, holds the monomial's canonical text:
//
//   tensor<?x?x768xf16, ["B", "S"]>
//
// Because the symbols are part of the type, type equality is symbolic
// equality, so every "same type" check of the dialect is symbolic too.
// Binding the symbols to sizes (`specialize`) gives the static types the
// rest of the compiler works on.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKSYMBOLICSHAPE_H
#define FK_IR_FKSYMBOLICSHAPE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace mlir::fk {

/// A dimension: `coefficient * symbols[0] * symbols[1] * ...`, the symbols
/// sorted (a symbol may repeat). Without symbols it is the static size
/// `coefficient`; a zero coefficient drops the symbols.
class Dim {
public:
  Dim(int64_t size = 0) : coefficient(size) {}
  static Dim symbol(llvm::StringRef name);
  /// Reads the canonical text (`B*S`, `2*S`, `768`); nullopt if malformed.
  static std::optional<Dim> parse(llvm::StringRef text);

  bool isStatic() const { return symbols.empty(); }
  /// The size of a static dimension (a symbolic one's coefficient).
  int64_t getCoefficient() const { return coefficient; }
  llvm::ArrayRef<std::string> getSymbols() const { return symbols; }

  /// The product, or nullopt if the coefficient overflows int64.
  std::optional<Dim> times(const Dim &other) const;
  /// The exact quotient `this / divisor`, or nullopt if there is none.
  std::optional<Dim> dividedBy(const Dim &divisor) const;

  /// The canonical text, as the language writes it: `2*B*S`, `768`.
  std::string str() const;

  bool operator==(const Dim &other) const {
    return coefficient == other.coefficient && symbols == other.symbols;
  }
  bool operator!=(const Dim &other) const { return !(*this == other); }

private:
  void normalize();

  int64_t coefficient;
  std::vector<std::string> symbols;
};

/// Prints a dimension in a diagnostic as the language writes it.
inline Diagnostic &operator<<(Diagnostic &diag, const Dim &dim) {
  return diag << dim.str();
}

/// The dimensions of `type` (static sizes, and the monomials of its
/// encoding for its dynamic dimensions).
llvm::SmallVector<Dim> getDims(RankedTensorType type);
/// The dimensions of a shape whose dynamic dimensions' monomials are
/// `encoding` (a symbolic tensor type's encoding; null for none).
llvm::SmallVector<Dim> getDims(llvm::ArrayRef<int64_t> shape,
                               Attribute encoding);
/// Dimension `index` of `type`.
Dim getDim(RankedTensorType type, unsigned index);
/// The tensor type of `dims`: symbolic dimensions dynamic, their monomials
/// in the encoding; no encoding if every dimension is static.
RankedTensorType getTensorType(llvm::ArrayRef<Dim> dims, Type elementType);

/// Whether `type` is a tensor type with symbolic dimensions.
bool isSymbolic(Type type);
/// Whether `type` is a tensor type whose every dimension is a size or a
/// well-formed monomial: static without encoding, or dynamic dimensions
/// matched one to one by the encoding's monomials. The shapes fk ops take.
bool hasKnownShape(Type type);

/// The element count of `dims` as a monomial, or nullopt on overflow of
/// the coefficient.
std::optional<Dim> elementCount(llvm::ArrayRef<Dim> dims);

/// The bounds (`fk.dim_bounds`) of the graph that holds `op`, or null.
mlir::DictionaryAttr getDimBounds(mlir::Operation *op);

/// The largest size of `dim` under `bounds` (a graph's fk.dim_bounds), or
/// nullopt if a symbol is unbounded or the product overflows int64.
std::optional<int64_t> getLargestSize(const Dim &dim,
                                      mlir::DictionaryAttr bounds);

/// The lower bounds (`fk.dim_lower_bounds`) of the graph that holds `op`,
/// or null.
mlir::DictionaryAttr getDimLowerBounds(mlir::Operation *op);

/// One bound of a graph on a symbol: its largest size (`S <= 4096`, from
/// fk.dim_bounds) or its smallest (`1 <= S`, fk.dim_lower_bounds).
struct SymbolBound {
  llvm::StringRef symbol;
  bool lower;
  int64_t limit;

  bool admits(int64_t size) const {
    return lower ? size >= limit : size <= limit;
  }
  /// How a size that it does not admit breaks it: `above its bound 8`,
  /// `below its lower bound 2`.
  std::string describe() const {
    return (lower ? "below its lower bound " : "above its bound ") +
           std::to_string(limit);
  }
};

/// The bounds of the graph `graph` (a function): its fk.dim_bounds, then
/// its fk.dim_lower_bounds, each in the dictionary's order.
llvm::SmallVector<SymbolBound> getSymbolBounds(mlir::Operation *graph);

/// The smallest size of `dim` under `lowerBounds` (a graph's
/// fk.dim_lower_bounds; a symbol without one may be 0), saturating at
/// INT64_MAX.
int64_t getSmallestSize(const Dim &dim, mlir::DictionaryAttr lowerBounds);

/// `S=SIZE,T=SIZE`: the `--bind` that would give `symbols` sizes.
std::string formatBindHint(llvm::ArrayRef<std::string> symbols);

/// The symbol a `where` clause would bound to bound `dim`: its name when
/// `dim` is one symbol alone, else `SYMBOL`.
std::string formatBoundedSymbol(const Dim &dim);

/// Formats dimensions as the language writes a shape: `[B, S, 768]`.
std::string formatShape(llvm::ArrayRef<Dim> dims);

/// Adds the symbols of `type` (a tensor type, else none) to `symbols`,
/// each once, in order of first appearance.
void collectSymbols(Type type, llvm::SmallVectorImpl<std::string> &symbols);

/// Adds the symbols of every type `root` holds (its results, and the
/// results and block arguments of everything nested in it), each once, in
/// order of first appearance: a graph's symbols, when `root` is its
/// function.
void collectSymbols(Operation *root,
                    llvm::SmallVectorImpl<std::string> &symbols);

/// The function attribute holding a graph's bounds on its symbols
/// (`where S <= 4096`): a dictionary from symbol to its largest size.
inline constexpr llvm::StringLiteral kDimBoundsAttrName = "fk.dim_bounds";
/// The function attribute holding a graph's lower bounds on its symbols
/// (`where 1 <= S`): a dictionary from symbol to its smallest size.
inline constexpr llvm::StringLiteral kDimLowerBoundsAttrName =
    "fk.dim_lower_bounds";

/// Symbols bound to sizes: `S=128,B=1`.
using DimBindings = llvm::StringMap<int64_t>;

/// Symbols replaced by dimensions: the sizes of a binding, or the
/// caller's dimensions of a called graph's symbols.
using DimSubstitution = llvm::StringMap<Dim>;

/// `dim` with its symbols replaced as `substitution` says (symbols it does
/// not name stay); nullopt if the coefficient overflows int64.
std::optional<Dim> substitute(const Dim &dim,
                              const DimSubstitution &substitution);
/// `type` with its symbols replaced (a type that is not a symbolic tensor
/// is returned unchanged); nullopt on overflow.
std::optional<Type> substitute(Type type, const DimSubstitution &substitution);

/// `type` with its symbols replaced by their sizes under `bindings` (a
/// type without symbols is returned unchanged, any type not a tensor
/// too); nullopt if a symbol is unbound or a size overflows int64.
std::optional<Type> specialize(Type type, const DimBindings &bindings);

} // namespace mlir::fk

#endif // FK_IR_FKSYMBOLICSHAPE_H
