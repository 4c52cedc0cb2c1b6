//===- FkDialect.cpp - the fk dialect -------------------------------------===//

#include "fk/IR/FkDialect.h"
#include "fk/IR/FkOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fk;

#include "fk/IR/FkDialect.cpp.inc"
#include "fk/IR/FkEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fk/IR/FkAttrs.cpp.inc"

void FkDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fk/IR/FkOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fk/IR/FkAttrs.cpp.inc"
      >();
  addElementwiseFolding(*this);
}

Operation *FkDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
