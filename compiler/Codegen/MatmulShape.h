//===- MatmulShape.h - a matmul fusion as its tiled kernels see it -*- C++ -*-===//
//
// What the two tensor-core matmul kernels (wgmma on sm_90a,
// TensorCoreMatmul.cpp; mma.sync on sm_80 and later, WarpMmaMatmul.cpp)
// share: the product's shape with batches folded into rows where B has
// none, the right operand read K-major from w where it is transpose(w),
// the order in which blocks walk the output tiles, and the fusion's
// epilogue on an f32 tile in shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_MATMULSHAPE_H
#define FKC_CODEGEN_MATMULSHAPE_H

#include "Codegen/KernelEmission.h"

#include <string>

namespace mlir::fk {

/// The transpose `matmul`'s right operand is read through in place (it
/// swaps the last two dims of a fusion input w: x @ transpose(w)), or null.
TransposeOp getKMajorRhs(MatmulOp matmul);

/// The fusion input the tensor-core kernels read `matmul`'s right operand
/// from: the operand, or `w` where the operand is transpose(w) of w's last
/// two dimensions (read K-major, in place).
Value getTensorCoreRhsInput(MatmulOp matmul);

/// The shapes of a matmul whose operands are fusion inputs.
struct MatmulShape {
  /// The product's rows are `m` when known when compiled. Rows given at
  /// run time (a symbolic left operand, RuntimeSizes.h) are `rows`, and `m`
  /// is then their largest size under the graph's bounds, or the row limit
  /// of a row variant's kernel (RowVariants.h): what the tiling heuristics
  /// weigh and workspaces are sized for, never a bound the kernels check.
  int64_t m, n, k;
  Dim rows;
  /// Whether `m` bounds the rows: known when compiled, or given at run time
  /// under bounds (else `m` is kUnboundedSizeGuess).
  bool rowsBounded = true;
  /// B is read K-major from the input it is the transpose of.
  bool rhsKMajor;
  /// The batch dims folded into M: [batch..., M, K] @ [K, N] is one product
  /// of batch x M rows (B is the same for every batch, and A's batches are
  /// consecutive rows, as are the result's), so B is read once, not once per
  /// batch: a decode step's [B, 1, K] @ [K, N] is a B x K x N product.
  SmallVector<Dim> foldedBatch;
  /// Batch dims of the result and of each operand (broadcast to the result's).
  SmallVector<int64_t> batch, lhsBatch, rhsBatch;
  Type elementType;

  explicit MatmulShape(MatmulOp matmul);
  /// Whether the rows are sized at run time: kernels then read `rows` with
  /// IndexBuilder::size.
  bool hasRuntimeRows() const { return !rows.isStatic(); }
  int64_t elementBytes() const {
    return elementType.getIntOrFloatBitWidth() / 8;
  }
  /// Whether A's rows (K long) and B's as read (K-major: K, else N) are
  /// whole 16-byte pieces: what TMA and cp.async copy.
  bool lhsRowsAligned() const { return (k * elementBytes()) % 16 == 0; }
  bool rhsRowsAligned() const {
    return ((rhsKMajor ? k : n) * elementBytes()) % 16 == 0;
  }
  /// Whether the grid walks batches (they are not folded into rows).
  bool batched() const { return !batch.empty(); }
  int64_t batches() const { return ShapedType::getNumElements(batch); }
  /// The matmul is one of a pair (FusionOp::getPairedMatmul): the kernel
  /// computes both products side by side, a tile of tileN columns holding
  /// tileN / 2 output columns of each.
  bool paired = false;
  /// The matmul is one of a group (FusionOp::isMatmulGroup): the N of each
  /// of the group's products, in body order; else empty. The kernel's
  /// column tiles are the first product's, then the second's, ...: a tile
  /// holds columns of one product only.
  SmallVector<int64_t> groupColumns;
  bool grouped() const { return !groupColumns.empty(); }
  /// The columns of the product the kernel computes: N, 2N for a pair, the
  /// sum of the products' for a group.
  int64_t kernelColumns() const {
    if (grouped())
      return llvm::sum_of(groupColumns);
    return paired ? 2 * n : n;
  }
  /// The output columns of a kernel tile tileN columns wide.
  int64_t outputTileColumns(int64_t tileN) const {
    return paired ? tileN / 2 : tileN;
  }
  /// The kernel's column tiles of `outputColumns` output columns each
  /// (outputTileColumns): a group's products each start a tile of their
  /// own.
  int64_t columnTiles(int64_t outputColumns) const {
    if (!grouped())
      return llvm::divideCeil(n, outputColumns);
    int64_t tiles = 0;
    for (int64_t columns : groupColumns)
      tiles += llvm::divideCeil(columns, outputColumns);
    return tiles;
  }
  /// The kernel's tiles of tileM x tileN over every batch: the blocks of a
  /// kernel that computes one tile per block.
  int64_t tiles(int64_t tileM, int64_t tileN) const {
    return llvm::divideCeil(m, tileM) *
           columnTiles(outputTileColumns(tileN)) * batches();
  }
};

/// Why the wgmma kernel cannot read `fusion`'s matmul operands: it takes
/// 16-bit floats, and f32 as TF32 where the module allows TF32 and B is read
/// K-major; then as whyNotOperandTiles; or "" when it can.
std::string whyNotTensorCoreOperands(FusionOp fusion);

/// Why the tiled matmul kernels cannot copy `fusion`'s matmul operands into
/// shared memory: they copy tiles of fusion inputs; or "" when they can.
std::string whyNotOperandTiles(FusionOp fusion);

/// Why the operands' rows are not whole 16-byte pieces, which TMA and
/// cp.async copy (the cp.async kernels then copy element by element), or
/// "".
std::string whyNotAlignedRows(const MatmulShape &shape);

/// Whether 64 x 64 output tiles suit the product better than 128 x 128 on a
/// GPU of `smCount` SMs: where it has at most 64 rows (a 128-row tile would
/// compute at least half zeros), or where 128 x 128 tiles would occupy at
/// most a quarter of the SMs (64 x 64 tiles spread the reads over four
/// times the blocks).
bool prefersNarrowTiles(const MatmulShape &shape, int64_t smCount);

/// The rows of a tileM-row tile that can hold output rows: all of them, or
/// the product's rows when it has fewer (a decode step's one row per
/// sequence), so that no thread walks rows that are never stored. Rows
/// given at run time may fill the tile.
inline int64_t getLiveTileRows(int64_t tileM, const MatmulShape &shape) {
  return shape.hasRuntimeRows() ? tileM : std::min(tileM, shape.m);
}

/// Whether (row, column) of the product lies inside it: row below its rows
/// (the run's when given at run time), column below N.
Value isInsideProduct(KernelContext &k, const MatmulShape &shape, Value row,
                      Value column);

/// The product's tiles of tileM rows: a count the kernel computes from the
/// run's sizes where the rows are given at run time.
OpFoldResult getRowTileCount(KernelContext &k, const MatmulShape &shape,
                             int64_t tileM);

/// Sets grid x of `launch` to the product's tiles of tileM rows, a count
/// computed per run where the rows are given at run time.
void setRowTileGrid(LaunchShape &launch, const MatmulShape &shape,
                    int64_t tileM);

/// The output tile of the block (grid x and y): blocks run in launch order
/// (x fastest), and walked plainly the blocks resident at once span every
/// row tile of a few column tiles, so A is read from device memory again
/// for each such wave when it exceeds L2. Groups of row tiles walk their
/// column tiles together instead: a wave then shares a few A and B panels
/// through L2. Returns the first row and column of the tile. `linearTile`
/// (a persistent kernel's tile of one batch, in launch order) replaces the
/// block's position in the grid when given.
std::pair<Value, Value> emitOutputTileOrigin(KernelContext &k,
                                             const MatmulShape &shape,
                                             int64_t tileM, int64_t tileN,
                                             Value linearTile = Value());

/// The fusion's epilogue on the f32 `tile` (shared memory, at least `rows`
/// x `columns`) of the product, whose first element is at (firstRow,
/// firstColumn) of the product's rows (batches folded into rows included)
/// and `batchCoords`; `threads` threads of the block store every result
/// element the tile holds, `thread` (by default the thread id) being the
/// thread's index among them. A pair's second product lies `columns`
/// columns to the right of the first in `tile`. `swizzled`: the tile's
/// columns are swizzled (getSwizzledTileColumn). `product`: the matmul of a
/// group whose tile it is (`shape` is its shape, firstColumn its column);
/// only its results are stored.
LogicalResult emitMatmulEpilogue(KernelContext &k, const MatmulShape &shape,
                                 Value tile, int64_t rows, int64_t columns,
                                 Value firstRow, Value firstColumn,
                                 ArrayRef<Value> batchCoords, int64_t threads,
                                 Value thread = Value(),
                                 bool swizzled = false,
                                 MatmulOp product = nullptr);

} // namespace mlir::fk

#endif // FKC_CODEGEN_MATMULSHAPE_H
