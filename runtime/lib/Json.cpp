//===- Json.cpp - A small bounded JSON reader -----------------------------===//

#include "Json.h"

#include <cstdio>

using namespace fkrt::json;

const Value *Value::find(const std::string &key) const {
  for (const auto &member : members)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {

/// A recursive-descent parser over RFC 8259 JSON. Recursion is bounded by
/// Limits::maxDepth, so hostile nesting cannot exhaust the stack.
class Parser {
public:
  Parser(const std::string &text, const Limits &limits, unsigned firstLine)
      : text(text), limits(limits), line(firstLine) {}

  bool run(Value &result, std::string &errorOut) {
    skipSpace();
    if (!parseValue(result, 0)) {
      errorOut = error;
      return false;
    }
    skipSpace();
    if (pos != text.size()) {
      fail("unexpected text after the JSON value");
      errorOut = error;
      return false;
    }
    return true;
  }

private:
  const std::string &text;
  const Limits &limits;
  size_t pos = 0;
  unsigned line;
  size_t lineStart = 0;
  std::string error;

  bool fail(const std::string &message) {
    error = "line " + std::to_string(line) + ", column " +
            std::to_string(pos - lineStart + 1) + ": " + message;
    return false;
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipSpace() {
    while (!atEnd()) {
      char c = text[pos];
      if (c == '\n') {
        ++line;
        lineStart = pos + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos;
    }
  }

  static std::string describe(char c) {
    if (c == '\0')
      return "end of input";
    if (c >= 0x20 && c < 0x7f)
      return std::string("'") + c + "'";
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x",
                  static_cast<unsigned>(static_cast<unsigned char>(c)));
    return buffer;
  }

  bool expectLiteral(const char *word) {
    for (const char *p = word; *p; ++p, ++pos)
      if (peek() != *p)
        return fail(std::string("invalid literal, expected '") + word + "'");
    return true;
  }

  bool parseValue(Value &value, unsigned depth) {
    value.line = line;
    value.column = static_cast<unsigned>(pos - lineStart + 1);
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(value, depth);
    case '[':
      return parseArray(value, depth);
    case '"':
      value.kind = Value::String;
      return parseString(value.text);
    case 't':
      value.kind = Value::Bool;
      value.boolean = true;
      return expectLiteral("true");
    case 'f':
      value.kind = Value::Bool;
      return expectLiteral("false");
    case 'n':
      value.kind = Value::Null;
      return expectLiteral("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(value);
      return fail("expected a value, found " + describe(c));
    }
  }

  bool enter(unsigned depth) {
    if (depth + 1 > limits.maxDepth)
      return fail("nesting deeper than " + std::to_string(limits.maxDepth));
    return true;
  }

  bool parseArray(Value &value, unsigned depth) {
    if (!enter(depth))
      return false;
    value.kind = Value::Array;
    ++pos;
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return true;
    }
    while (true) {
      value.elements.emplace_back();
      if (!parseValue(value.elements.back(), depth + 1))
        return false;
      skipSpace();
      char c = peek();
      if (c == ']') {
        ++pos;
        return true;
      }
      if (c != ',')
        return fail("expected ',' or ']', found " + describe(c));
      ++pos;
      skipSpace();
    }
  }

  bool parseObject(Value &value, unsigned depth) {
    if (!enter(depth))
      return false;
    value.kind = Value::Object;
    ++pos;
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return true;
    }
    while (true) {
      if (peek() != '"')
        return fail("expected a member name, found " + describe(peek()));
      std::string key;
      if (!parseString(key))
        return false;
      // Duplicate keys make "which one wins" reader-dependent: reject them.
      if (value.find(key))
        return fail("duplicate member '" + key + "'");
      skipSpace();
      if (peek() != ':')
        return fail("expected ':', found " + describe(peek()));
      ++pos;
      skipSpace();
      value.members.emplace_back(std::move(key), Value());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
      skipSpace();
      char c = peek();
      if (c == '}') {
        ++pos;
        return true;
      }
      if (c != ',')
        return fail("expected ',' or '}', found " + describe(c));
      ++pos;
      skipSpace();
    }
  }

  bool parseHex4(unsigned &code) {
    code = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = peek();
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return fail("invalid \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  bool parseString(std::string &out) {
    ++pos; // The opening quote.
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character " + describe(c) + " in a string");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      ++pos;
      char e = peek();
      ++pos;
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned code;
        if (!parseHex4(code))
          return false;
        if (code >= 0xd800 && code < 0xdc00) {
          unsigned low;
          if (peek() != '\\' || pos + 1 >= text.size() || text[pos + 1] != 'u')
            return fail("unpaired surrogate in \\u escape");
          pos += 2;
          if (!parseHex4(low))
            return false;
          if (low < 0xdc00 || low >= 0xe000)
            return fail("unpaired surrogate in \\u escape");
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        } else if (code >= 0xdc00 && code < 0xe000) {
          return fail("unpaired surrogate in \\u escape");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        return fail("invalid escape '\\" + std::string(1, e) + "'");
      }
    }
  }

  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  bool parseNumber(Value &value) {
    size_t start = pos;
    if (peek() == '-')
      ++pos;
    if (peek() == '0') {
      ++pos;
    } else if (isDigit(peek())) {
      while (isDigit(peek()))
        ++pos;
    } else {
      return fail("invalid number");
    }
    if (peek() == '.') {
      ++pos;
      if (!isDigit(peek()))
        return fail("invalid number: expected a digit after '.'");
      while (isDigit(peek()))
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!isDigit(peek()))
        return fail("invalid number: expected an exponent");
      while (isDigit(peek()))
        ++pos;
    }
    value.kind = Value::Number;
    value.text = text.substr(start, pos - start);
    return true;
  }
};

} // namespace

bool fkrt::json::parse(const std::string &text, Value &result,
                       std::string &error, const Limits &limits,
                       unsigned firstLine) {
  if (text.size() > limits.maxBytes) {
    error = "JSON text of " + std::to_string(text.size()) +
            " bytes exceeds the limit of " + std::to_string(limits.maxBytes);
    return false;
  }
  result = Value();
  return Parser(text, limits, firstLine).run(result, error);
}

bool fkrt::json::toInt64(const std::string &lexeme, int64_t &result,
                         bool &overflow) {
  overflow = false;
  if (lexeme.find_first_of(".eE") != std::string::npos)
    return false;
  bool negative = !lexeme.empty() && lexeme[0] == '-';
  // Accumulate as a negative number: its range is one larger than the
  // positive one, so INT64_MIN parses without overflow.
  int64_t value = 0;
  for (size_t i = negative ? 1 : 0; i < lexeme.size(); ++i) {
    int digit = lexeme[i] - '0';
    if (value < (INT64_MIN + digit) / 10) {
      overflow = true;
      return true;
    }
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == INT64_MIN) {
      overflow = true;
      return true;
    }
    value = -value;
  }
  result = value;
  return true;
}

size_t fkrt::json::findInvalidUtf8(const std::string &s, size_t begin,
                                   size_t end) {
  size_t i = begin;
  while (i < end) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The number of continuation bytes, and the range of the first one.
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
      n = 1;
    else if (c == 0xe0)
      n = 2, lo = 0xa0;
    else if (c == 0xed)
      n = 2, hi = 0x9f;
    else if (c >= 0xe1 && c <= 0xef)
      n = 2;
    else if (c == 0xf0)
      n = 3, lo = 0x90;
    else if (c == 0xf4)
      n = 3, hi = 0x8f;
    else if (c >= 0xf1 && c <= 0xf3)
      n = 3;
    else
      return i;
    if (end - i - 1 < n)
      return i;
    unsigned char first = static_cast<unsigned char>(s[i + 1]);
    if (first < lo || first > hi)
      return i;
    for (size_t k = 2; k <= n; ++k) {
      unsigned char next = static_cast<unsigned char>(s[i + k]);
      if (next < 0x80 || next > 0xbf)
        return i;
    }
    i += n + 1;
  }
  return std::string::npos;
}
