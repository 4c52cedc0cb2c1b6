//===- GraphBuilder.cpp - the semantics of .graph expressions -------------===//

#include "Frontend/GraphBuilder.h"
#include "Frontend/GraphOps.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace mlir;
using namespace mlir::fk;
using namespace mlir::fk::frontend;

std::string mlir::fk::frontend::formatType(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type.getElementType();
  return text + formatShape(getDims(type));
}

Type mlir::fk::frontend::parseDtype(MLIRContext *context,
                                    llvm::StringRef name) {
  Builder b(context);
  return llvm::StringSwitch<Type>(name)
      .Case("f32", b.getF32Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("i32", b.getI32Type())
      .Case("i64", b.getI64Type())
      .Case("i1", b.getI1Type())
      .Default(Type());
}

std::string mlir::fk::frontend::formatNumber(double value) {
  // The shortest decimal that reads back as the same double: 2.5, not
  // 2.500000e+00.
  for (int precision = 1; precision < 17; ++precision) {
    std::string text = llvm::formatv("{0}", llvm::format("%.*g", precision, value)).str();
    if (std::strtod(text.c_str(), nullptr) == value)
      return text;
  }
  return llvm::formatv("{0}", llvm::format("%.17g", value)).str();
}

const AttrValue *CallSite::lookup(llvm::StringRef name) const {
  for (const NamedAttr &attr : attrs)
    if (attr.name == name)
      return &attr.value;
  return nullptr;
}

InFlightDiagnostic GraphBuilder::emitError(llvm::SMLoc loc) const {
  return mlir::emitError(lexer.getLocation(loc));
}

InFlightDiagnostic GraphBuilder::emitOpError(const CallSite &call) const {
  return emitError(call.loc) << "'" << call.opName << "' ";
}

FailureOr<RankedTensorType> GraphBuilder::makeType(llvm::SMLoc loc,
                                                   ArrayRef<Dim> dims,
                                                   Type dtype) {
  return makeTensorType([&]() { return emitError(loc); }, dims, dtype);
}

FailureOr<int64_t> GraphBuilder::normalizeAxis(const CallSite &call,
                                               llvm::StringRef attr,
                                               int64_t axis, int64_t rank) {
  if (rank == 0) {
    emitOpError(call) << attr << " " << axis
                      << " is out of range: a rank-0 tensor has no axes";
    return failure();
  }
  if (axis < -rank || axis >= rank) {
    emitOpError(call) << attr << " " << axis << " is out of range for rank "
                      << rank << " (valid: " << -rank << ".." << rank - 1
                      << ")";
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

LogicalResult GraphBuilder::checkNumber(const Expr &number, Type dtype,
                                        llvm::StringRef opName) {
  double value = number.number;
  if (isRepresentable(value, dtype))
    return success();
  if (isa<IntegerType>(dtype))
    emitError(number.loc) << "number " << formatNumber(value)
                          << " is not a valid " << dtype << " value for '"
                          << opName << "'";
  else
    emitError(number.loc) << "number " << formatNumber(value) << " overflows "
                          << dtype << " in '" << opName << "'";
  return failure();
}

FailureOr<Value> GraphBuilder::materializeNumber(const Expr &number,
                                                 RankedTensorType type,
                                                 llvm::StringRef opName) {
  Type dtype = type.getElementType();
  double value = number.number;
  if (failed(checkNumber(number, dtype, opName)))
    return failure();
  Attribute element = doubleToAttribute(dtype, roundToElementType(value, dtype));
  if (!isSymbolic(type))
    return create<ConstantOp>(number.loc, type,
                              DenseElementsAttr::get(type, element));
  // A constant holds its elements, so one of a symbolic shape is a scalar
  // broadcast; binding folds it back into a splat.
  auto scalarType = RankedTensorType::get({}, dtype);
  Value scalar = create<ConstantOp>(
      number.loc, scalarType, DenseElementsAttr::get(scalarType, element));
  return create<BroadcastOp>(number.loc, type, scalar);
}

FailureOr<Value> GraphBuilder::requireTensor(const CallSite &call,
                                             const Expr &operand) {
  if (operand.isTensor())
    return operand.tensor;
  emitError(operand.loc) << "'" << call.opName
                         << "' needs a tensor here; a number alone has no "
                            "dtype (use full(...) to make one)";
  return failure();
}

FailureOr<SmallVector<Value>>
GraphBuilder::unifyOperands(const CallSite &call, ArrayRef<Expr> operands) {
  // The dtype comes from the first tensor; every other tensor must agree.
  const Expr *first = nullptr;
  for (const Expr &operand : operands) {
    if (!operand.isTensor())
      continue;
    if (!first) {
      first = &operand;
      continue;
    }
    Type a = first->getType().getElementType();
    Type b = operand.getType().getElementType();
    if (a != b) {
      emitOpError(call) << "operand dtypes differ: " << a << " vs " << b;
      return failure();
    }
  }
  if (!first) {
    emitOpError(call) << "needs at least one tensor operand; numbers alone "
                         "have no dtype (use full(...) to make one)";
    return failure();
  }
  SmallVector<Dim> shape;
  for (const Expr &operand : operands) {
    if (!operand.isTensor())
      continue;
    FailureOr<SmallVector<Dim>> joined = inferBroadcastShape(
        [&]() { return emitOpError(call); }, shape,
        getDims(operand.getType()));
    if (failed(joined))
      return failure();
    shape = *joined;
  }
  Type dtype = first->getType().getElementType();
  RankedTensorType type = getTensorType(shape, dtype);
  SmallVector<Value> values;
  for (const Expr &operand : operands) {
    if (operand.isNumber()) {
      FailureOr<Value> constant = materializeNumber(operand, type, call.opName);
      if (failed(constant))
        return failure();
      values.push_back(*constant);
    } else if (operand.getType() != type) {
      values.push_back(create<BroadcastOp>(call.loc, type, operand.tensor));
    } else {
      values.push_back(operand.tensor);
    }
  }
  return values;
}

/// The name of the DSL op an infix operator stands for.
static llvm::StringRef infixOpName(Token::Kind op) {
  switch (op) {
  case Token::plus:
    return "add";
  case Token::minus:
    return "sub";
  case Token::star:
    return "mul";
  case Token::slash:
    return "div";
  case Token::at:
    return "matmul";
  default:
    llvm_unreachable("not an infix operator");
  }
}

Expr GraphBuilder::binary(Token::Kind op, llvm::SMLoc loc, const Expr &lhs,
                          const Expr &rhs) {
  if (lhs.isInvalid() || rhs.isInvalid())
    return Expr::invalid(loc);
  // Arithmetic on two numbers stays a number, so `1 / 8` can scale any dtype.
  if (lhs.isNumber() && rhs.isNumber() && op != Token::at) {
    double a = lhs.number, b = rhs.number;
    double value = op == Token::plus    ? a + b
                   : op == Token::minus ? a - b
                   : op == Token::star  ? a * b
                                        : a / b;
    return Expr::ofNumber(value, lhs.loc);
  }
  CallSite site;
  site.opName = infixOpName(op);
  site.loc = loc;
  site.operands = {lhs, rhs};
  return call(site);
}

Expr GraphBuilder::negate(llvm::SMLoc loc, const Expr &operand) {
  if (operand.isInvalid())
    return operand;
  if (operand.isNumber())
    return Expr::ofNumber(-operand.number, loc);
  CallSite site;
  site.opName = "neg";
  site.loc = loc;
  site.operands = {operand};
  return call(site);
}

static llvm::StringRef describe(AttrKind kind) {
  switch (kind) {
  case AttrKind::Integer:
    return "an integer";
  case AttrKind::Float:
    return "a number";
  case AttrKind::Bool:
    return "true or false";
  case AttrKind::Dtype:
    return "a dtype (f32, f16, bf16, i32, i64, i1)";
  case AttrKind::String:
    return "a string";
  case AttrKind::IntList:
    return "a list of integers";
  case AttrKind::IntOrIntList:
    return "an integer or a list of integers";
  case AttrKind::IndexList:
    return "a list of integers and names of rank-0 i32 or i64 values";
  case AttrKind::Shape:
    return "a list of integers or products of the graph's symbols";
  }
  llvm_unreachable("unknown attribute kind");
}

static bool matches(AttrKind expected, AttrValue::Kind actual) {
  switch (expected) {
  case AttrKind::Integer:
    return actual == AttrValue::Kind::Integer;
  case AttrKind::Float:
    return actual == AttrValue::Kind::Float ||
           actual == AttrValue::Kind::Integer;
  case AttrKind::Bool:
    return actual == AttrValue::Kind::Bool;
  case AttrKind::Dtype:
    return actual == AttrValue::Kind::Dtype;
  case AttrKind::String:
    return actual == AttrValue::Kind::String;
  case AttrKind::IntList:
    return actual == AttrValue::Kind::IntList;
  case AttrKind::IntOrIntList:
    return actual == AttrValue::Kind::Integer ||
           actual == AttrValue::Kind::IntList;
  case AttrKind::IndexList:
    return actual == AttrValue::Kind::IntList ||
           actual == AttrValue::Kind::IndexList;
  case AttrKind::Shape:
    return actual == AttrValue::Kind::IntList ||
           actual == AttrValue::Kind::ShapeList;
  }
  llvm_unreachable("unknown attribute kind");
}

std::optional<llvm::StringRef>
mlir::fk::frontend::nearestName(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> candidates) {
  std::optional<llvm::StringRef> best;
  unsigned bestDistance = std::max<unsigned>(2, name.size() / 3) + 1;
  for (llvm::StringRef candidate : candidates) {
    unsigned distance = name.edit_distance(candidate, true, bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

Expr GraphBuilder::call(const CallSite &call) {
  const OpSpec *spec = lookupOpSpec(call.opName);
  if (!spec) {
    SmallVector<llvm::StringRef> names;
    for (const OpSpec &op : getOpSpecs())
      names.push_back(op.name);
    names.append(graphNames);
    InFlightDiagnostic diag = emitError(call.loc)
                              << "unknown operation '" << call.opName << "'";
    if (std::optional<llvm::StringRef> near = nearestName(call.opName, names))
      diag << "; did you mean '" << *near << "'?";
    return Expr::invalid(call.loc);
  }
  bool valid = true;
  size_t count = call.operands.size();
  if (count < spec->minOperands || count > spec->maxOperands) {
    InFlightDiagnostic diag = emitOpError(call) << "expects ";
    if (spec->maxOperands == kUnboundedOperands)
      diag << "at least " << spec->minOperands;
    else if (spec->minOperands == spec->maxOperands)
      diag << spec->minOperands;
    else
      diag << spec->minOperands << " to " << spec->maxOperands;
    unsigned most = spec->maxOperands == kUnboundedOperands
                        ? spec->minOperands
                        : spec->maxOperands;
    diag << (most == 1 ? " operand" : " operands") << ", got "
         << count;
    valid = false;
  }
  for (const NamedAttr &attr : call.attrs) {
    const AttrSpec *attrSpec = nullptr;
    for (const AttrSpec &candidate : spec->attrs)
      if (candidate.name == attr.name)
        attrSpec = &candidate;
    if (!attrSpec) {
      InFlightDiagnostic diag = emitError(attr.nameLoc)
                                << "'" << call.opName
                                << "' has no attribute '" << attr.name << "'";
      SmallVector<llvm::StringRef> names;
      for (const AttrSpec &candidate : spec->attrs)
        names.push_back(candidate.name);
      if (std::optional<llvm::StringRef> near = nearestName(attr.name, names))
        diag << "; did you mean '" << *near << "'?";
      else if (names.empty())
        diag << "; it takes no attributes";
      else
        diag << "; it takes " << llvm::join(names, ", ");
      valid = false;
      continue;
    }
    // A list naming an undefined value was reported where it was read.
    if (llvm::any_of(attr.value.entries, [](const AttrValue::ListEntry &e) {
          return e.isName() && e.value.isInvalid();
        })) {
      valid = false;
      continue;
    }
    if (!matches(attrSpec->kind, attr.value.kind)) {
      emitError(attr.value.loc)
          << "attribute '" << attr.name << "' of '" << call.opName
          << "' expects " << describe(attrSpec->kind);
      valid = false;
    }
  }
  if (!valid)
    return Expr::invalid(call.loc);
  for (const Expr &operand : call.operands)
    if (operand.isInvalid())
      return Expr::invalid(call.loc);
  return spec->build(*this, call);
}
