//===- FusionPlan.h - what the fusion passes share --------------*- C++ -*-===//
//
// Building `fk.fusion` ops from groups of ops, and the notions the fusion
// decisions and the kernel builder agree on: the row space of a reduction
// and how long a row may be to stay on chip.
//
//===----------------------------------------------------------------------===//

#ifndef FK_TRANSFORMS_FUSIONPLAN_H
#define FK_TRANSFORMS_FUSIONPLAN_H

#include "fk/IR/FkOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace mlir::fk {

/// The longest row (in elements) a reduction kernel keeps in registers; the
/// fusion pass does not fuse the consumers of longer rows' reductions.
inline constexpr int64_t kMaxFusedRowLength = 16384;

/// A reduction over the trailing axes of its operand: `shape` is the
/// operand's shape, the first `leadingRank` dimensions index the rows, the
/// others the elements of a row.
struct RowSpace {
  SmallVector<int64_t> shape;
  int64_t leadingRank = 0;

  int64_t rowLength() const;
  ArrayRef<int64_t> leadingShape() const;
  /// Whether a value of `shape` holds one element per row: the leading
  /// shape up to dimensions of size 1.
  bool isReducedShape(ArrayRef<int64_t> shape) const;

  bool operator==(const RowSpace &other) const {
    return shape == other.shape && leadingRank == other.leadingRank;
  }
};

bool isReduction(Operation *op);

/// Whether `op` is a constant with one value everywhere: fusions clone such
/// constants rather than read them from memory.
bool isSplatConstant(Operation *op);

/// The row space of `reduction`, or none if it does not reduce exactly the
/// trailing axes of its operand.
std::optional<RowSpace> getRowSpace(Operation *reduction);

/// Replaces nothing: builds, at `b`'s insertion point, a fusion of `kind`
/// holding clones of `ops` (in the given order, which must be a program
/// order) that yields the clones of `results`. Values the ops use from
/// outside become inputs, except splat constants, which are cloned in.
FusionOp buildFusion(OpBuilder &b, Location loc, FusionKind kind,
                     ArrayRef<Operation *> ops, ValueRange results);

/// Makes every graph result the result of a kernel of its own: a graph
/// argument, a splat constant or a value returned twice gets a copy fusion.
void formCopyFusions(func::FuncOp fn);

/// The size in bytes of a tensor value on the device (i1 as bytes).
int64_t getTensorBytes(Value value);
/// "256.0 MiB".
std::string formatBytes(int64_t bytes);
/// "'h' (fk.add)": the statement name of an op, for remarks.
std::string describeOp(Operation *op);

} // namespace mlir::fk

#endif // FK_TRANSFORMS_FUSIONPLAN_H
