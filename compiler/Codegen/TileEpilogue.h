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
};

/// Emits the epilogue of `k.fusion` on `tile`: elements outside the result
/// are not stored. The caller makes the tile visible to every thread first.
LogicalResult emitTileEpilogue(KernelContext &k, const ResultTile &tile);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TILEEPILOGUE_H
