//===- FkOps.h - operations of the fk dialect -------------------*- C++ -*-===//

#ifndef FK_IR_FKOPS_H
#define FK_IR_FKOPS_H

#include "fk/IR/FkDialect.h"
#include "fk/IR/FkSymbolicShape.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

#include "fk/IR/FkEnums.h.inc"
#include "fk/IR/FkInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fk/IR/FkAttrs.h.inc"

#define GET_OP_CLASSES
#include "fk/IR/FkOps.h.inc"

namespace mlir::fk {
/// Whether a loop fusion can compute `op` element by element: elementwise
/// ops, broadcasts, transposes, reshapes, gathers, slices, concats, pads,
/// dynamic slices and slice updates, iota and constants.
bool isLoopOp(Operation *op);

/// Whether `op` is one of the reductions (reduce_sum, _max, _min, _mean).
bool isReduction(Operation *op);

/// The attributes fk-tile and fk-promote set on a fusion.
inline constexpr llvm::StringLiteral kTilingAttrName = "fk.tiling";
inline constexpr llvm::StringLiteral kPromotionAttrName = "fk.promotion";
/// The tilings fk-tile chose for runs of few rows of a fusion whose rows are
/// given at run time (compiler/Codegen/RowVariants.h), and, on the kernel
/// that serves such runs only, the most rows it serves.
inline constexpr llvm::StringLiteral kRowVariantsAttrName = "fk.row_variants";
inline constexpr llvm::StringLiteral kRowLimitAttrName = "fk.row_limit";
} // namespace mlir::fk

#endif // FK_IR_FKOPS_H
