//===- Sizes.cpp - Sizes stated in terms of a graph's symbols -------------===//

#include "Sizes.h"

#include <algorithm>

using namespace fkrt;

namespace {

bool multiply(int64_t x, int64_t y, int64_t &out) {
  return !__builtin_mul_overflow(x, y, &out);
}

bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || (c >= '0' && c <= '9');
}

} // namespace

bool Monomial::evaluate(const std::vector<int64_t> &sizes,
                        int64_t &value) const {
  value = coefficient;
  for (size_t s : symbols)
    if (!multiply(value, sizes[s], value))
      return false;
  return true;
}

bool fkrt::parseMonomial(const std::string &text,
                         const std::vector<std::string> &names, Monomial &out,
                         std::string &error) {
  out = Monomial();
  size_t i = 0;
  while (true) {
    if (i == text.size()) {
      error = "expected a factor at the end";
      return false;
    }
    if (text[i] >= '0' && text[i] <= '9') {
      int64_t factor = 0;
      size_t start = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        if (!multiply(factor, 10, factor) ||
            __builtin_add_overflow(factor, text[i++] - '0', &factor)) {
          error = "factor out of range";
          return false;
        }
      if (factor == 0 || text[start] == '0') {
        error = "a factor must be a positive integer without leading zeros";
        return false;
      }
      if (!multiply(out.coefficient, factor, out.coefficient)) {
        error = "coefficient out of range";
        return false;
      }
    } else if (isIdentifierStart(text[i])) {
      size_t start = i;
      while (i < text.size() && isIdentifierChar(text[i]))
        ++i;
      std::string name = text.substr(start, i - start);
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        error = "unknown symbol '" + name + "'";
        return false;
      }
      out.symbols.push_back(static_cast<size_t>(it - names.begin()));
    } else {
      error = std::string("unexpected character '") + text[i] + "'";
      return false;
    }
    if (i == text.size())
      break;
    if (text[i] != '*') {
      error = std::string("expected '*', found '") + text[i] + "'";
      return false;
    }
    ++i;
  }
  if (out.symbols.empty()) {
    error = "names no symbol (a static size is written as an integer)";
    return false;
  }
  std::sort(out.symbols.begin(), out.symbols.end());
  return true;
}

bool SizeExpr::isConstant() const {
  if (kind == Product)
    return product.isConstant();
  return std::all_of(operands.begin(), operands.end(),
                     [](const SizeExpr &e) { return e.isConstant(); });
}

bool SizeExpr::evaluate(const std::vector<int64_t> &sizes,
                        int64_t &value) const {
  if (kind == Product)
    return product.evaluate(sizes, value);
  std::vector<int64_t> values(operands.size());
  for (size_t i = 0; i < operands.size(); ++i)
    if (!operands[i].evaluate(sizes, values[i]))
      return false;
  switch (kind) {
  case CeilDiv: {
    // Sizes are non-negative; the reader allows no negative operand here.
    if (values[1] <= 0 || values[0] < 0)
      return false;
    value = values[0] / values[1] + (values[0] % values[1] != 0);
    return true;
  }
  case Mul:
    value = 1;
    for (int64_t v : values)
      if (!multiply(value, v, value))
        return false;
    return true;
  case Add:
    value = 0;
    for (int64_t v : values)
      if (__builtin_add_overflow(value, v, &value))
        return false;
    return true;
  case Min:
    value = *std::min_element(values.begin(), values.end());
    return true;
  case Max:
    value = *std::max_element(values.begin(), values.end());
    return true;
  case Product:
    break;
  }
  return false;
}
