//===- GraphParser.cpp - the grammar of .graph files ----------------------===//
//
// A recursive-descent parser over the token stream. Syntax lives here;
// meaning (types, broadcasting, ops) lives in GraphBuilder and GraphOps.
// After a syntax error the parser skips to the next statement, which starts
// on a later line, so one run reports every independent error of a file.
//
//===----------------------------------------------------------------------===//

#include "Frontend/GraphBuilder.h"
#include "Frontend/GraphCalls.h"
#include "Frontend/GraphOps.h"
#include "Frontend/Importer.h"
#include "Frontend/Lexer.h"
#include "fk/IR/FkDialect.h"
#include "fk/IR/FkInout.h"

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
  /// Whether the tokens at `index` start a statement: a name, or several
  /// separated by commas, followed by `=` or `:`.
  bool startsStatement(size_t index) const;

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  /// A parameter's name, where it is written, and whether it is `inout`.
  struct Parameter {
    llvm::StringRef name;
    llvm::SMLoc loc;
    bool inout = false;
  };
  /// Finds the graphs of the file, their names and the calls between them
  /// (graph F2, graph call F1).
  void scanGraphs();
  /// Parses the graph `index` of the file; it becomes callable if it has no
  /// error.
  void parseGraphAt(unsigned index);
  ParseResult parseGraph(unsigned index);
  ParseResult parseParameters(SmallVectorImpl<Type> &types,
                              SmallVectorImpl<Parameter> &names);
  FailureOr<RankedTensorType> parseType();
  /// dim := INT | factor {'*' factor} ;  factor := NAME | INT
  FailureOr<Dim> parseDim();
  /// where := 'where' NAME '<=' INT {',' NAME '<=' INT}
  ParseResult parseBounds(func::FuncOp function);
  ParseResult parseStatement();
  /// A name a statement binds, with its written type if any.
  struct Target {
    Token name;
    llvm::SMLoc typeLoc;
    std::optional<RankedTensorType> declared;
  };
  /// stmt := target {',' target} '=' expr with several targets, the first
  /// parsed: the results of one call of a graph.
  ParseResult parseMultipleResultStatement(Target first);
  /// A statement's value, checked against its written type if it has one.
  Expr checkDeclaredType(const Token &name, llvm::SMLoc typeLoc,
                         std::optional<RankedTensorType> declared, Expr value);
  ParseResult parseReturn(func::FuncOp function,
                          ArrayRef<Parameter> parameters);

  FailureOr<Expr> parseExpr();
  /// Infix operators of precedence `level` and tighter.
  FailureOr<Expr> parseInfix(unsigned level);
  FailureOr<Expr> parseUnary();
  FailureOr<Expr> parsePrimary();
  FailureOr<Expr> parseCall();
  /// The operands and attributes of a call, up to its closing parenthesis.
  FailureOr<CallSite> parseCallSite();
  /// The graph a call of `name` calls, if `name` names one.
  std::optional<unsigned> lookupGraph(llvm::StringRef name) const;
  FailureOr<AttrValue> parseAttrValue();
  /// The value bound to the name `token`, or an error (with a suggestion)
  /// and an invalid expression.
  Expr lookupName(const Token &token);
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
  /// The dimension symbols of the graph being parsed, where each is first
  /// used; parameter types introduce them, other types use them.
  llvm::StringMap<llvm::SMLoc> symbols;
  bool parsingParameters = false;

  /// The graphs of the file in source order: where each starts (its
  /// `graph` token), its name and calls, its function once parsed, and
  /// whether calls may use it (parsed without error).
  SmallVector<size_t> graphStarts;
  SmallVector<GraphNode> graphNodes;
  SmallVector<func::FuncOp> graphFunctions;
  SmallVector<bool> graphCallable;
  /// The graph each name calls (the first of that name).
  llvm::StringMap<unsigned> graphIndex;
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
    bool startsHere =
        token.is(Token::kw_return) || startsStatement(position);
    if (startsHere && lexer.getLineNumber(token.getLoc()) > errorLine)
      return;
    consume();
  }
}

void GraphParser::recoverToNextGraph() {
  while (current().isNot(Token::eof) && current().isNot(Token::kw_graph))
    consume();
}

bool GraphParser::startsStatement(size_t index) const {
  auto at = [&](size_t i) -> const Token & {
    return tokens[std::min(i, tokens.size() - 1)];
  };
  while (at(index).is(Token::identifier) && at(index + 1).is(Token::comma))
    index += 2;
  return at(index).is(Token::identifier) &&
         (at(index + 1).is(Token::equal) || at(index + 1).is(Token::colon));
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
  if (current().isNot(Token::kw_graph)) {
    (void)emitExpected("'graph'");
    consume();
    recoverToNextGraph();
  }
  scanGraphs();
  // Callees first, so that every call sees the signature of its callee.
  for (unsigned index : orderCalleesFirst(graphs, graphNodes))
    parseGraphAt(index);
  // The module lists the graphs in source order, whatever order they were
  // built in.
  for (func::FuncOp function : graphFunctions)
    if (function) {
      function->remove();
      module.getBody()->push_back(function);
    }
}

void GraphParser::scanGraphs() {
  for (size_t i = position; i < tokens.size(); ++i)
    if (tokens[i].is(Token::kw_graph))
      graphStarts.push_back(i);
  graphNodes.resize(graphStarts.size());
  graphFunctions.resize(graphStarts.size());
  graphCallable.resize(graphStarts.size(), false);
  for (auto [index, start] : llvm::enumerate(graphStarts)) {
    const Token &name = tokens[std::min(start + 1, tokens.size() - 1)];
    if (name.isNot(Token::identifier))
      continue; // parseGraph reports it
    graphNodes[index].name = name.getSpelling();
    // graph call F1: a call of this name would call the operation.
    if (lookupOpSpec(name.getSpelling())) {
      lexer.emitError(name.getLoc(),
                      "graph '" + name.getSpelling() +
                          "' has the name of an operation; calls of it "
                          "would call the operation, so choose another name");
      continue;
    }
    // graph F2
    auto [it, inserted] = graphIndex.try_emplace(name.getSpelling(), index);
    if (!inserted)
      lexer.emitError(name.getLoc(), "graph '" + name.getSpelling() +
                                         "' is already defined")
              .attachNote(lexer.getLocation(
                  tokens[graphStarts[it->second] + 1].getLoc()))
          << "previous definition is here";
  }
  SmallVector<llvm::StringRef> names;
  for (const auto &entry : graphIndex)
    names.push_back(entry.getKey());
  llvm::sort(names);
  graphs.setGraphNames(names);
  // Every name followed by '(' in a body is a call; those naming a graph
  // are the edges of the call graph.
  for (auto [index, start] : llvm::enumerate(graphStarts)) {
    size_t end = index + 1 < graphStarts.size() ? graphStarts[index + 1]
                                                : tokens.size() - 1;
    for (size_t i = start + 2; i + 1 < end; ++i)
      if (tokens[i].is(Token::identifier) && tokens[i + 1].is(Token::l_paren))
        if (std::optional<unsigned> callee =
                lookupGraph(tokens[i].getSpelling()))
          graphNodes[index].calls.push_back({*callee, tokens[i].getLoc()});
  }
}

std::optional<unsigned> GraphParser::lookupGraph(llvm::StringRef name) const {
  auto it = graphIndex.find(name);
  if (it == graphIndex.end())
    return std::nullopt;
  return it->second;
}

void GraphParser::parseGraphAt(unsigned index) {
  position = graphStarts[index];
  bool hadError = false;
  ParseResult parsed = failure();
  {
    ScopedDiagnosticHandler watch(builder.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        hadError = true;
      return failure(); // let the other handlers see it
    });
    parsed = parseGraph(index);
    // What follows a graph is the next graph or the end of the file.
    if (succeeded(parsed) && current().isNot(Token::eof) &&
        current().isNot(Token::kw_graph))
      (void)emitExpected("'graph'");
  }
  graphCallable[index] =
      succeeded(parsed) && !hadError && graphFunctions[index] &&
      graphFunctions[index].getNumResults() != 0;
}

/// graph := 'graph' NAME '(' [param {',' param}] ')' '{' {stmt}
///          'return' expr {',' expr} '}'
ParseResult GraphParser::parseGraph(unsigned index) {
  llvm::SMLoc graphLoc = current().getLoc();
  consume(); // 'graph'
  Token name = current();
  if (failed(expect(Token::identifier, " (the graph's name)")))
    return failure();

  SmallVector<Type> types;
  SmallVector<Parameter> names;
  symbols.clear();
  scope.clear();
  if (failed(parseParameters(types, names)))
    return failure();

  builder.setInsertionPointToEnd(module.getBody());
  auto function = func::FuncOp::create(builder, lexer.getLocation(graphLoc),
                                       name.getSpelling(),
                                       builder.getFunctionType(types, {}));
  graphFunctions[index] = function;
  if (current().is(Token::identifier) && current().getSpelling() == "where" &&
      failed(parseBounds(function)))
    return failure();
  if (failed(expect(Token::l_brace, " to open the graph body")))
    return failure();
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  for (auto [index, param] : llvm::enumerate(names)) {
    function.setArgAttr(index, "fk.name", builder.getStringAttr(param.name));
    if (param.inout)
      function.setArgAttr(index, kInoutAttrName, builder.getUnitAttr());
    body->getArgument(index).setLoc(
        NameLoc::get(builder.getStringAttr(param.name),
                     lexer.getLocation(param.loc)));
    bind(param.name, param.loc,
         Expr::ofTensor(body->getArgument(index), param.loc));
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
  if (failed(parseReturn(function, names)))
    return failure();
  return expect(Token::r_brace, " to close the graph body");
}

/// params := '(' [param {',' param}] ')'
/// param := NAME ':' ['inout'] type
ParseResult GraphParser::parseParameters(SmallVectorImpl<Type> &types,
                                         SmallVectorImpl<Parameter> &names) {
  if (failed(expect(Token::l_paren, " after the graph's name")))
    return failure();
  if (consumeIf(Token::r_paren))
    return success();
  parsingParameters = true;
  auto done = llvm::make_scope_exit([&] { parsingParameters = false; });
  do {
    Token name = current();
    if (failed(expect(Token::identifier, " (a parameter name)")) ||
        failed(expect(Token::colon, " after parameter '" +
                                        name.getSpelling() + "'")))
      return failure();
    // `inout` is a keyword only here, before a type: no dtype has its name.
    bool inout = current().is(Token::identifier) &&
                 current().getSpelling() == "inout" &&
                 peek().is(Token::identifier);
    if (inout)
      consume();
    FailureOr<RankedTensorType> type = parseType();
    if (failed(type))
      return failure();
    types.push_back(*type);
    names.push_back({name.getSpelling(), name.getLoc(), inout});
  } while (consumeIf(Token::comma));
  return expect(Token::r_paren, " to close the parameter list");
}

/// type := dtype '[' [dim {',' dim}] ']'
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
  SmallVector<Dim> shape;
  if (current().isNot(Token::r_square)) {
    do {
      FailureOr<Dim> dim = parseDim();
      if (failed(dim))
        return failure();
      shape.push_back(*dim);
    } while (consumeIf(Token::comma));
  }
  if (failed(expect(Token::r_square, " to close the shape")))
    return failure();
  return graphs.makeType(dtypeToken.getLoc(), shape, dtype);
}

FailureOr<Dim> GraphParser::parseDim() {
  std::optional<Dim> dim = Dim(1);
  do {
    Token factor = current();
    if (factor.is(Token::integer)) {
      FailureOr<int64_t> size = parseInteger(factor, /*negative=*/false);
      if (failed(size))
        return failure();
      dim = dim->times(Dim(*size));
    } else if (factor.is(Token::identifier)) {
      llvm::StringRef symbol = factor.getSpelling();
      if (!symbols.count(symbol)) {
        // symbolic F1: a parameter's type introduces a symbol; other types
        // use the graph's symbols.
        if (!parsingParameters) {
          InFlightDiagnostic diag = lexer.emitError(
              factor.getLoc(), "unknown dimension symbol '" + symbol +
                                   "'; a graph's parameter types introduce "
                                   "its symbols");
          SmallVector<llvm::StringRef> names;
          for (const auto &entry : symbols)
            names.push_back(entry.getKey());
          llvm::sort(names);
          if (std::optional<llvm::StringRef> near = nearestName(symbol, names))
            diag << "; did you mean '" << *near << "'?";
          return failure();
        }
        // A parameter of the symbol's name is reported when it is bound
        // (symbolic F2).
        symbols[symbol] = factor.getLoc();
      }
      dim = dim->times(Dim::symbol(symbol));
    } else {
      (void)emitExpected("a dimension (a size, a symbol or a product)");
      return failure();
    }
    consume();
    if (!dim) {
      lexer.emitError(factor.getLoc(),
                      "dimension overflows a 64-bit size");
      return failure();
    }
  } while (consumeIf(Token::star));
  return *dim;
}

ParseResult GraphParser::parseBounds(func::FuncOp function) {
  consume(); // 'where'
  NamedAttrList bounds, lowerBounds;
  // An integer of a bound: a size, so not negative.
  auto parseSize = [&]() -> FailureOr<int64_t> {
    if (current().isNot(Token::integer))
      return emitExpected("an integer bound");
    FailureOr<int64_t> size = parseInteger(current(), /*negative=*/false);
    if (succeeded(size))
      consume();
    return size;
  };
  do {
    // symbolic F3: `S <= MAX`, `MIN <= S <= MAX` or `MIN <= S`.
    std::optional<int64_t> lower;
    if (current().is(Token::integer)) {
      FailureOr<int64_t> size = parseSize();
      if (failed(size) ||
          failed(expect(Token::less_equal, " after the lower bound")))
        return failure();
      lower = *size;
    }
    Token symbol = current();
    if (failed(expect(Token::identifier, " (a dimension symbol)")))
      return failure();
    // symbolic F3: a bound names a symbol of the parameters, once.
    if (!symbols.count(symbol.getSpelling())) {
      lexer.emitError(symbol.getLoc(),
                      "'" + symbol.getSpelling() +
                          "' is not a dimension symbol of the parameters");
      return failure();
    }
    if (bounds.get(symbol.getSpelling()) ||
        lowerBounds.get(symbol.getSpelling())) {
      lexer.emitError(symbol.getLoc(), "symbol '" + symbol.getSpelling() +
                                           "' is bounded twice");
      return failure();
    }
    std::optional<int64_t> upper;
    if (!lower || current().is(Token::less_equal)) {
      if (failed(expect(Token::less_equal, " after the symbol")))
        return failure();
      FailureOr<int64_t> size = parseSize();
      if (failed(size))
        return failure();
      upper = *size;
    }
    if (lower && upper && *lower > *upper) {
      lexer.emitError(symbol.getLoc(),
                      "symbol '" + symbol.getSpelling() +
                          "' has no size: its lower bound " +
                          std::to_string(*lower) + " is above its bound " +
                          std::to_string(*upper));
      return failure();
    }
    if (upper)
      bounds.append(symbol.getSpelling(), builder.getI64IntegerAttr(*upper));
    if (lower)
      lowerBounds.append(symbol.getSpelling(),
                         builder.getI64IntegerAttr(*lower));
  } while (consumeIf(Token::comma));
  if (!bounds.empty())
    function->setAttr(kDimBoundsAttrName,
                      bounds.getDictionary(builder.getContext()));
  if (!lowerBounds.empty())
    function->setAttr(kDimLowerBoundsAttrName,
                      lowerBounds.getDictionary(builder.getContext()));
  return success();
}

void GraphParser::bind(llvm::StringRef name, llvm::SMLoc loc, Expr value) {
  // symbolic F2: a value may not take a symbol's name.
  if (auto symbol = symbols.find(name); symbol != symbols.end()) {
    lexer.emitError(loc, "'" + name + "' is already defined")
            .attachNote(lexer.getLocation(symbol->second))
        << "previous definition is here (a dimension symbol)";
    return;
  }
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
  if (current().is(Token::comma))
    return parseMultipleResultStatement({name, typeLoc, declared});
  if (failed(expect(Token::equal, " after '" + name.getSpelling() + "'")))
    return fail();
  FailureOr<Expr> value = parseExpr();
  if (failed(value))
    return fail();
  bind(name.getSpelling(), name.getLoc(),
       checkDeclaredType(name, typeLoc, declared, *value));
  return success();
}

Expr GraphParser::checkDeclaredType(const Token &name, llvm::SMLoc typeLoc,
                                    std::optional<RankedTensorType> declared,
                                    Expr value) {
  // A written type is checked, never converted to.
  if (declared && value.isTensor() && value.getType() != *declared) {
    lexer.emitError(typeLoc, "'" + name.getSpelling() + "' is declared " +
                                 formatType(*declared) +
                                 " but its value is " +
                                 formatType(value.getType()));
    return Expr::invalid(value.loc);
  }
  if (declared && value.isNumber()) {
    FailureOr<Value> constant = graphs.materializeNumber(value, *declared, "=");
    return succeeded(constant) ? Expr::ofTensor(*constant, value.loc)
                               : Expr::invalid(value.loc);
  }
  return value;
}

/// stmt := target {',' target} '=' expr ;  target := NAME [':' type]
ParseResult GraphParser::parseMultipleResultStatement(Target first) {
  SmallVector<Target> targets = {first};
  // As with one name, a statement that fails still defines its names.
  auto fail = [&] {
    for (const Target &target : targets)
      bind(target.name.getSpelling(), target.name.getLoc(),
           Expr::invalid(target.name.getLoc()));
    return failure();
  };
  while (consumeIf(Token::comma)) {
    Target target{current(), current().getLoc(), std::nullopt};
    if (failed(expect(Token::identifier, " (a name to bind)")))
      return fail();
    targets.push_back(target);
    if (consumeIf(Token::colon)) {
      targets.back().typeLoc = current().getLoc();
      FailureOr<RankedTensorType> type = parseType();
      if (failed(type))
        return fail();
      targets.back().declared = *type;
    }
  }
  if (failed(expect(Token::equal, " after the names")))
    return fail();
  // graph call F6: several names take the results of one call of a graph.
  const Token &callee = current();
  std::optional<unsigned> graph = lookupGraph(callee.getSpelling());
  if (callee.isNot(Token::identifier) || peek().isNot(Token::l_paren) ||
      !graph) {
    if (current().isNot(Token::error))
      lexer.emitError(callee.getLoc(),
                      "a statement of " + llvm::Twine(targets.size()) +
                          " names takes the results of one call of a graph, "
                          "as in 'a, b = g(x)'");
    return fail();
  }
  FailureOr<CallSite> call = parseCallSite();
  if (failed(call))
    return fail();
  if (current().is(Token::plus) || current().is(Token::minus) ||
      current().is(Token::star) || current().is(Token::slash) ||
      current().is(Token::at)) {
    lexer.emitError(current().getLoc(),
                    "the results of '" + call->opName +
                        "' are bound to several names, so the statement "
                        "ends with the call");
    return fail();
  }
  if (!graphCallable[*graph])
    return fail();
  func::FuncOp function = graphFunctions[*graph];
  if (function.getNumResults() != targets.size()) {
    lexer.emitError(call->loc,
                    "graph '" + call->opName + "' returns " +
                        llvm::Twine(function.getNumResults()) +
                        (function.getNumResults() == 1 ? " result" : " results") +
                        ", but the statement binds " +
                        llvm::Twine(targets.size()) + " names");
    return fail();
  }
  SmallVector<Expr> results = buildGraphCall(graphs, *call, function);
  for (auto [target, result] : llvm::zip_equal(targets, results))
    bind(target.name.getSpelling(), target.name.getLoc(),
         checkDeclaredType(target.name, target.typeLoc, target.declared,
                           result));
  return success();
}

/// return := 'return' result {',' result}
/// result := [NAME '='] expr       # NAME: an inout parameter it updates
ParseResult GraphParser::parseReturn(func::FuncOp function,
                                     ArrayRef<Parameter> parameters) {
  llvm::SMLoc returnLoc = current().getLoc();
  consume();
  SmallVector<Value> results;
  SmallVector<llvm::StringRef> resultNames;
  /// Per result, the inout parameter it updates (-1: none).
  SmallVector<int64_t> updates;
  llvm::StringMap<llvm::SMLoc> updated;
  bool valid = true;
  do {
    int64_t updatedParameter = -1;
    if (current().is(Token::identifier) && peek().is(Token::equal)) {
      // (inout F2) `NAME =` names an inout parameter, (inout F3) once.
      Token name = current();
      consume();
      consume();
      const Parameter *parameter = llvm::find_if(
          parameters, [&](const Parameter &p) { return p.name == name.getSpelling(); });
      if (parameter == parameters.end() || !parameter->inout) {
        InFlightDiagnostic diag = lexer.emitError(
            name.getLoc(), "'" + name.getSpelling() +
                               "' is not an inout parameter of graph '" +
                               function.getName().str() +
                               "'; only those are returned as 'NAME = value'");
        if (parameter != parameters.end())
          diag.attachNote(lexer.getLocation(parameter->loc))
              << "declare it 'inout' here to update it in place";
        valid = false;
      } else if (auto [it, inserted] =
                     updated.try_emplace(name.getSpelling(), name.getLoc());
                 !inserted) {
        lexer.emitError(name.getLoc(), "inout parameter '" +
                                           name.getSpelling() +
                                           "' is returned updated twice")
                .attachNote(lexer.getLocation(it->second))
            << "first returned here";
        valid = false;
      } else {
        updatedParameter = parameter - parameters.begin();
      }
    }
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
    if (updatedParameter >= 0) {
      // (inout F4) The new value has the parameter's type.
      auto type = cast<RankedTensorType>(
          function.getArgumentTypes()[updatedParameter]);
      if (value->getType() != type) {
        lexer.emitError(value->loc,
                        "inout parameter '" +
                            parameters[updatedParameter].name.str() +
                            "' is " + formatType(type) +
                            " but its new value is " +
                            formatType(value->getType()));
        valid = false;
      }
    }
    results.push_back(value->tensor);
    updates.push_back(updatedParameter);
    // A returned name names the output, e.g. for the runtime's manifest; the
    // new value of an inout parameter is named after it.
    const Token &first = tokens[firstPosition];
    bool isName = position == firstPosition + 1 && first.is(Token::identifier);
    resultNames.push_back(updatedParameter >= 0
                              ? parameters[updatedParameter].name
                          : isName ? first.getSpelling()
                                   : llvm::StringRef());
  } while (consumeIf(Token::comma));
  // (inout F1) Every inout parameter is returned updated.
  for (const Parameter &parameter : parameters)
    if (parameter.inout && !updated.count(parameter.name)) {
      lexer.emitError(returnLoc, "inout parameter '" + parameter.name.str() +
                                     "' is not returned updated; return its "
                                     "new value as '" +
                                     parameter.name.str() + " = VALUE'")
              .attachNote(lexer.getLocation(parameter.loc))
          << "declared inout here";
      valid = false;
    }
  if (!valid)
    return success();
  func::ReturnOp::create(builder, lexer.getLocation(returnLoc), results);
  function.setType(builder.getFunctionType(function.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
  for (auto [index, parameter] : llvm::enumerate(updates))
    if (parameter >= 0)
      function.setResultAttr(index, kUpdatesAttrName,
                             builder.getI64IntegerAttr(parameter));
  // Every output gets a name unique among the graph's inputs and outputs:
  // the returned name, or result<i> for an expression, with _1, _2, ...
  // appended when taken (`return x, y, y` names its outputs x_1, y, y_1;
  // the new value of inout parameter `c` is `c_1`).
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
    return lookupName(token);
  }
  default:
    (void)emitExpected("an expression");
    return failure();
  }
}

Expr GraphParser::lookupName(const Token &token) {
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

/// call := OP '(' [arg {',' arg}] ')' ;  arg := expr | NAME '=' attr
/// where OP names an operation or a graph of the file.
FailureOr<Expr> GraphParser::parseCall() {
  FailureOr<CallSite> call = parseCallSite();
  if (failed(call))
    return failure();
  std::optional<unsigned> graph = lookupGraph(call->opName);
  if (!graph)
    return graphs.call(*call);
  // A callee with errors (or on a cycle) has been reported already.
  if (!graphCallable[*graph])
    return Expr::invalid(call->loc);
  func::FuncOp function = graphFunctions[*graph];
  // graph call F6
  if (function.getNumResults() != 1) {
    lexer.emitError(call->loc,
                    "graph '" + call->opName + "' returns " +
                        llvm::Twine(function.getNumResults()) +
                        " results; bind them to as many names, as in "
                        "'a, b = " + call->opName + "(...)'");
    return Expr::invalid(call->loc);
  }
  return buildGraphCall(graphs, *call, function).front();
}

FailureOr<CallSite> GraphParser::parseCallSite() {
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
  return call;
}

/// attr := ['-'] NUMBER | 'true' | 'false' | dtype | STRING
///       | '[' [entry {',' entry}] ']' ;  entry := ['-'] INT | NAME
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
      AttrValue::ListEntry entry;
      entry.loc = current().getLoc();
      bool isDim = (current().is(Token::identifier) &&
                    symbols.count(current().getSpelling())) ||
                   ((current().is(Token::identifier) ||
                     current().is(Token::integer)) &&
                    peek().is(Token::star));
      if (isDim) {
        // A dimension of the graph's symbols: only shapes take it (call F4).
        FailureOr<Dim> dim = parseDim();
        if (failed(dim))
          return failure();
        if (dim->isStatic()) {
          entry.integer = dim->getCoefficient();
        } else {
          entry.dim = *dim;
          value.kind = AttrValue::Kind::ShapeList;
        }
        value.ints.push_back(entry.integer);
        value.entries.push_back(entry);
        continue;
      }
      if (current().is(Token::identifier)) {
        // A name of a graph value: only index lists take it (call F4).
        entry.name = current().getSpelling();
        entry.value = lookupName(current());
        value.kind = AttrValue::Kind::IndexList;
      } else {
        bool negativeEntry = consumeIf(Token::minus);
        if (current().isNot(Token::integer))
          return emitExpected(negativeEntry ? "an integer in the list"
                                            : "an integer or a name in the "
                                              "list");
        FailureOr<int64_t> integer = parseInteger(current(), negativeEntry);
        if (failed(integer))
          return failure();
        entry.integer = *integer;
      }
      value.ints.push_back(entry.integer);
      value.entries.push_back(entry);
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
