//===- FkInlinedLocation.h - where an inlined op comes from -----*- C++ -*-===//
//
// A graph called by a graph is inlined (fk-inline-calls; a call of a graph
// with symbolic parameters already in the front end). The copies of the
// callee's ops say where they come from, so that diagnostics and remarks
// name the statement at the call.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKINLINEDLOCATION_H
#define FK_IR_FKINLINEDLOCATION_H

#include "mlir/IR/Location.h"

namespace mlir::fk {

/// The location of an op of a callee inlined at a call at `callLoc`: the
/// callee's own location `loc` under a call site of the call, named
/// `call/name` after the call's statement when both are named.
Location getInlinedLocation(Location loc, Location callLoc);

} // namespace mlir::fk

#endif // FK_IR_FKINLINEDLOCATION_H
