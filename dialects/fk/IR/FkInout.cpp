//===- FkInout.cpp - parameters updated in place --------------------------===//

#include "fk/IR/FkInout.h"
#include "fk/IR/FkDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::fk;

std::optional<unsigned>
mlir::fk::getUpdatedParameter(FunctionOpInterface function,
                              unsigned resultIndex) {
  auto index = function.getResultAttrOfType<IntegerAttr>(resultIndex,
                                                         kUpdatesAttrName);
  if (!index)
    return std::nullopt;
  return static_cast<unsigned>(index.getInt());
}

LogicalResult mlir::fk::verifyInoutArgument(Operation *op, unsigned argIndex,
                                            NamedAttribute attribute) {
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << kInoutAttrName
                           << "' belongs on a function's argument";
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << kInoutAttrName << "' on argument "
                           << argIndex << " must be a unit attribute";
  return success();
}

LogicalResult mlir::fk::verifyUpdates(Operation *op, unsigned index,
                                      bool isArgument,
                                      NamedAttribute attribute) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  StringRef what = isArgument ? "argument" : "result";
  if (!function)
    return op->emitError() << "'" << kUpdatesAttrName
                           << "' belongs on a function's result";
  auto parameter = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!parameter)
    return op->emitError() << "'" << kUpdatesAttrName << "' on " << what
                           << " " << index
                           << " must be an integer (an argument index)";
  int64_t p = parameter.getInt();
  unsigned numArguments = function.getNumArguments();
  if (p < 0 || p >= static_cast<int64_t>(numArguments) ||
      !function.getArgAttr(p, kInoutAttrName))
    return op->emitError() << what << " " << index << " updates argument "
                           << p << ", which is not an '" << kInoutAttrName
                           << "' argument";
  Type type = isArgument ? function.getArgumentTypes()[index]
                         : function.getResultTypes()[index];
  if (type != function.getArgumentTypes()[p])
    return op->emitError() << what << " " << index << " updates argument "
                           << p << " of type "
                           << function.getArgumentTypes()[p]
                           << " with a value of type " << type;
  // No other result or argument updates it.
  auto updatesIt = [&](DictionaryAttr attrs) {
    auto other = attrs ? attrs.getAs<IntegerAttr>(kUpdatesAttrName)
                       : IntegerAttr();
    return other && other.getInt() == p;
  };
  for (unsigned r = 0; r < function.getNumResults(); ++r)
    if ((isArgument || r != index) && updatesIt(function.getResultAttrDict(r)))
      return op->emitError() << "argument " << p
                             << " is updated by two results";
  for (unsigned a = 0; a < numArguments; ++a)
    if ((!isArgument || a != index) && updatesIt(function.getArgAttrDict(a)))
      return op->emitError() << "argument " << p
                             << " is updated by two outputs";
  return success();
}

LogicalResult FkDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned /*regionIndex*/,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  if (attribute.getName() == kInoutAttrName)
    return verifyInoutArgument(op, argIndex, attribute);
  if (attribute.getName() == kUpdatesAttrName)
    return verifyUpdates(op, argIndex, /*isArgument=*/true, attribute);
  return success();
}

LogicalResult FkDialect::verifyRegionResultAttribute(Operation *op,
                                                     unsigned /*regionIndex*/,
                                                     unsigned resultIndex,
                                                     NamedAttribute attribute) {
  if (attribute.getName() == kUpdatesAttrName)
    return verifyUpdates(op, resultIndex, /*isArgument=*/false, attribute);
  return success();
}
