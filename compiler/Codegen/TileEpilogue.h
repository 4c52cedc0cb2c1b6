//===- TileEpilogue.h - a fusion's epilogue on a tile in shared memory -*- C++ -*-===//
//
// The tensor-core matmul and the flash-attention kernels end alike: the f32
// tile of their matmul's or attention's result lies in shared memory, and
// the block evaluates the fusion's elementwise epilogue on it and stores
// every result element once, in runs of adjacent elements (16-byte loads
// and stores).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TILEEPILOGUE_H
#define FKC_CODEGEN_TILEEPILOGUE_H

#include "Codegen/KernelEmission.h"

namespace mlir::fk {

/// A tile of the result of `anchor` (the fusion's matmul or attention).
struct ResultTile {
  Operation *anchor = nullptr;
  /// f32 shared memref [rows x columns] holding the tile.
  Value tile;
  /// A matmul pair's second matmul, whose tile lies `columns` columns to
  /// the right of the first's in `tile`.
  Operation *pairedAnchor = nullptr;
  /// The fusion's results the tile holds elements of (a matmul group's
  /// tile holds one product's): their indices, or every result when empty.
  SmallVector<unsigned> results;
  int64_t rows = 0, columns = 0;
  /// The coordinates of the tile's first element in the result's last two
  /// dims, and the result's batch coordinates.
  Value firstRow, firstColumn;
  SmallVector<Value> batchCoords;
  /// When not empty, the tile's rows run over the result's batch dims and
  /// its rows together (a matmul whose right operand has no batch dims
  /// computed as one product of batch x M rows): `firstRow` counts such
  /// rows, which delinearize into these batch dims, then the row.
  SmallVector<Dim> rowBatchShape;
  /// Threads that store the tile, and the thread's index among them (by
  /// default: every thread of the block, the thread id).
  int64_t threads = 128;
  Value thread;
  /// Whether `tile`'s columns are swizzled (getSwizzledTileColumn): its
  /// writer stored element (r, c) at column getSwizzledTileColumn(r, c).
  bool swizzled = false;
};

/// Whether an f32 `tile` [rows x columns] can have its columns swizzled:
/// its rows hold whole groups of 32 columns (eight 16-byte chunks).
bool canSwizzleTileColumns(MemRefType tile);

/// The column at which an f32 tile with swizzled columns stores element
/// (row, column): the 16-byte chunk `column / 4` XOR-ed with `row % 8` and
/// with `column / 32 % 2` (a permutation of the eight chunks of a group of
/// 32 columns; a chunk's four elements stay in order). wgmma's accumulator
/// fragment gives a warp's lanes 8 rows of 4 column pairs; at a plain row
/// stride of 64 or 256 floats those rows share their banks (8-way
/// conflicts), here they spread over all 32. A warp reading 16-byte halves
/// of 8-column runs along a row (the epilogue's loads) also meets every
/// bank once per 8 lanes. `column` is the first of up to 4 elements of one
/// chunk; the others follow it.
Value getSwizzledTileColumn(KernelContext &k, Value row, Value column);

/// Emits the epilogue of `k.fusion` on `tile`: elements outside the result
/// are not stored. The caller makes the tile visible to every thread first.
LogicalResult emitTileEpilogue(KernelContext &k, const ResultTile &tile);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TILEEPILOGUE_H
