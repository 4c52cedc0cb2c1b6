//===- FusionBuilder.h - making fk.fusion ops -------------------*- C++ -*-===//
//
// Building `fk.fusion` ops from groups of ops: what fk-form-fusions and
// fk-fuse share (FormFusions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FK_TRANSFORMS_FUSIONBUILDER_H
#define FK_TRANSFORMS_FUSIONBUILDER_H

#include "fk/IR/FkOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::fk {

/// Whether `op` is a constant with one value everywhere: fusions clone such
/// constants rather than read them from memory.
bool isSplatConstant(Operation *op);

/// Replaces nothing: builds, at `b`'s insertion point, a fusion of `kind`
/// holding clones of `ops` (in the given order, which must be a program
/// order) that yields the clones of `results`. Values the ops use from
/// outside become inputs, except splat constants, which are cloned in.
FusionOp buildFusion(OpBuilder &b, Location loc, FusionKind kind,
                     ArrayRef<Operation *> ops, ValueRange results);

/// Replaces nothing: builds, at `b`'s insertion point, a fusion of `kind`
/// computing `first`'s body, then `second`'s, each common input read once;
/// where `second` reads a result of `first`, it reads the value `first`'s
/// body computes. It yields `first`'s results (if `yieldFirst`), then
/// `second`'s: sibling kernels keep both; a matmul pair yields the second's
/// only.
FusionOp mergeFusions(OpBuilder &b, Location loc, FusionKind kind,
                      FusionOp first, FusionOp second, bool yieldFirst);

/// Makes every graph result the result of a kernel of its own: a graph
/// argument, a splat constant or a value returned twice gets a copy fusion;
/// so does the new value of an inout parameter whose kernel could not write
/// it into the parameter's buffer (it reads the parameter at other
/// coordinates, or a later kernel reads the old value).
void formCopyFusions(func::FuncOp fn);

/// Gives each splat constant that a matmul or an attention reads a fill
/// fusion of its own and makes them read its result: their kernels copy
/// operand tiles from device memory, where other kernels clone splats in.
void formContractionOperandFills(func::FuncOp fn);

} // namespace mlir::fk

#endif // FK_TRANSFORMS_FUSIONBUILDER_H
