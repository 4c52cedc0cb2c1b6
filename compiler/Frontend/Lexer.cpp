//===- Lexer.cpp - tokens of the .graph language --------------------------===//

#include "Frontend/Lexer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::fk::frontend;

llvm::StringRef Token::describe(Kind kind) {
  switch (kind) {
  case eof:
    return "end of file";
  case error:
    return "invalid token";
  case identifier:
    return "a name";
  case integer:
    return "an integer";
  case floating:
    return "a number";
  case string:
    return "a string";
#define TOK_PUNCTUATION(NAME, SPELLING)                                        \
  case NAME:                                                                   \
    return "'" SPELLING "'";
#define TOK_KEYWORD(SPELLING)                                                  \
  case kw_##SPELLING:                                                          \
    return "'" #SPELLING "'";
#include "Frontend/TokenKinds.def"
  }
  llvm_unreachable("unknown token kind");
}

Lexer::Lexer(const llvm::SourceMgr &sourceMgr, MLIRContext *context)
    : sourceMgr(sourceMgr), context(context) {
  const llvm::MemoryBuffer *main =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  buffer = main->getBuffer();
  bufferName = main->getBufferIdentifier();
  curPtr = buffer.begin();
  // A UTF-8 byte order mark is not part of the text.
  if (buffer.starts_with("\xEF\xBB\xBF"))
    curPtr += 3;
}

Location Lexer::getLocation(llvm::SMLoc loc) const {
  // Columns count characters, not bytes, so that they match what an editor
  // shows on lines with non-ASCII text.
  unsigned line = sourceMgr.getLineAndColumn(loc).first;
  const char *lineStart = loc.getPointer();
  while (lineStart > buffer.begin() && lineStart[-1] != '\n' &&
         lineStart[-1] != '\r')
    --lineStart;
  if (lineStart == buffer.begin() && buffer.starts_with("\xEF\xBB\xBF"))
    lineStart += 3;
  unsigned column = 1;
  for (const char *p = lineStart; p < loc.getPointer(); ++p)
    column += (static_cast<unsigned char>(*p) & 0xC0) != 0x80;
  return FileLineColLoc::get(context, bufferName, line, column);
}

InFlightDiagnostic Lexer::emitError(llvm::SMLoc loc,
                                    const llvm::Twine &message) const {
  return mlir::emitError(getLocation(loc), message);
}

unsigned Lexer::getLineNumber(llvm::SMLoc loc) const {
  return sourceMgr.getLineAndColumn(loc).first;
}

Token Lexer::emitErrorToken(const char *loc, const llvm::Twine &message) {
  emitError(llvm::SMLoc::getFromPointer(loc), message);
  return formToken(Token::error, loc);
}

/// The length of the valid UTF-8 sequence at `ptr`, or 0 if it is invalid.
static unsigned utf8SequenceLength(const char *ptr, const char *end) {
  auto *bytes = reinterpret_cast<const llvm::UTF8 *>(ptr);
  unsigned length = llvm::getNumBytesForUTF8(*bytes);
  if (length == 0 || ptr + length > end ||
      !llvm::isLegalUTF8Sequence(bytes, bytes + length))
    return 0;
  return length;
}

Token Lexer::lexToken() {
  while (true) {
    const char *start = curPtr;
    if (curPtr == buffer.end())
      return formToken(Token::eof, start);
    char c = *curPtr++;
    switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
      continue;
    case '#':
      skipComment();
      continue;
    case '(':
      return formToken(Token::l_paren, start);
    case ')':
      return formToken(Token::r_paren, start);
    case '{':
      return formToken(Token::l_brace, start);
    case '}':
      return formToken(Token::r_brace, start);
    case '[':
      return formToken(Token::l_square, start);
    case ']':
      return formToken(Token::r_square, start);
    case ',':
      return formToken(Token::comma, start);
    case ':':
      return formToken(Token::colon, start);
    case '=':
      return formToken(Token::equal, start);
    case '@':
      return formToken(Token::at, start);
    case '+':
      return formToken(Token::plus, start);
    case '-':
      return formToken(Token::minus, start);
    case '*':
      return formToken(Token::star, start);
    case '/':
      return formToken(Token::slash, start);
    case '"':
      return lexString(start);
    case '<':
      // `<=` only: the bounds of a graph's symbols (`where S <= 4096`).
      if (curPtr != buffer.end() && *curPtr == '=') {
        ++curPtr;
        return formToken(Token::less_equal, start);
      }
      break;
    default:
      break;
    }
    if (isalpha(static_cast<unsigned char>(c)) || c == '_')
      return lexIdentifierOrKeyword(start);
    if (isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && isdigit(static_cast<unsigned char>(*curPtr))))
      return lexNumber(start);
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      unsigned length = utf8SequenceLength(start, buffer.end());
      if (length == 0)
        return emitErrorToken(start, "invalid UTF-8 byte 0x" +
                                         llvm::utohexstr(byte, /*LowerCase=*/true));
      curPtr = start + length;
      return emitErrorToken(start, "unexpected character '" +
                                       llvm::StringRef(start, length) + "'");
    }
    if (isprint(byte))
      return emitErrorToken(start, "unexpected character '" +
                                       llvm::StringRef(start, 1) + "'");
    return emitErrorToken(start, "unexpected control character 0x" +
                                     llvm::utohexstr(byte, /*LowerCase=*/true));
  }
}

void Lexer::skipComment() {
  // Comments may hold any UTF-8 text, but not invalid bytes.
  while (curPtr != buffer.end() && *curPtr != '\n') {
    auto byte = static_cast<unsigned char>(*curPtr);
    if (byte < 0x80) {
      ++curPtr;
      continue;
    }
    unsigned length = utf8SequenceLength(curPtr, buffer.end());
    if (length == 0) {
      emitError(llvm::SMLoc::getFromPointer(curPtr),
                "invalid UTF-8 byte 0x" +
                    llvm::utohexstr(byte, /*LowerCase=*/true) + " in comment");
      length = 1;
    }
    curPtr += length;
  }
}

Token Lexer::lexIdentifierOrKeyword(const char *start) {
  while (curPtr != buffer.end() &&
         (isalnum(static_cast<unsigned char>(*curPtr)) || *curPtr == '_'))
    ++curPtr;
  llvm::StringRef spelling(start, curPtr - start);
  Token::Kind kind = llvm::StringSwitch<Token::Kind>(spelling)
#define TOK_KEYWORD(SPELLING) .Case(#SPELLING, Token::kw_##SPELLING)
#include "Frontend/TokenKinds.def"
                         .Default(Token::identifier);
  return Token(kind, spelling);
}

Token Lexer::lexNumber(const char *start) {
  auto isDigit = [&](const char *p) {
    return p != buffer.end() && isdigit(static_cast<unsigned char>(*p));
  };
  bool isFloat = *start == '.';
  while (isDigit(curPtr))
    ++curPtr;
  if (curPtr != buffer.end() && *curPtr == '.') {
    isFloat = true;
    ++curPtr;
    while (isDigit(curPtr))
      ++curPtr;
  }
  if (curPtr != buffer.end() && (*curPtr == 'e' || *curPtr == 'E')) {
    const char *exponent = curPtr + 1;
    if (exponent != buffer.end() && (*exponent == '+' || *exponent == '-'))
      ++exponent;
    if (!isDigit(exponent)) {
      curPtr = exponent;
      return emitErrorToken(start, "malformed exponent in number '" +
                                       llvm::StringRef(start, curPtr - start) +
                                       "'");
    }
    isFloat = true;
    curPtr = exponent;
    while (isDigit(curPtr))
      ++curPtr;
  }
  // `2x` is neither a number nor a name.
  if (curPtr != buffer.end() &&
      (isalpha(static_cast<unsigned char>(*curPtr)) || *curPtr == '_')) {
    while (curPtr != buffer.end() &&
           (isalnum(static_cast<unsigned char>(*curPtr)) || *curPtr == '_'))
      ++curPtr;
    return emitErrorToken(start, "invalid number '" +
                                     llvm::StringRef(start, curPtr - start) +
                                     "'");
  }
  return formToken(isFloat ? Token::floating : Token::integer, start);
}

Token Lexer::lexString(const char *start) {
  while (true) {
    if (curPtr == buffer.end() || *curPtr == '\n')
      return emitErrorToken(start, "unterminated string");
    auto byte = static_cast<unsigned char>(*curPtr);
    if (byte == '"') {
      ++curPtr;
      return formToken(Token::string, start);
    }
    if (byte >= 0x80) {
      unsigned length = utf8SequenceLength(curPtr, buffer.end());
      if (length == 0) {
        const char *bad = curPtr++;
        return emitErrorToken(bad, "invalid UTF-8 byte 0x" +
                                       llvm::utohexstr(byte, true) +
                                       " in string");
      }
      curPtr += length;
      continue;
    }
    ++curPtr;
  }
}
