//===- Sizes.h - Sizes stated in terms of a graph's symbols -----*- C++ -*-===//
//
// From artifact version 4 a graph may have symbols: sizes the caller's
// tensors give at run time (docs/artifact.md, "Symbols"). A symbolic tensor
// dimension is a `Monomial` ("B*S", "2*S"); a launch's grid and integer
// arguments are `SizeExpr`s over the symbols ({"ceil_div": ["B*S", 128]}).
// Both are evaluated per run with overflow checks.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_SIZES_H
#define FKRT_LIB_SIZES_H

#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {

/// A coefficient times a product of symbols (by index into the graph's
/// symbols, a symbol repeated for its powers). With no symbols it is the
/// size `coefficient`.
struct Monomial {
  int64_t coefficient = 1;
  std::vector<size_t> symbols;

  bool isConstant() const { return symbols.empty(); }
  /// The symbol alone (coefficient 1): a dimension that binds it.
  bool isSymbol() const { return coefficient == 1 && symbols.size() == 1; }
  /// The value at `sizes` (by symbol); false if it overflows int64.
  bool evaluate(const std::vector<int64_t> &sizes, int64_t &value) const;

  bool operator==(const Monomial &other) const {
    return coefficient == other.coefficient && symbols == other.symbols;
  }
};

/// Reads `text`, factors joined by '*', each a positive integer or one of
/// `names`, as a monomial over them. On failure returns false and sets
/// `error` to what is wrong (e.g. "unknown symbol 'T'").
bool parseMonomial(const std::string &text,
                   const std::vector<std::string> &names, Monomial &out,
                   std::string &error);

/// An integer the manifest computes from the run's sizes.
struct SizeExpr {
  enum Kind {
    /// `product` (a constant when it has no symbols).
    Product,
    /// ceil(operands[0] / operands[1]); the divisor must not be 0.
    CeilDiv,
    Mul,
    Add,
    Min,
    Max,
  };
  Kind kind = Product;
  Monomial product;
  std::vector<SizeExpr> operands;

  static SizeExpr constant(int64_t value) {
    SizeExpr e;
    e.product.coefficient = value;
    return e;
  }
  /// Whether it names no symbol (and so is known when the manifest is read).
  bool isConstant() const;
  /// The value at `sizes` (by symbol); false on overflow or a division by 0.
  bool evaluate(const std::vector<int64_t> &sizes, int64_t &value) const;
};

} // namespace fkrt

#endif // FKRT_LIB_SIZES_H
