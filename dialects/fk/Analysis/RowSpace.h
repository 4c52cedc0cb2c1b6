//===- RowSpace.h - the rows of a reduction ---------------------*- C++ -*-===//
//
// What the fusion decisions and the row kernel agree on: the row space of a
// reduction over trailing axes, and the fusions a row kernel computes (one
// row space, rows short enough to stay in registers).
//
//===----------------------------------------------------------------------===//

#ifndef FK_ANALYSIS_ROWSPACE_H
#define FK_ANALYSIS_ROWSPACE_H

#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"

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
  /// The monomials of the dynamic dimensions of `shape`, as the operand's
  /// type encodes them (dialects/fk/IR/FkSymbolicShape.h); null for a
  /// static shape.
  Attribute symbols;

  /// Whether a row's length is given at run time (a symbolic reduced
  /// axis): the row kernel then holds the row as one of the bound's length
  /// or reads it in loops (isLoopedRowFusion).
  bool hasRuntimeLength() const;
  /// The number of elements of a row, of a row of static length only.
  int64_t rowLength() const;
  /// Why a row kernel does not keep these rows on chip (empty rows, or
  /// rows longer than kMaxFusedRowLength), or "" if it does. Rows of a
  /// length given at run time are kept, whatever their length: held at
  /// their bound's length or read in loops (isLoopedRowFusion).
  std::string whyNotOnChip() const;
  ArrayRef<int64_t> leadingShape() const;
  /// The leading dimensions and a row's dimensions, symbolic ones included.
  SmallVector<Dim> leadingDims() const;
  SmallVector<Dim> rowDims() const;
  /// Whether a value of `type` holds the rows: the row space's dimensions,
  /// symbolic ones included (compared as dimensions: [S, T] is not [T, S]).
  bool isRowType(RankedTensorType type) const;
  /// Whether a value of `type` holds one element per row: the leading
  /// dimensions up to dimensions of size 1.
  bool isReducedType(RankedTensorType type) const;

  bool operator==(const RowSpace &other) const {
    return shape == other.shape && leadingRank == other.leadingRank &&
           symbols == other.symbols;
  }
};

/// The row space of `reduction`, or none if it does not reduce exactly the
/// trailing axes of its operand.
std::optional<RowSpace> getRowSpace(Operation *reduction);

/// The row space shared by every reduction of `fusion`, if a row kernel
/// computes it: its reductions reduce the trailing axes of one shape, and
/// it writes rows or reduced rows; rows short enough to stay in registers,
/// or longer ones streamed (isStreamedRowFusion).
std::optional<RowSpace> getFusionRowSpace(FusionOp fusion);

/// Whether the row kernel streams `fusion`'s rows, longer than
/// kMaxFusedRowLength, through its threads in a loop instead of holding
/// them in registers: the fusion has one reduction and writes reduced rows
/// only (an argmax or a sum over a 50257-word vocabulary), so that no
/// element is needed twice.
bool isStreamedRowFusion(FusionOp fusion, const RowSpace &rows);

/// The longest row of `fusion`'s row space `rows`: its length, or for a
/// length given at run time its largest size under the bounds of the graph
/// holding `fusion`; none where a symbol is unbounded.
std::optional<int64_t> getLongestRow(FusionOp fusion, const RowSpace &rows);

/// Whether the row kernel reads `fusion`'s rows in loops instead of holding
/// them in registers: streamed rows, and rows of a length given at run time
/// that the bounds do not keep within kMaxFusedRowLength (each reduction
/// and the rows written in a loop of their own, the row's elements
/// computed again in each). Rows of a length given at run time within it
/// are held in registers as rows of the bound's length, the elements past
/// the run's length masked out.
bool isLoopedRowFusion(FusionOp fusion, const RowSpace &rows);

/// Whether `dims` equals `other` but for dimensions of size 1.
bool equalUpToUnitDims(ArrayRef<Dim> dims, ArrayRef<Dim> other);

} // namespace mlir::fk

#endif // FK_ANALYSIS_ROWSPACE_H
