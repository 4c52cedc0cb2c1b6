//===- WarpMma.h - the pieces of the mma.sync kernels ------------*- C++ -*-===//
//
// What the kernels on warp-level tensor cores (sm_80 and later: the
// mma.sync matmul, WarpMmaMatmul.cpp, and the flash kernel's mma.sync form,
// FlashAttention.cpp) are made of: operand tiles in shared memory as rows of
// 16-byte chunks, swizzled against bank conflicts; cp.async copies into
// them, zero-filled outside the operand; ldmatrix loads of four 8 x 8
// matrices into the registers mma.sync takes; and mma.sync m16n8k16 with
// f32 accumulation.
//
// Fragments follow PTX's m16n8k16 layouts: lane l holds accumulator values
// (row l / 4, columns 2 (l % 4) + 0, 1) and the same 8 rows down, in that
// order; the same four values per 8 columns as one warp's part of a
// wgmma accumulator, which the flash kernel's softmax code relies on.
//
// f32 operands (where the module allows TF32, fk/IR/FkNumerics.h) take
// mma.sync m16n8k8 on TF32, whose accumulators lie as m16n8k16's: chunks
// hold 4 elements, a 16 x 8 A step is four ldmatrix matrices of 8 rows x 4
// f32 (lane l's register: row l / 4, column l % 4, as TF32's A fragment
// wants it), and each value is rounded to TF32 as it is loaded. Split
// (exact f32 on the flash kernel), each value becomes two TF32 operands,
// its TF32 part `big` and the TF32 part of the rest `x - big`, and each
// product three mma.syncs: small * big + big * small + big * big, which
// drops only the small * small term (2^-22 of the product).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_WARPMMA_H
#define FKC_CODEGEN_WARPMMA_H

#include "Codegen/KernelEmission.h"

namespace mlir::fk {

/// Elements of 16 bits in a 16-byte chunk: the unit of copies and of
/// ldmatrix rows.
inline constexpr int64_t kChunkElements = 8;
/// The mma.sync shape: 16 x 8 outputs, 16 of K (8 of K on TF32).
inline constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

/// A tile in shared memory of `rows` rows of `rowChunks` 16-byte chunks,
/// each chunk's column bits XORed with bits of its row,
/// so that the 8 rows one ldmatrix phase reads (consecutive, one chunk
/// column) fall in 8 different bank groups of 128 bytes.
struct SwizzledTile {
  int64_t rows, rowChunks;
  /// Elements in a chunk: 8 of 16 bits, 4 of f32.
  int64_t chunkElements = kChunkElements;

  int64_t elements() const { return rows * rowChunks * chunkElements; }
  /// The element offset of chunk `chunk` of row `row` of the tile whose
  /// first element is at `tileStart`.
  Value offset(IndexBuilder &idx, Value tileStart, Value row,
               Value chunk) const;
};

/// Issues the cp.async copies of `tile` (at `tileStart` of the shared
/// memref `shared`) from the row-major matrix of `rowBound` (a size given
/// at run time or not) x `columnBound` elements, `rowStride` apart, at element `base` of the 1-D memref
/// `global`, from element (firstRow, firstColumn) on; `threads` threads
/// (`thread` is this one) share the chunks, adjacent threads adjacent
/// chunks of a row. Chunks outside the matrix are zeros. Rows are a
/// multiple of 16 bytes long, so a chunk is wholly in or out.
void copyTileAsync(IndexBuilder &idx, Value thread, int64_t threads,
                   const SwizzledTile &tile, Value shared, Value tileStart,
                   Value global, Value base, Value firstRow,
                   Value firstColumn, OpFoldResult rowBound,
                   int64_t columnBound, int64_t rowStride);

/// copyTileAsync for matrices whose rows are not whole 16-byte pieces
/// (cp.async needs aligned sources): each chunk's elements are loaded one
/// by one, zeros outside the matrix, and stored to shared memory; the
/// copy is done when the thread goes on.
void copyTileByElements(IndexBuilder &idx, Value thread, int64_t threads,
                        const SwizzledTile &tile, Value shared,
                        Value tileStart, Value global, Value base,
                        Value firstRow, Value firstColumn,
                        OpFoldResult rowBound, int64_t columnBound,
                        int64_t rowStride);

/// Closes the group of the copies issued since the last one (possibly
/// none); returns its token.
Value commitAsyncCopies(OpBuilder &b, Location loc);

/// Waits until at most `pending` groups of this thread's copies are in
/// flight (`token`: any group's; the wait counts groups, not tokens).
void waitAsyncCopies(OpBuilder &b, Location loc, Value token,
                     int64_t pending);

/// The register mma.sync takes for the two values (low, high) rounded to
/// `element` (f16 or bf16): P's A fragments from the scores.
Value packPair(OpBuilder &b, Location loc, Value low, Value high,
               Type element);

/// A warp's mma.sync operands, loaded from swizzled tiles in shared memory
/// by ldmatrix .x4 (four matrices of 8 rows of 16 bytes, lane l addressing
/// row l % 8 of matrix l / 8) as the registers mma.sync takes (two 16-bit
/// elements, or one TF32), and the products on them. One per kernel: the
/// lane's addressing is computed once, where it is made.
class WarpFragments {
public:
  /// Tiles of `element`s (f16, bf16, or f32 for TF32) in `shared`; this
  /// thread is lane `lane` of its warp. `splitF32`: f32 products as three
  /// TF32 products (see the file comment), operands of twice the registers.
  WarpFragments(IndexBuilder &idx, Value shared, Value lane, Type element,
                bool splitF32 = false);

  /// The K of one mma step: 16, or 8 on TF32.
  int64_t getStepK() const { return element.isF32() ? 8 : kMmaK; }

  /// A of one 16 x K mma step: rows firstRow .. +15 of `tile` (rows of
  /// A, K innermost) at chunks firstChunk and the next; registers a0..a3.
  SmallVector<Value, 4> loadA(const SwizzledTile &tile, Value tileStart,
                              Value firstRow, Value firstChunk);
  /// B of two 8-column mma tiles over one step of K from a tile whose rows
  /// are B's columns (K innermost: w of x @ transpose(w), or K of Q K^T):
  /// rows firstRow .. +15, chunks firstChunk and the next. Registers 0-1
  /// are the first tile's, 2-3 the second's.
  SmallVector<Value, 4> loadBFromColumns(const SwizzledTile &tile,
                                         Value tileStart, Value firstRow,
                                         Value firstChunk);
  /// The same from a tile whose rows are B's rows (N innermost: B as
  /// stored, or V of P V): K rows firstRow on (one step), the chunks of
  /// 16 columns from firstChunk, by ldmatrix.trans (TF32: ldmatrix cannot
  /// transpose 32-bit elements, so each lane loads its four). TF32 only,
  /// `rowsInPairs`: K slot t of the fragment is row 2t and slot t + 4 row
  /// 2t + 1 (not t and t + 4), the order of A built by f32Operands from
  /// accumulator values (P of P V).
  SmallVector<Value, 4> loadBFromRows(const SwizzledTile &tile,
                                      Value tileStart, Value firstRow,
                                      Value firstChunk,
                                      bool rowsInPairs = false);
  /// f32 values as the TF32 operand registers the loads give: each
  /// rounded, or split (its TF32 parts, then the rests').
  SmallVector<Value, 4> f32Operands(ArrayRef<Value> values);
  /// c += a b on two 16 x 8 tiles: `a` four registers, `bPair` the four of
  /// a load above (eight each where split), `c` the two tiles' eight f32
  /// accumulators (four each, in fragment order), updated in place.
  void multiplyPair(ArrayRef<Value> a, ArrayRef<Value> bPair,
                    MutableArrayRef<Value> c);

private:
  SmallVector<Value, 4> loadMatrices(Value offset, bool transpose);
  /// `value` (f32) rounded to TF32, as the 32-bit register mma.sync takes.
  Value toTf32(Value value);

  IndexBuilder &idx;
  Value shared;
  Type element;
  bool splitF32;
  /// lane % 16, lane / 16, lane % 8 and (lane / 8) % 2; for TF32 also
  /// lane % 4 and (lane / 4) % 4.
  Value lane16, laneHalf, lane8, laneQuarter, laneInGroup, laneWord;
};

} // namespace mlir::fk

#endif // FKC_CODEGEN_WARPMMA_H
