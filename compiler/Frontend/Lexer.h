//===- Lexer.h - tokens of the .graph language ------------------*- C++ -*-===//
//
// Tokens are slices of the source buffer, so every token knows its location.
// Lexical errors are reported through MLIR diagnostics at the offending byte
// and produce an `error` token, which the parser skips over without
// reporting again.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_FRONTEND_LEXER_H
#define FKC_FRONTEND_LEXER_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::fk::frontend {

class Token {
public:
  enum Kind {
#define TOK_MARKER(NAME) NAME,
#define TOK_IDENTIFIER(NAME) NAME,
#define TOK_LITERAL(NAME) NAME,
#define TOK_PUNCTUATION(NAME, SPELLING) NAME,
#define TOK_KEYWORD(SPELLING) kw_##SPELLING,
#include "Frontend/TokenKinds.def"
  };

  Token(Kind kind, llvm::StringRef spelling) : kind(kind), spelling(spelling) {}

  Kind getKind() const { return kind; }
  bool is(Kind k) const { return kind == k; }
  bool isNot(Kind k) const { return kind != k; }
  llvm::StringRef getSpelling() const { return spelling; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  /// The contents of a string literal, without its quotes.
  llvm::StringRef getStringValue() const { return spelling.drop_front().drop_back(); }

  /// A human-readable name of a token kind, for "expected X" messages.
  static llvm::StringRef describe(Kind kind);

private:
  Kind kind;
  llvm::StringRef spelling;
};

class Lexer {
public:
  Lexer(const llvm::SourceMgr &sourceMgr, MLIRContext *context);

  /// Lexes and returns the next token.
  Token lexToken();

  /// The MLIR location of a pointer into the buffer.
  Location getLocation(llvm::SMLoc loc) const;
  /// Reports an error at `loc`.
  InFlightDiagnostic emitError(llvm::SMLoc loc, const llvm::Twine &message) const;

  /// 1-based line number of `loc`, used for recovering at line starts.
  unsigned getLineNumber(llvm::SMLoc loc) const;

private:
  Token formToken(Token::Kind kind, const char *start) {
    return Token(kind, llvm::StringRef(start, curPtr - start));
  }
  Token emitErrorToken(const char *loc, const llvm::Twine &message);
  Token lexIdentifierOrKeyword(const char *start);
  Token lexNumber(const char *start);
  Token lexString(const char *start);
  void skipComment();

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  llvm::StringRef buffer;
  llvm::StringRef bufferName;
  const char *curPtr;
};

} // namespace mlir::fk::frontend

#endif // FKC_FRONTEND_LEXER_H
