//===- PtxEntries.cpp - The kernels a PTX file defines --------------------===//

#include "PtxEntries.h"

#include <cstdio>
#include <map>

using namespace fkrt::ptx;

namespace {

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
/// The characters after the first of an identifier or a directive.
bool isFollow(char c) { return isLetter(c) || isDigit(c) || c == '_' || c == '$'; }

struct Token {
  enum Kind { End, Directive, Identifier, Number, String, Punct };
  Kind kind = End;
  /// The token as written; a directive keeps its dot. Empty for End and
  /// String.
  std::string text;
  unsigned line = 0;

  bool is(Kind k, const char *t) const { return kind == k && text == t; }
  bool punct(char c) const {
    return kind == Punct && text.size() == 1 && text[0] == c;
  }
};

/// Describes a token for a message: "'.param'", "the end of the file".
std::string describe(const Token &t) {
  switch (t.kind) {
  case Token::End:
    return "the end of the file";
  case Token::String:
    return "a string";
  case Token::Punct: {
    unsigned char c = static_cast<unsigned char>(t.text[0]);
    if (c >= 0x21 && c < 0x7f)
      return "'" + t.text + "'";
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", c);
    return buffer;
  }
  default:
    if (t.text.size() > 40)
      return "'" + t.text.substr(0, 40) + "...'";
    return "'" + t.text + "'";
  }
}

/// Splits PTX text into tokens, skipping whitespace, `//` and `/* */`
/// comments. Strings are single tokens (their contents are not kept).
class Lexer {
public:
  explicit Lexer(const std::string &text) : s(text) {}

  std::string error;

  /// The next token in `t`; false with `error` set on an unclosed comment
  /// or string.
  bool next(Token &t) {
    if (!skipSpaceAndComments())
      return false;
    t = Token();
    t.line = line;
    if (pos >= s.size())
      return true;
    char c = s[pos];
    size_t start = pos;
    if (c == '"') {
      ++pos;
      while (pos < s.size() && s[pos] != '"' && s[pos] != '\n') {
        if (s[pos] == '\\' && pos + 1 < s.size() && s[pos + 1] != '\n')
          ++pos;
        ++pos;
      }
      if (pos >= s.size() || s[pos] != '"')
        return fail(t.line, "unterminated string");
      ++pos;
      t.kind = Token::String;
      return true;
    }
    if (c == '.' && pos + 1 < s.size() && isFollow(s[pos + 1])) {
      ++pos;
      while (pos < s.size() && isFollow(s[pos]))
        ++pos;
      t.kind = Token::Directive;
    } else if (isLetter(c) || c == '_' || c == '$' || c == '%') {
      ++pos;
      while (pos < s.size() && isFollow(s[pos]))
        ++pos;
      t.kind = Token::Identifier;
    } else if (isDigit(c)) {
      while (pos < s.size() && (isFollow(s[pos]) || s[pos] == '.'))
        ++pos;
      t.kind = Token::Number;
    } else {
      ++pos;
      t.kind = Token::Punct;
    }
    t.text = s.substr(start, pos - start);
    return true;
  }

private:
  const std::string &s;
  size_t pos = 0;
  unsigned line = 1;

  bool fail(unsigned at, const std::string &message) {
    error = "ptx: line " + std::to_string(at) + ": " + message;
    return false;
  }

  bool skipSpaceAndComments() {
    while (pos < s.size()) {
      char c = s[pos];
      if (c == '\n') {
        ++line;
        ++pos;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
                 c == '\v') {
        ++pos;
      } else if (c == '/' && pos + 1 < s.size() && s[pos + 1] == '/') {
        size_t end = s.find('\n', pos);
        pos = end == std::string::npos ? s.size() : end;
      } else if (c == '/' && pos + 1 < s.size() && s[pos + 1] == '*') {
        unsigned startLine = line;
        size_t end = s.find("*/", pos + 2);
        if (end == std::string::npos)
          return fail(startLine, "unterminated '/*' comment");
        for (size_t i = pos; i < end; ++i)
          line += s[i] == '\n';
        pos = end + 2;
      } else {
        return true;
      }
    }
    return true;
  }
};

/// Reads a PTX integer literal: decimal, hexadecimal (0x), binary (0b) or
/// octal (leading 0), with an optional U suffix.
bool parseInteger(std::string text, uint64_t &value) {
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u'))
    text.pop_back();
  unsigned base = 10;
  size_t i = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    base = 16, i = 2;
  else if (text.size() > 2 && text[0] == '0' &&
           (text[1] == 'b' || text[1] == 'B'))
    base = 2, i = 2;
  else if (text.size() > 1 && text[0] == '0')
    base = 8, i = 1;
  if (i >= text.size())
    return false;
  value = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    unsigned digit;
    if (isDigit(c))
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return false;
    if (digit >= base || value > (UINT64_MAX - digit) / base)
      return false;
    value = value * base + digit;
  }
  return true;
}

/// The fundamental types a parameter may have: bits of one element, and
/// whether it is an integer (.bN, .uN, .sN).
struct TypeInfo {
  const char *name;
  unsigned bits;
  bool integer;
};
const TypeInfo kTypes[] = {
    {"b8", 8, true},       {"b16", 16, true},    {"b32", 32, true},
    {"b64", 64, true},     {"b128", 128, true},  {"u8", 8, true},
    {"u16", 16, true},     {"u32", 32, true},    {"u64", 64, true},
    {"s8", 8, true},       {"s16", 16, true},    {"s32", 32, true},
    {"s64", 64, true},     {"f16", 16, false},   {"f16x2", 32, false},
    {"bf16", 16, false},   {"bf16x2", 32, false}, {"f32", 32, false},
    {"f64", 64, false},    {"pred", 1, false}};

/// Fills in what the type's spelling says; other types (.texref, ...)
/// keep 0 bits.
void classify(Param &p) {
  for (const TypeInfo &t : kTypes)
    if (p.type == t.name) {
      p.bits = t.bits;
      p.integer = t.integer;
      return;
    }
}

/// Parses the top level of a PTX file: braces, and the headers of entries.
class Scanner {
public:
  Scanner(const std::string &text, std::vector<Entry> &entries)
      : lexer(text), entries(entries) {}

  std::string error;

  bool run() {
    unsigned depth = 0, openLine = 0;
    Token t;
    while (true) {
      if (!advance(t))
        return false;
      if (t.kind == Token::End)
        break;
      if (t.punct('{')) {
        if (depth++ == 0)
          openLine = t.line;
      } else if (t.punct('}')) {
        if (depth == 0)
          return fail(t.line, "'}' without a matching '{'");
        --depth;
      } else if (depth == 0 && t.is(Token::Directive, ".entry")) {
        bool body = false;
        if (!parseEntry(t.line, body))
          return false;
        if (body) {
          depth = 1;
          openLine = current.line;
        }
      }
    }
    if (depth != 0)
      return fail(openLine, "'{' not closed by the end of the file");
    return true;
  }

private:
  Lexer lexer;
  std::vector<Entry> &entries;
  /// The line each defined entry's `.entry` is on, by name.
  std::map<std::string, unsigned> defined;
  /// The last token read.
  Token current;

  bool fail(unsigned line, const std::string &message) {
    error = "ptx: line " + std::to_string(line) + ": " + message;
    return false;
  }

  bool advance(Token &t) {
    if (!lexer.next(t)) {
      error = lexer.error;
      return false;
    }
    current = t;
    return true;
  }

  bool parseNumber(const Token &t, const std::string &what, uint64_t &value) {
    if (t.kind != Token::Number || !parseInteger(t.text, value))
      return fail(t.line, "expected " + what + ", found " + describe(t));
    return true;
  }

  /// After `.entry`: the name, the parameter list, the performance
  /// directives, then `{` (sets `body`) or `;`.
  bool parseEntry(unsigned line, bool &body) {
    Entry entry;
    entry.line = line;
    Token t;
    if (!advance(t))
      return false;
    if (t.kind != Token::Identifier || !isIdentifier(t.text))
      return fail(t.line, "expected a kernel name after .entry, found " +
                              describe(t));
    entry.name = t.text;
    const std::string where = " of .entry " + entry.name;
    if (!advance(t))
      return false;
    if (t.punct('(')) {
      if (!parseParams(entry, where))
        return false;
      if (!advance(t))
        return false;
    }
    // Performance directives (.maxntid 128, 1, 1 / .minnctapersm 2 / ...)
    // and entry-scoped `.pragma "...";` come before the body.
    while (!t.punct('{') && !t.punct(';')) {
      if (t.is(Token::Directive, ".pragma")) {
        do {
          if (!advance(t))
            return false;
          if (t.kind == Token::End)
            return fail(line, ".entry " + entry.name + " has no body");
        } while (!t.punct(';'));
      } else if (t.kind == Token::End) {
        return fail(line, ".entry " + entry.name + " has no body");
      } else if (t.kind != Token::Directive && t.kind != Token::Number &&
                 !t.punct(',')) {
        return fail(t.line, "expected the body" + where + " ('{'), found " +
                                describe(t));
      }
      if (!advance(t))
        return false;
    }
    body = t.punct('{');
    entry.defined = body;
    if (body) {
      auto inserted = defined.emplace(entry.name, line);
      if (!inserted.second)
        return fail(line, ".entry " + entry.name +
                              " is defined twice (first at line " +
                              std::to_string(inserted.first->second) + ")");
    }
    entries.push_back(std::move(entry));
    return true;
  }

  /// After `(`: parameters separated by commas, then `)`.
  bool parseParams(Entry &entry, const std::string &where) {
    Token t;
    if (!advance(t))
      return false;
    if (t.punct(')'))
      return true;
    while (true) {
      std::string index = "parameter " + std::to_string(entry.params.size());
      if (!t.is(Token::Directive, ".param"))
        return fail(t.line, "expected .param in the parameter list" + where +
                                ", found " + describe(t));
      Param p;
      if (!advance(t))
        return false;
      if (t.is(Token::Directive, ".align")) {
        if (!advance(t) || !parseNumber(t, "an alignment", p.align) ||
            !advance(t))
          return false;
      }
      if (t.kind != Token::Directive || t.text == ".ptr" ||
          t.text == ".align" || t.text == ".param")
        return fail(t.line, "expected the type of " + index + where +
                                ", found " + describe(t));
      p.type = t.text.substr(1);
      classify(p);
      if (!advance(t))
        return false;
      if (t.is(Token::Directive, ".ptr")) {
        p.pointer = true;
        if (!advance(t))
          return false;
        while (t.kind == Token::Directive) {
          if (t.text == ".align") {
            if (!advance(t) ||
                !parseNumber(t, "an alignment", p.pointeeAlign) || !advance(t))
              return false;
          } else if (t.text == ".global" || t.text == ".const" ||
                     t.text == ".shared" || t.text == ".local") {
            p.space = t.text.substr(1);
            if (!advance(t))
              return false;
          } else {
            return fail(t.line, "unexpected " + describe(t) + " in " + index +
                                    where);
          }
        }
      }
      if (t.kind != Token::Identifier || !isIdentifier(t.text))
        return fail(t.line, "expected the name of " + index + where +
                                ", found " + describe(t));
      p.name = t.text;
      if (!advance(t))
        return false;
      if (t.punct('[')) {
        p.array = true;
        if (!advance(t) || !parseNumber(t, "an array size", p.count) ||
            !advance(t))
          return false;
        if (!t.punct(']'))
          return fail(t.line, "expected ']' after the size of " + index +
                                  where + ", found " + describe(t));
        if (!advance(t))
          return false;
      }
      entry.params.push_back(std::move(p));
      if (t.punct(')'))
        return true;
      if (!t.punct(','))
        return fail(t.line, "expected ',' or ')' after " + index + where +
                                ", found " + describe(t));
      if (!advance(t))
        return false;
    }
  }
};

} // namespace

std::string Param::text() const {
  std::string s = ".param";
  if (align)
    s += " .align " + std::to_string(align);
  s += " ." + type;
  if (pointer) {
    s += " .ptr";
    if (!space.empty())
      s += " ." + space;
    if (pointeeAlign)
      s += " .align " + std::to_string(pointeeAlign);
  }
  s += " " + name;
  if (array)
    s += "[" + std::to_string(count) + "]";
  return s;
}

bool fkrt::ptx::isIdentifier(const std::string &name) {
  if (name.empty())
    return false;
  char first = name[0];
  if (!isLetter(first) &&
      !((first == '_' || first == '$' || first == '%') && name.size() > 1))
    return false;
  for (size_t i = 1; i < name.size(); ++i)
    if (!isFollow(name[i]))
      return false;
  return true;
}

bool fkrt::ptx::scanEntries(const std::string &text,
                            std::vector<Entry> &entries, std::string &error) {
  Scanner scanner(text, entries);
  if (scanner.run())
    return true;
  error = scanner.error;
  return false;
}
