//===- RowVariants.h - kernels for runs of few rows -------------*- C++ -*-===//
//
// A matmul whose rows are given at run time (`x: f16[B, S, 768]` times a
// weight) is tiled for its largest rows, the bounds' (16384 for `B <= 16,
// S <= 1024`): 128-row tiles, K not split. A decode step's run of one row
// then computes 127 rows of padding per tile and leaves most SMs idle, 3x
// slower than an artifact compiled for one row. So such a fusion has row
// variants: for each of a few row limits (64, 256, 1024, 4096, below the
// bound) fk-tile chooses the tiling as if the rows were at most that limit,
// and keeps it where it differs from the next larger limit's. Each run
// launches the kernels of exactly one variant, the one of the smallest limit
// its rows do not exceed (the fusion's own tiling above the largest).
//
// An attention whose query rows are given at run time (a causal prefill of
// `S` tokens) likewise has variants for runs of at most 16 query rows (the
// decode kernel's, where fk-tile prefers it: a prompt of one token ran 2x
// slower on the flash kernel's 128-row blocks) and of at most 64 (the flash
// kernel's one-warpgroup blocks). Its rows are the query rows per batch.
// Unlike a matmul's, an attention's variant may run another kernel than
// the fusion's (decode instead of flash), so runs of few query rows round
// as the decode kernel does: as an artifact compiled for their size would.
//
// In the IR the variants are a fusion attribute,
//
//   fk.row_variants = [{rows = 64 : i64, tiling = #fk.tiling<...>,
//                       promotion = #fk.promotion<...>}, ...]
//
// rows ascending, set by fk-tile (tiling) and fk-promote (promotion). A
// variant's kernels are built from a clone of the fusion carrying the
// variant's tiling and `fk.row_limit = rows`, which MatmulShape reads as
// the product's largest rows (AttentionShape as the largest query rows):
// workspaces and grids are those of the limit.
// fk-lower-to-gpu launches them under a guard on the run's rows (their grid
// has no blocks for other runs; docs/artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_ROWVARIANTS_H
#define FKC_CODEGEN_ROWVARIANTS_H

#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"

namespace mlir::fk {

/// The kernel choice for the runs of at most `rows` rows.
struct RowVariant {
  int64_t rows;
  TilingAttr tiling;
  /// Null before fk-promote, and for kernels that promote nothing.
  PromotionAttr promotion;
};

/// The row limits for which fk-tile tries a variant of `fusion`, those
/// below the bound's rows: 64, 256, 1024 and 4096 for a matmul fusion whose
/// rows are given at run time under bounds, 16 and 64 for an attention
/// fusion whose query rows are; else none.
SmallVector<int64_t> getRowVariantLimits(FusionOp fusion);

/// The variants `fusion` carries, rows ascending; emits an error at the
/// fusion when its fk.row_variants is malformed.
FailureOr<SmallVector<RowVariant>> getRowVariants(FusionOp fusion);

/// Sets fk.row_variants (removes it when `variants` is empty).
void setRowVariants(FusionOp fusion, ArrayRef<RowVariant> variants);

/// A copy of `fusion`, placed before it, whose kernel serves runs of at
/// most `variant.rows` rows: its tiling and promotion are the variant's, it
/// carries fk.row_limit and no variants. The caller erases it.
FusionOp cloneRowVariant(FusionOp fusion, const RowVariant &variant);

/// The rows that choose a run's variant (a monomial of the graph's
/// symbols): a matmul's product rows, an attention's query rows per batch.
Dim getVariantRows(FusionOp fusion);

} // namespace mlir::fk

#endif // FKC_CODEGEN_ROWVARIANTS_H
