//===- Json.h - A small bounded JSON reader ---------------------*- C++ -*-===//
//
// The manifest's JSON parser. Hand-written so the runtime has no third-party
// dependency; it bounds nesting depth and input size, rejects duplicate keys,
// and keeps numbers as their lexeme so callers decide how to read them
// (exact 64-bit integers for shapes and sizes).
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_JSON_H
#define FKRT_LIB_JSON_H

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fkrt {
namespace json {

/// A parsed JSON value. Objects keep their keys in document order.
struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  /// The number's lexeme, or the decoded string.
  std::string text;
  std::vector<Value> elements;
  std::vector<std::pair<std::string, Value>> members;
  /// 1-based position of the value's first character in the parsed text.
  unsigned line = 0, column = 0;

  /// The member called `key`, or null.
  const Value *find(const std::string &key) const;
};

/// Limits on what parse() accepts.
struct Limits {
  size_t maxBytes = 16u << 20;
  unsigned maxDepth = 64;
};

/// Parses `text` as one JSON value. On failure returns false and sets
/// `error` to "line L, column C: what went wrong", counting the text's
/// first line as line `firstLine`.
bool parse(const std::string &text, Value &result, std::string &error,
           const Limits &limits = Limits(), unsigned firstLine = 1);

/// Reads a number lexeme as an exact int64. Returns false when the lexeme has
/// a fraction or exponent; sets `overflow` when it is an integer outside the
/// int64 range.
bool toInt64(const std::string &lexeme, int64_t &result, bool &overflow);

/// The offset of the first byte in [begin, end) of `s` that does not begin
/// a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no UTF-16
/// surrogates, nothing above U+10FFFF), or std::string::npos. JSON text is
/// UTF-8 (RFC 8259); parse() leaves this check to its callers, which know
/// where the text sits in their input.
size_t findInvalidUtf8(const std::string &s, size_t begin, size_t end);

} // namespace json
} // namespace fkrt

#endif // FKRT_LIB_JSON_H
