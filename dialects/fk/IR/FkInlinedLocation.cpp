//===- FkInlinedLocation.cpp - where an inlined op comes from -------------===//

#include "fk/IR/FkInlinedLocation.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

Location mlir::fk::getInlinedLocation(Location loc, Location callLoc) {
  auto name = dyn_cast<NameLoc>(loc);
  Location site = CallSiteLoc::get(name ? name.getChildLoc() : loc, callLoc);
  if (!name)
    return site;
  auto callName = dyn_cast<NameLoc>(callLoc);
  if (!callName)
    return NameLoc::get(name.getName(), site);
  return NameLoc::get(
      StringAttr::get(loc.getContext(), callName.getName().getValue() + "/" +
                                            name.getName().getValue()),
      site);
}
