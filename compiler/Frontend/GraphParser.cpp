//===- GraphParser.cpp - the grammar of .graph files ----------------------===//
//
// A recursive-descent parser over the token stream. Syntax lives here;
// meaning (types, broadcasting, ops) lives in GraphBuilder and GraphOps.
// After a syntax error the parser skips to the next statement, which starts
// on a later line, so one run reports every independent error of a file.
//
//===----------------------------------------------------------------------===//

#include "Frontend/GraphBuilder.h"
#include "Frontend/Importer.h"
#include "Frontend/Lexer.h"
#include "fk/IR/FkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>

using namespace mlir;
using namespace mlir::fk;
using namespace mlir::fk::frontend;

namespace {

/// A name bound in a graph: a parameter or a statement's result.
struct Binding {
  Expr value;
  llvm::SMLoc loc;
};

class GraphParser {
public:
  GraphParser(llvm::SourceMgr &sourceMgr, MLIRContext *context,
              ModuleOp module)
      : lexer(sourceMgr, context), builder(context), graphs(lexer, builder),
        module(module) {
    for (Token token = lexer.lexToken();; token = lexer.lexToken()) {
      tokens.push_back(token);
      if (token.is(Token::eof))
        break;
    }
  }

  /// file := graph {graph}
  void parseFile();

private:
  //===--------------------------------------------------------------------===//
  // Token stream
  //===--------------------------------------------------------------------===//

  const Token &current() const { return tokens[position]; }
  const Token &peek(unsigned ahead = 1) const {
    return tokens[std::min(position + ahead, tokens.size() - 1)];
  }
  void consume() {
    if (current().isNot(Token::eof))
      ++position;
  }
  bool consumeIf(Token::Kind kind) {
    if (current().isNot(kind))
      return false;
    consume();
    return true;
  }

  /// Reports "expected X" at the current token, unless the lexer already
  /// reported it as an error token.
  ParseResult emitExpected(const llvm::Twine &what) {
    if (current().isNot(Token::error)) {
      InFlightDiagnostic diag = lexer.emitError(
          current().getLoc(), "expected " + what + ", got ");
      if (current().is(Token::eof))
        diag << "end of file";
      else
        diag << "'" << current().getSpelling() << "'";
    }
    return failure();
  }
  ParseResult expect(Token::Kind kind, const llvm::Twine &context = "") {
    if (consumeIf(kind))
      return success();
    return emitExpected(Token::describe(kind) + context);
  }
  /// Expects the token `kind` that closes `opener`, opened at `openerLoc`;
  /// the error's note points at the opener.
  ParseResult expectClosing(Token::Kind kind, llvm::StringRef opener,
                            llvm::SMLoc openerLoc) {
    if (consumeIf(kind))
      return success();
    if (current().is(Token::error))
      return failure();
    InFlightDiagnostic diag = lexer.emitError(
        current().getLoc(), "expected " + Token::describe(kind) +
                                " to close " + opener + ", got ");
    if (current().is(Token::eof))
      diag << "end of file";
    else
      diag << "'" << current().getSpelling() << "'";
    diag.attachNote(lexer.getLocation(openerLoc))
        << opener << " opened here";
    return failure();
  }

  /// Skips to the first token of a later line that can start a statement,
  /// or to the end of the graph.
  void recoverToNextStatement(llvm::SMLoc errorLoc);
  /// Skips to the next `graph` keyword.
  void recoverToNextGraph();

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  ParseResult parseGraph();
  ParseResult parseParameters(SmallVectorImpl<Type> &types,
                              SmallVectorImpl<std::pair<llvm::StringRef, llvm::SMLoc>> &names);
  FailureOr<RankedTensorType> parseType();
  ParseResult parseStatement();
  ParseResult parseReturn(func::FuncOp function);

  FailureOr<Expr> parseExpr();
  /// Infix operators of precedence `level` and tighter.
  FailureOr<Expr> parseInfix(unsigned level);
  FailureOr<Expr> parseUnary();
  FailureOr<Expr> parsePrimary();
  FailureOr<Expr> parseCall();
  FailureOr<AttrValue> parseAttrValue();
  FailureOr<double> parseNumber(const Token &token);
  FailureOr<int64_t> parseInteger(const Token &token, bool negative);

  /// Binds `name` in the current graph; reports a redefinition.
  void bind(llvm::StringRef name, llvm::SMLoc loc, Expr value);

  /// Parentheses and unary minus recurse; a bound on their nesting keeps a
  /// hostile input from exhausting the stack.
  static constexpr unsigned kMaxNesting = 256;
  unsigned nesting = 0;

  Lexer lexer;
  OpBuilder builder;
  GraphBuilder graphs;
  ModuleOp module;
  std::vector<Token> tokens;
  size_t position = 0;

  /// Names of the graph being parsed.
  llvm::StringMap<Binding> scope;
  llvm::StringMap<llvm::SMLoc> graphNames;
};

} // namespace

//===----------------------------------------------------------------------===//
// Recovery
//===----------------------------------------------------------------------===//

void GraphParser::recoverToNextStatement(llvm::SMLoc errorLoc) {
  unsigned errorLine = lexer.getLineNumber(errorLoc);
  while (true) {
    const Token &token = current();
    if (token.is(Token::eof) || token.is(Token::kw_graph) ||
        token.is(Token::r_brace))
      return;
    bool startsStatement =
        token.is(Token::kw_return) ||
        (token.is(Token::identifier) &&
         (peek().is(Token::equal) || peek().is(Token::colon)));
    if (startsStatement && lexer.getLineNumber(token.getLoc()) > errorLine)
      return;
    consume();
  }
}

void GraphParser::recoverToNextGraph() {
  while (current().isNot(Token::eof) && current().isNot(Token::kw_graph))
    consume();
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

void GraphParser::parseFile() {
  if (current().is(Token::eof)) {
    lexer.emitError(current().getLoc(),
                    "file contains no graph; expected 'graph NAME(...) { ... }'");
    return;
  }
  while (current().isNot(Token::eof)) {
    if (current().isNot(Token::kw_graph)) {
      (void)emitExpected("'graph'");
      consume();
      recoverToNextGraph();
      continue;
    }
    if (failed(parseGraph()))
      recoverToNextGraph();
  }
}

/// graph := 'graph' NAME '(' [param {',' param}] ')' '{' {stmt}
///          'return' expr {',' expr} '}'
ParseResult GraphParser::parseGraph() {
  llvm::SMLoc graphLoc = current().getLoc();
  consume(); // 'graph'
  Token name = current();
  if (failed(expect(Token::identifier, " (the graph's name)")))
    return failure();
  if (auto [it, inserted] =
          graphNames.try_emplace(name.getSpelling(), name.getLoc());
      !inserted) {
    lexer.emitError(name.getLoc(), "graph '" + name.getSpelling() +
                                       "' is already defined")
            .attachNote(lexer.getLocation(it->second))
        << "previous definition is here";
  }

  SmallVector<Type> types;
  SmallVector<std::pair<llvm::StringRef, llvm::SMLoc>> names;
  if (failed(parseParameters(types, names)) ||
      failed(expect(Token::l_brace, " to open the graph body")))
    return failure();

  builder.setInsertionPointToEnd(module.getBody());
  auto function = func::FuncOp::create(builder, lexer.getLocation(graphLoc),
                                       name.getSpelling(),
                                       builder.getFunctionType(types, {}));
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  scope.clear();
  for (auto [index, param] : llvm::enumerate(names)) {
    function.setArgAttr(index, "fk.name",
                        builder.getStringAttr(param.first));
    body->getArgument(index).setLoc(
        NameLoc::get(builder.getStringAttr(param.first),
                     lexer.getLocation(param.second)));
    bind(param.first, param.second,
         Expr::ofTensor(body->getArgument(index), param.second));
  }

  while (current().isNot(Token::kw_return)) {
    if (current().is(Token::r_brace) || current().is(Token::eof) ||
        current().is(Token::kw_graph)) {
      (void)emitExpected("'return' before the end of graph '" +
                   name.getSpelling() + "'");
      consumeIf(Token::r_brace);
      return success();
    }
    llvm::SMLoc start = current().getLoc();
    if (failed(parseStatement()))
      recoverToNextStatement(start);
  }
  if (failed(parseReturn(function)))
    return failure();
  return expect(Token::r_brace, " to close the graph body");
}

/// params := '(' [NAME ':' type {',' NAME ':' type}] ')'
ParseResult GraphParser::parseParameters(
    SmallVectorImpl<Type> &types,
    SmallVectorImpl<std::pair<llvm::StringRef, llvm::SMLoc>> &names) {
  if (failed(expect(Token::l_paren, " after the graph's name")))
    return failure();
  if (consumeIf(Token::r_paren))
    return success();
  do {
    Token name = current();
    if (failed(expect(Token::identifier, " (a parameter name)")) ||
        failed(expect(Token::colon, " after parameter '" +
                                        name.getSpelling() + "'")))
      return failure();
    FailureOr<RankedTensorType> type = parseType();
    if (failed(type))
      return failure();
    types.push_back(*type);
    names.push_back({name.getSpelling(), name.getLoc()});
  } while (consumeIf(Token::comma));
  return expect(Token::r_paren, " to close the parameter list");
}

/// type := dtype '[' [INT {',' INT}] ']'
FailureOr<RankedTensorType> GraphParser::parseType() {
  Token dtypeToken = current();
  Type dtype = dtypeToken.is(Token::identifier)
                   ? parseDtype(builder.getContext(), dtypeToken.getSpelling())
                   : Type();
  if (!dtype) {
    (void)emitExpected("a dtype (f32, f16, bf16, i32, i64, i1)");
    return failure();
  }
  consume();
  if (failed(expect(Token::l_square, " after the dtype (f32[] is a scalar)")))
    return failure();
  SmallVector<int64_t> shape;
  if (current().isNot(Token::r_square)) {
    do {
      Token dim = current();
      if (dim.isNot(Token::integer)) {
        (void)emitExpected("a dimension size");
        return failure();
      }
      FailureOr<int64_t> size = parseInteger(dim, /*negative=*/false);
      if (failed(size))
        return failure();
      consume();
      shape.push_back(*size);
    } while (consumeIf(Token::comma));
  }
  if (failed(expect(Token::r_square, " to close the shape")))
    return failure();
  return graphs.makeType(dtypeToken.getLoc(), shape, dtype);
}

void GraphParser::bind(llvm::StringRef name, llvm::SMLoc loc, Expr value) {
  auto [it, inserted] = scope.try_emplace(name, Binding{value, loc});
  if (!inserted) {
    lexer.emitError(loc, "'" + name + "' is already defined")
            .attachNote(lexer.getLocation(it->second.loc))
        << "previous definition is here";
    return;
  }
  // Name the op after the statement, so later stages can refer to it.
  if (value.isTensor())
    if (Operation *op = value.tensor.getDefiningOp())
      if (!isa<NameLoc>(op->getLoc()))
        op->setLoc(NameLoc::get(builder.getStringAttr(name), op->getLoc()));
}

/// stmt := NAME [':' type] '=' expr
ParseResult GraphParser::parseStatement() {
  Token name = current();
  if (name.isNot(Token::identifier))
    return emitExpected("a statement ('name = expression') or 'return'");
  consume();
  // A statement that fails to parse still defines its name, as an invalid
  // value, so that later uses of it add no error of their own.
  auto fail = [&] {
    bind(name.getSpelling(), name.getLoc(), Expr::invalid(name.getLoc()));
    return failure();
  };
  std::optional<RankedTensorType> declared;
  llvm::SMLoc typeLoc = current().getLoc();
  if (consumeIf(Token::colon)) {
    typeLoc = current().getLoc();
    FailureOr<RankedTensorType> type = parseType();
    if (failed(type))
      return fail();
    declared = *type;
  }
  if (failed(expect(Token::equal, " after '" + name.getSpelling() + "'")))
    return fail();
  FailureOr<Expr> value = parseExpr();
  if (failed(value))
    return fail();
  // A written type is checked, never converted to.
  if (declared && value->isTensor() && value->getType() != *declared) {
    lexer.emitError(typeLoc, "'" + name.getSpelling() + "' is declared " +
                                 formatType(*declared) +
                                 " but its value is " +
                                 formatType(value->getType()));
    *value = Expr::invalid(value->loc);
  } else if (declared && value->isNumber()) {
    FailureOr<Value> constant =
        graphs.materializeNumber(*value, *declared, "=");
    *value = succeeded(constant) ? Expr::ofTensor(*constant, value->loc)
                                 : Expr::invalid(value->loc);
  }
  bind(name.getSpelling(), name.getLoc(), *value);
  return success();
}

/// return := 'return' expr {',' expr}
ParseResult GraphParser::parseReturn(func::FuncOp function) {
  llvm::SMLoc returnLoc = current().getLoc();
  consume();
  SmallVector<Value> results;
  SmallVector<llvm::StringRef> resultNames;
  bool valid = true;
  do {
    size_t firstPosition = position;
    FailureOr<Expr> value = parseExpr();
    if (failed(value))
      return failure();
    if (value->isNumber()) {
      lexer.emitError(value->loc, "cannot return a bare number: it has no "
                                  "dtype or shape (use full(...))");
      valid = false;
    }
    if (!value->isTensor()) {
      valid = false;
      continue;
    }
    results.push_back(value->tensor);
    // A returned name names the output, e.g. for the runtime's manifest.
    const Token &first = tokens[firstPosition];
    bool isName = position == firstPosition + 1 && first.is(Token::identifier);
    resultNames.push_back(isName ? first.getSpelling() : llvm::StringRef());
  } while (consumeIf(Token::comma));
  if (!valid)
    return success();
  func::ReturnOp::create(builder, lexer.getLocation(returnLoc), results);
  function.setType(builder.getFunctionType(function.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
  // Every output gets a name unique among the graph's inputs and outputs:
  // the returned name, or result<i> for an expression, with _1, _2, ...
  // appended when taken (`return x, y, y` names its outputs x_1, y, y_1).
  llvm::StringSet<> taken;
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    if (auto name = function.getArgAttrOfType<StringAttr>(i, "fk.name"))
      taken.insert(name.getValue());
  for (auto [index, resultName] : llvm::enumerate(resultNames)) {
    std::string base = resultName.empty() ? "result" + std::to_string(index)
                                          : resultName.str();
    std::string name = base;
    for (int suffix = 1; taken.contains(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    taken.insert(name);
    function.setResultAttr(index, "fk.name", builder.getStringAttr(name));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// The infix operators by precedence, loosest first; each level is
/// left-associative, and the level after the last is `unary`.
static constexpr Token::Kind kInfixLevels[][2] = {
    {Token::plus, Token::minus}, // expr := term {('+' | '-') term}
    {Token::star, Token::slash}, // term := product {('*' | '/') product}
    {Token::at, Token::at},      // product := unary {'@' unary}
};

FailureOr<Expr> GraphParser::parseExpr() { return parseInfix(0); }

FailureOr<Expr> GraphParser::parseInfix(unsigned level) {
  if (level == std::size(kInfixLevels))
    return parseUnary();
  auto isOperator = [&] {
    return current().is(kInfixLevels[level][0]) ||
           current().is(kInfixLevels[level][1]);
  };
  FailureOr<Expr> lhs = parseInfix(level + 1);
  while (succeeded(lhs) && isOperator()) {
    Token op = current();
    consume();
    FailureOr<Expr> rhs = parseInfix(level + 1);
    if (failed(rhs))
      return failure();
    lhs = graphs.binary(op.getKind(), op.getLoc(), *lhs, *rhs);
  }
  return lhs;
}

/// unary := '-' unary | primary
FailureOr<Expr> GraphParser::parseUnary() {
  if (nesting >= kMaxNesting) {
    lexer.emitError(current().getLoc(),
                    "expression nested too deeply (more than " +
                        llvm::Twine(kMaxNesting) + " levels)");
    return failure();
  }
  ++nesting;
  llvm::scope_exit leave([&] { --nesting; });
  if (current().isNot(Token::minus))
    return parsePrimary();
  llvm::SMLoc loc = current().getLoc();
  consume();
  FailureOr<Expr> operand = parseUnary();
  if (failed(operand))
    return failure();
  return graphs.negate(loc, *operand);
}

/// primary := NUMBER | 'inf' | NAME | call | '(' expr ')'
FailureOr<Expr> GraphParser::parsePrimary() {
  Token token = current();
  switch (token.getKind()) {
  case Token::integer:
  case Token::floating:
  case Token::kw_inf: {
    FailureOr<double> value = parseNumber(token);
    consume();
    if (failed(value))
      return Expr::invalid(token.getLoc());
    return Expr::ofNumber(*value, token.getLoc());
  }
  case Token::l_paren: {
    consume();
    FailureOr<Expr> inner = parseExpr();
    if (failed(inner) ||
        failed(expectClosing(Token::r_paren, "'('", token.getLoc())))
      return failure();
    return inner;
  }
  case Token::identifier: {
    if (peek().is(Token::l_paren))
      return parseCall();
    // `name =` starts the next statement: the expression before is cut off.
    if (peek().is(Token::equal))
      return emitExpected("an expression");
    consume();
    auto it = scope.find(token.getSpelling());
    if (it != scope.end())
      return Expr{it->second.value.kind, it->second.value.tensor,
                  it->second.value.number, token.getLoc()};
    InFlightDiagnostic diag = lexer.emitError(
        token.getLoc(), "use of undefined name '" + token.getSpelling() + "'");
    // Suggest the closest defined name, for typos.
    SmallVector<llvm::StringRef> names;
    for (const auto &entry : scope)
      names.push_back(entry.getKey());
    if (std::optional<llvm::StringRef> near =
            nearestName(token.getSpelling(), names))
      diag << "; did you mean '" << *near << "'?";
    return Expr::invalid(token.getLoc());
  }
  default:
    (void)emitExpected("an expression");
    return failure();
  }
}

/// call := OP '(' [arg {',' arg}] ')' ;  arg := expr | NAME '=' attr
FailureOr<Expr> GraphParser::parseCall() {
  CallSite call;
  call.opName = current().getSpelling();
  call.loc = current().getLoc();
  consume();
  llvm::SMLoc openerLoc = current().getLoc();
  consume(); // '('
  if (!consumeIf(Token::r_paren)) {
    do {
      if (current().is(Token::identifier) && peek().is(Token::equal)) {
        NamedAttr attr;
        attr.name = current().getSpelling();
        attr.nameLoc = current().getLoc();
        consume();
        consume(); // '='
        FailureOr<AttrValue> value = parseAttrValue();
        if (failed(value))
          return failure();
        attr.value = *value;
        bool duplicate = false;
        for (const NamedAttr &previous : call.attrs)
          if (previous.name == attr.name) {
            lexer.emitError(attr.nameLoc, "attribute '" + attr.name +
                                              "' is given twice")
                    .attachNote(lexer.getLocation(previous.nameLoc))
                << "first given here";
            duplicate = true;
          }
        if (!duplicate)
          call.attrs.push_back(attr);
        continue;
      }
      llvm::SMLoc operandLoc = current().getLoc();
      FailureOr<Expr> operand = parseExpr();
      if (failed(operand))
        return failure();
      if (!call.attrs.empty()) {
        lexer.emitError(operandLoc, "operands of '" + call.opName +
                                        "' must come before its attributes");
        operand = Expr::invalid(operandLoc);
      }
      call.operands.push_back(*operand);
    } while (consumeIf(Token::comma));
    if (failed(expectClosing(Token::r_paren,
                             ("the call of '" + call.opName + "'").str(),
                             openerLoc)))
      return failure();
  }
  return graphs.call(call);
}

/// attr := ['-'] NUMBER | 'true' | 'false' | dtype | STRING
///       | '[' [['-'] INT {',' ['-'] INT}] ']'
FailureOr<AttrValue> GraphParser::parseAttrValue() {
  AttrValue value;
  value.loc = current().getLoc();
  bool negative = consumeIf(Token::minus);
  const Token &token = current();
  switch (token.getKind()) {
  case Token::integer: {
    FailureOr<int64_t> integer = parseInteger(token, negative);
    if (failed(integer))
      return failure();
    value.kind = AttrValue::Kind::Integer;
    value.integer = *integer;
    value.floating = static_cast<double>(*integer);
    consume();
    return value;
  }
  case Token::floating:
  case Token::kw_inf: {
    FailureOr<double> number = parseNumber(token);
    if (failed(number))
      return failure();
    value.kind = AttrValue::Kind::Float;
    value.floating = negative ? -*number : *number;
    consume();
    return value;
  }
  default:
    break;
  }
  if (negative)
    return emitExpected("a number after '-'");
  if (token.is(Token::kw_true) || token.is(Token::kw_false)) {
    value.kind = AttrValue::Kind::Bool;
    value.boolean = token.is(Token::kw_true);
    consume();
    return value;
  }
  if (token.is(Token::string)) {
    value.kind = AttrValue::Kind::String;
    value.string = token.getStringValue().str();
    consume();
    return value;
  }
  if (token.is(Token::identifier)) {
    value.dtype = parseDtype(builder.getContext(), token.getSpelling());
    if (!value.dtype)
      return emitExpected("an attribute value (a number, true, false, a "
                          "dtype, a string or a list)");
    value.kind = AttrValue::Kind::Dtype;
    consume();
    return value;
  }
  if (token.is(Token::l_square)) {
    consume();
    value.kind = AttrValue::Kind::IntList;
    if (consumeIf(Token::r_square))
      return value;
    do {
      bool negativeEntry = consumeIf(Token::minus);
      if (current().isNot(Token::integer))
        return emitExpected("an integer in the list");
      FailureOr<int64_t> entry = parseInteger(current(), negativeEntry);
      if (failed(entry))
        return failure();
      value.ints.push_back(*entry);
      consume();
    } while (consumeIf(Token::comma));
    if (failed(expect(Token::r_square, " to close the list")))
      return failure();
    return value;
  }
  return emitExpected("an attribute value (a number, true, false, a dtype, "
                      "a string or a list)");
}

FailureOr<double> GraphParser::parseNumber(const Token &token) {
  if (token.is(Token::kw_inf))
    return std::numeric_limits<double>::infinity();
  std::string text = token.getSpelling().str();
  errno = 0;
  double value = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(value)) {
    lexer.emitError(token.getLoc(), "number '" + token.getSpelling() +
                                        "' is too large for a double");
    return failure();
  }
  return value;
}

FailureOr<int64_t> GraphParser::parseInteger(const Token &token,
                                             bool negative) {
  // -2^63 fits, though 2^63 does not.
  uint64_t magnitude;
  uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (token.getSpelling().getAsInteger(10, magnitude) || magnitude > limit) {
    lexer.emitError(token.getLoc(), "integer '" + token.getSpelling() +
                                        "' does not fit in 64 bits");
    return failure();
  }
  return negative ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::fk::importGraphFile(llvm::SourceMgr &sourceMgr,
                                                MLIRContext *context) {
  context->loadDialect<FkDialect, func::FuncDialect>();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  OwningOpRef<ModuleOp> module = ModuleOp::create(FileLineColLoc::get(
      context, buffer->getBufferIdentifier(), /*line=*/1, /*column=*/1));

  // Any error, however recovered from, fails the import.
  bool hadError = false;
  ScopedDiagnosticHandler watch(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      hadError = true;
    return failure(); // let the caller's handler print it
  });
  GraphParser(sourceMgr, context, *module).parseFile();
  if (hadError || failed(verify(*module)))
    return nullptr;
  return module;
}

void mlir::fk::registerImporterDialects(DialectRegistry &registry) {
  registry.insert<FkDialect, func::FuncDialect>();
}
