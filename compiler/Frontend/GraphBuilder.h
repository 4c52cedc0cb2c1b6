//===- GraphBuilder.h - the semantics of .graph expressions -----*- C++ -*-===//
//
// The parser hands every expression it reads to a GraphBuilder, which infers
// its type, makes numpy broadcasting explicit, and creates fk ops at the
// expression's source location. Errors are reported at that location and
// yield an invalid expression that later uses accept silently, so that one
// mistake is reported once.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_FRONTEND_GRAPHBUILDER_H
#define FKC_FRONTEND_GRAPHBUILDER_H

#include "Frontend/Lexer.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::fk::frontend {

/// The value of an expression: a tensor, a number that takes its dtype from
/// where it is used, or invalid after an error.
struct Expr {
  enum class Kind { Tensor, Number, Invalid };
  Kind kind = Kind::Invalid;
  Value tensor;
  double number = 0;
  llvm::SMLoc loc;

  static Expr ofTensor(Value value, llvm::SMLoc loc) {
    return {Kind::Tensor, value, 0, loc};
  }
  static Expr ofNumber(double number, llvm::SMLoc loc) {
    return {Kind::Number, Value(), number, loc};
  }
  static Expr invalid(llvm::SMLoc loc = {}) {
    return {Kind::Invalid, Value(), 0, loc};
  }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isInvalid() const { return kind == Kind::Invalid; }
  RankedTensorType getType() const {
    return cast<RankedTensorType>(tensor.getType());
  }
};

/// A keyword attribute of a call: `axis=-1`, `to=f16`, `shape=[2, 3]`,
/// `start=[pos, 0]`.
struct AttrValue {
  /// `IndexList` is a list with at least one entry naming a graph value,
  /// `ShapeList` one with at least one symbolic dimension (`[B*S, 64]`).
  enum class Kind {
    Integer,
    Float,
    Bool,
    Dtype,
    String,
    IntList,
    IndexList,
    ShapeList
  };
  /// An entry of a list: an integer, the name of a graph value, or a
  /// symbolic dimension.
  struct ListEntry {
    int64_t integer = 0;
    /// A symbolic dimension (a product of the graph's symbols).
    std::optional<Dim> dim;
    /// Empty for an integer entry.
    llvm::StringRef name;
    /// The named value (invalid after an error already reported).
    Expr value;
    llvm::SMLoc loc;
    bool isName() const { return !name.empty(); }
  };
  Kind kind;
  int64_t integer = 0;
  double floating = 0;
  bool boolean = false;
  Type dtype;
  std::string string;
  /// A list's integers (0 for a named or symbolic entry) and its entries.
  llvm::SmallVector<int64_t> ints;
  llvm::SmallVector<ListEntry, 0> entries;
  llvm::SMLoc loc;
};

/// The kinds of attribute an op declares; `Float` also accepts integers,
/// `IntOrIntList` an integer or a list of integers, `IndexList` a list
/// whose entries are integers or names of graph values, `Shape` a list of
/// dimensions (integers or products of the graph's symbols).
enum class AttrKind {
  Integer,
  Float,
  Bool,
  Dtype,
  String,
  IntList,
  IntOrIntList,
  IndexList,
  Shape
};

struct NamedAttr {
  llvm::StringRef name;
  llvm::SMLoc nameLoc;
  AttrValue value;
};

/// An operation call as the parser read it.
struct CallSite {
  llvm::StringRef opName;
  llvm::SMLoc loc;
  llvm::SmallVector<Expr> operands;
  llvm::SmallVector<NamedAttr> attrs;

  const AttrValue *lookup(llvm::StringRef name) const;
};

class GraphBuilder {
public:
  GraphBuilder(const Lexer &lexer, OpBuilder &builder)
      : lexer(lexer), builder(builder) {}

  /// `lhs op rhs` for the infix operators + - * / @.
  Expr binary(Token::Kind op, llvm::SMLoc loc, const Expr &lhs,
              const Expr &rhs);
  /// `-operand`.
  Expr negate(llvm::SMLoc loc, const Expr &operand);
  /// A call of a named operation; checks operand count and attributes
  /// against the op catalogue, then builds it.
  Expr call(const CallSite &call);

  /// The graphs of the file, which calls may name too: an unknown name
  /// gets the closest operation or graph as a suggestion.
  void setGraphNames(ArrayRef<llvm::StringRef> names) {
    graphNames.assign(names.begin(), names.end());
  }

  /// Reports an error at `loc`.
  InFlightDiagnostic emitError(llvm::SMLoc loc) const;
  /// Reports an error about `call`, prefixed with the op's quoted name.
  InFlightDiagnostic emitOpError(const CallSite &call) const;
  Location getLocation(llvm::SMLoc loc) const { return lexer.getLocation(loc); }

  // Helpers for the op catalogue (GraphOps.cpp).

  /// Makes the operands one dtype (taken from the tensors among them) and
  /// one broadcast shape. Numbers become splat constants. Fails with an
  /// error naming `call` on dtype or shape mismatch.
  FailureOr<SmallVector<Value>> unifyOperands(const CallSite &call,
                                              ArrayRef<Expr> operands);
  /// The operand as a tensor, or an error if it is a number.
  FailureOr<Value> requireTensor(const CallSite &call, const Expr &operand);
  /// Checks that `number` is representable in `dtype` (section 6 of
  /// docs/language.md); the error names `opName`.
  LogicalResult checkNumber(const Expr &number, Type dtype,
                            llvm::StringRef opName);
  /// A splat constant of `type` holding `number`, or an error if the
  /// number is not representable in the dtype.
  FailureOr<Value> materializeNumber(const Expr &number, RankedTensorType type,
                                     llvm::StringRef opName);
  /// A tensor type, with an error at `loc` if its element count overflows.
  FailureOr<RankedTensorType> makeType(llvm::SMLoc loc, ArrayRef<Dim> dims,
                                       Type dtype);
  /// Normalizes a possibly negative axis (`-1` is the last) for `rank`.
  FailureOr<int64_t> normalizeAxis(const CallSite &call, llvm::StringRef attr,
                                   int64_t axis, int64_t rank);

  OpBuilder &getBuilder() { return builder; }
  /// The bounds (`where S <= 4096`, fk.dim_bounds) and lower bounds
  /// (`where 1 <= S`, fk.dim_lower_bounds) on the symbols of the graph
  /// being built, or null.
  DictionaryAttr getDimBounds() { return getGraphAttr(kDimBoundsAttrName); }
  DictionaryAttr getDimLowerBounds() {
    return getGraphAttr(kDimLowerBoundsAttrName);
  }
  MLIRContext *getContext() { return builder.getContext(); }

  /// Creates `OpTy` at the call's location.
  template <typename OpTy, typename... Args>
  Value create(llvm::SMLoc loc, Args &&...args) {
    return OpTy::create(builder, getLocation(loc), std::forward<Args>(args)...)
        .getResult();
  }

private:
  DictionaryAttr getGraphAttr(StringRef name) {
    Block *block = builder.getInsertionBlock();
    Operation *graph = block ? block->getParentOp() : nullptr;
    return graph ? graph->getAttrOfType<DictionaryAttr>(name)
                 : DictionaryAttr();
  }

  const Lexer &lexer;
  OpBuilder &builder;
  SmallVector<llvm::StringRef> graphNames;
};

/// Formats a tensor type as the language writes it: `f16[8, 4]`.
std::string formatType(RankedTensorType type);

/// Formats a number as briefly as it reads back exactly: `2.5`, `1e-05`.
std::string formatNumber(double value);

/// The candidate closest to `name` by edit distance, if it is close enough
/// to be a plausible typo; the "did you mean" of every diagnostic.
std::optional<llvm::StringRef>
nearestName(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> candidates);

/// The dtype named `name` (f32, f16, bf16, i32, i64, i1), or null.
Type parseDtype(MLIRContext *context, llvm::StringRef name);

} // namespace mlir::fk::frontend

#endif // FKC_FRONTEND_GRAPHBUILDER_H
