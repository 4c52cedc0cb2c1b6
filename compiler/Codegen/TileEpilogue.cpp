//===- TileEpilogue.cpp - a fusion's epilogue on a tile in shared memory --===//

#include "Codegen/TileEpilogue.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkScalarSemantics.h"

using namespace mlir;
using namespace mlir::fk;

/// The most runs of a tile per thread that the epilogue unrolls together.
static constexpr int64_t kUnrolledRuns = 4;

namespace {
/// What every run of a tile's epilogue shares: the result's dims and its
/// innermost size, the adjacent output elements per run, and the result's
/// rows over [batch..., M].
struct RunLayout {
  SmallVector<Dim> dims;
  int64_t n = 0;
  int64_t width = 1;
  SmallVector<OpFoldResult> rowSpace;
};
} // namespace

/// The epilogue of one run of the tile, its `width` elements from
/// (localRow, localColumn) of the tile, (row, column) of the result's rows,
/// at the builder's point and unguarded: the caller knows the run lies
/// inside the result.
static LogicalResult emitRun(KernelContext &k, const ResultTile &t,
                             const RunLayout &layout, Value localRow,
                             Value localColumn, Value row, Value column) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto index = [&](int64_t v) { return k.idx.constant(v); };
  Value anchorResult = t.anchor->getResult(0);
  ArrayRef<Dim> dims = layout.dims;
  int64_t n = layout.n, width = layout.width;
  ArrayRef<OpFoldResult> rowSpace = layout.rowSpace;
  // The result coordinates of the run's row: batch coordinates, then the
  // row within its matrix.
  SmallVector<Value> rowCoords(t.batchCoords);
  if (t.rowBatchShape.empty())
    rowCoords.push_back(row);
  else
    llvm::append_range(rowCoords, k.idx.delinearize(row, rowSpace));
  Value matrixRow = rowCoords.back();
  ElementEmitter emitter = k.makeEmitter();
  SmallVector<Value> columns;
  for (int64_t e = 0; e < width; ++e)
    columns.push_back(e == 0 ? column : k.idx.add(column, index(e)));
  emitter.vectorStart.width = width;
  emitter.vectorStart.addRun(column, columns);
  // The run's values, read together (adjacent loads LLVM merges into vector
  // loads), before any epilogue arithmetic.
  DenseMap<Value, Value> sums, pairedSums;
  // In a swizzled tile, each 16-byte chunk (or the run, when narrower)
  // moves as a whole: its elements follow its first.
  int64_t chunk = std::min<int64_t>(width, 4);
  auto loadRun = [&](DenseMap<Value, Value> &into, int64_t offset) {
    Value start;
    for (auto [e, c] : llvm::enumerate(columns)) {
      int64_t first = offset + static_cast<int64_t>(e) / chunk * chunk;
      if (static_cast<int64_t>(e) % chunk == 0) {
        start = first == 0 ? localColumn : k.idx.add(localColumn, index(first));
        if (t.swizzled)
          start = getSwizzledTileColumn(k, localRow, start);
      }
      int64_t inChunk = offset + static_cast<int64_t>(e) - first;
      into[c] = memref::LoadOp::create(
          b, loc, t.tile,
          ValueRange{localRow,
                     inChunk == 0 ? start : k.idx.add(start, index(inChunk))});
    }
  };
  loadRun(sums, 0);
  if (t.pairedAnchor)
    loadRun(pairedSums, t.columns);
  Type resultElement = tensorType(anchorResult).getElementType();
  emitter.contractionHook = [&](Operation *op,
                                ArrayRef<Value> coords) -> FailureOr<Value> {
    // The epilogue is elementwise (fk-fuse makes it so): it reads the
    // anchor (or the pair's other matmul) at the run's own coordinates.
    DenseMap<Value, Value> &values = op == t.pairedAnchor ? pairedSums : sums;
    auto it = values.find(coords.back());
    if (coords[coords.size() - 2] != matrixRow || it == values.end())
      return k.fusion.emitOpError()
             << "reads its " << t.anchor->getName()
             << " away from the output element";
    // The anchor's value is its f32 value rounded to its element type.
    return roundToElementType(b, loc, it->second, resultElement);
  };
  // The results the tile holds, and their buffers.
  SmallVector<Value> yielded, buffers;
  ValueRange allYielded =
      cast<YieldOp>(k.fusion.getBody().front().getTerminator()).getValues();
  for (auto [i, value] : llvm::enumerate(allYielded))
    if (t.results.empty() || llvm::is_contained(t.results, i)) {
      yielded.push_back(value);
      buffers.push_back(k.results[i]);
    }
  // Every element of the run first, then the stores: math functions may
  // become branches, and LLVM merges a run's stores into one vector store
  // only when they share a basic block.
  struct Pending {
    Value element, buffer;
    SmallVector<Value> coords;
    Type elementType;
    const VectorStart *run;
  };
  SmallVector<Pending> stores;
  // A head merge of an attention's epilogue (reshape(transpose(e, perm =
  // [0, 2, 1, 3])), e's batch dims possibly regrouped first, or grouped
  // heads merged at once, perm = [0, 3, 1, 2, 4]) is stored from e's
  // element at the run's coordinates [..., h, t, d] to [..., t, h, d] of
  // the transpose, or [..., t, h * D + d] of the reshape (h the flat head
  // of [..., h1, ..., hk, t, d]): the run stays adjacent, at the start of a
  // run of its own.
  struct MergedStore {
    Value source;
    /// The stored coordinates of the run's row, without its column.
    SmallVector<Value> rowCoords;
    /// The run's columns where the merge reshapes [h, d] into one dim.
    SmallVector<Value> columns;
    VectorStart run;
  };
  SmallVector<MergedStore> merged(yielded.size());
  if (isa<AttentionOp>(t.anchor))
    for (auto [value, m] : llvm::zip(yielded, merged)) {
      TransposeOp transpose;
      m.source = getHeadMergeSource(value, &transpose);
      if (!m.source)
        continue;
      // The row in the transpose's operand: [batch..., t], the batch
      // regrouped (the same linear batch) when the merge regroups it.
      SmallVector<Dim> heads = getDims(tensorType(transpose.getOperand()));
      ArrayRef<Dim> headBatch = ArrayRef(heads).drop_back(2),
                    anchorBatch = ArrayRef(dims).drop_back(2);
      SmallVector<Value> row(rowCoords);
      if (headBatch != anchorBatch) {
        Value batch =
            k.idx.linearize(t.batchCoords, k.idx.shapeOf(anchorBatch));
        row = k.idx.delinearize(batch, headBatch);
        row.push_back(rowCoords.back());
      }
      // [..., h1, ..., hk, t] -> [..., t, h1, ..., hk].
      int64_t headDims = getHeadMergeDims(transpose);
      std::rotate(row.end() - 1 - headDims, row.end() - 1, row.end());
      m.run = emitter.vectorStart;
      if (tensorType(value).getRank() < tensorType(transpose).getRank()) {
        // The merged column of [h1, ..., hk, d]: the flat head times D.
        SmallVector<Value> headCoords(row.end() - headDims, row.end());
        row.truncate(row.size() - headDims);
        Value head = k.idx.linearize(
            headCoords,
            k.idx.shapeOf(ArrayRef(heads).drop_back(2).take_back(headDims)));
        Value start = k.idx.add(k.idx.mul(head, index(n)), column);
        for (int64_t e = 0; e < width; ++e)
          m.columns.push_back(e == 0 ? start : k.idx.add(start, index(e)));
        m.run.addRun(start, m.columns);
      }
      m.rowCoords = std::move(row);
    }
  for (auto [e, c] : llvm::enumerate(columns)) {
    SmallVector<Value> coords(rowCoords);
    coords.push_back(c);
    for (auto [value, buffer, m] : llvm::zip(yielded, buffers, merged)) {
      FailureOr<Value> element =
          emitter.emit(m.source ? m.source : value, coords);
      if (failed(element))
        return failure();
      if (!m.source) {
        stores.push_back({*element, buffer, coords,
                          tensorType(value).getElementType(),
                          &emitter.vectorStart});
        continue;
      }
      SmallVector<Value> stored(m.rowCoords);
      stored.push_back(m.columns.empty() ? c : m.columns[e]);
      stores.push_back({*element, buffer, stored,
                        tensorType(value).getElementType(), &m.run});
    }
  }
  for (Pending &store : stores)
    k.store(store.element, store.buffer, store.coords, store.elementType,
            *store.run, emitter.addressing);
  return success();
}

LogicalResult mlir::fk::emitTileEpilogue(KernelContext &k,
                                         const ResultTile &t) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto index = [&](int64_t v) { return k.idx.constant(v); };
  RunLayout layout;
  auto resultType = tensorType(t.anchor->getResult(0));
  layout.dims = getDims(resultType);
  layout.n = resultType.getShape().back();
  // Rows over [batch..., M] when the tile's rows span batches (sizes the
  // kernel reads at run time where they are symbolic).
  SmallVector<Dim> rowDims(t.rowBatchShape);
  rowDims.push_back(layout.dims[layout.dims.size() - 2]);
  layout.rowSpace = k.idx.shapeOf(rowDims);
  std::optional<Dim> rowCount = elementCount(rowDims);
  if (!rowCount)
    return k.fusion.emitOpError() << "has more result rows than 64 bits count";

  // Runs of `width` adjacent output elements per thread; N is a multiple of
  // the width, so a run is entirely inside the output or entirely outside.
  int64_t n = layout.n;
  int64_t width = layout.width = getVectorWidth(k.fusion, n);
  int64_t runsPerRow = t.columns / width;
  int64_t runs = t.rows * runsPerRow;
  Value thread = t.thread ? t.thread
                         : gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  OpBuilder::InsertionGuard guard(b);
  auto position = [&](Value run) {
    Value localRow = arith::DivUIOp::create(b, loc, run, index(runsPerRow));
    Value localColumn =
        k.idx.mul(arith::RemUIOp::create(b, loc, run, index(runsPerRow)),
                  index(width));
    return std::array<Value, 4>{localRow, localColumn,
                                k.idx.add(t.firstRow, localRow),
                                k.idx.add(t.firstColumn, localColumn)};
  };
  // Each run guarded by whether it lies inside the result.
  auto emitGuardedRuns = [&]() -> LogicalResult {
    auto loop =
        scf::ForOp::create(b, loc, thread, index(runs), index(t.threads));
    b.setInsertionPointToStart(loop.getBody());
    auto [localRow, localColumn, row, column] =
        position(loop.getInductionVar());
    Value inside = arith::AndIOp::create(
        b, loc, k.idx.inRange(row, k.idx.size(*rowCount)),
        k.idx.inRange(column, n));
    auto ifInside = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    if (failed(emitRun(k, t, layout, localRow, localColumn, row, column)))
      return failure();
    hoistLoads(ifInside.getThenRegion().front());
    return success();
  };
  // A thread's runs of a tile wholly inside the result, unrolled by groups
  // of up to kUnrolledRuns in one block whose device-memory loads (a
  // residual's) are all issued before the first run's arithmetic: in the
  // guarded loop each run waited for its own, and an 8192 x 2048 x 2048
  // product with a residual took 25 us more than without (H200) against
  // 10 us of device bandwidth.
  int64_t perThread = runs / t.threads;
  int64_t group = std::min(perThread, kUnrolledRuns);
  if (runs % t.threads != 0 || perThread < 2 || perThread % group != 0)
    return emitGuardedRuns();
  Value lastRow = k.idx.add(t.firstRow, index(t.rows - 1));
  Value lastColumn = k.idx.add(t.firstColumn, index(t.columns - 1));
  Value whole = arith::AndIOp::create(
      b, loc, k.idx.inRange(lastRow, k.idx.size(*rowCount)),
      k.idx.inRange(lastColumn, n));
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  b.setInsertionPointToStart(&ifWhole.getThenRegion().front());
  // The group's first run: the thread's, then `group` x threads further
  // per group.
  Value first = thread;
  if (perThread > group) {
    auto groups = scf::ForOp::create(b, loc, index(0),
                                     index(perThread / group), index(1));
    b.setInsertionPointToStart(groups.getBody());
    first = k.idx.add(thread, k.idx.mul(groups.getInductionVar(),
                                        index(group * t.threads)));
  }
  Block *groupBlock = b.getInsertionBlock();
  for (int64_t i = 0; i < group; ++i) {
    auto [localRow, localColumn, row, column] =
        position(i == 0 ? first : k.idx.add(first, index(i * t.threads)));
    if (failed(emitRun(k, t, layout, localRow, localColumn, row, column)))
      return failure();
  }
  hoistLoads(*groupBlock);
  issueDeviceLoadsFirst(*groupBlock);
  b.setInsertionPointToStart(&ifWhole.getElseRegion().front());
  return emitGuardedRuns();
}

bool mlir::fk::canSwizzleTileColumns(MemRefType tile) {
  return tile.getRank() == 2 && tile.getElementType().isF32() &&
         !tile.isDynamicDim(1) && tile.getDimSize(1) % 32 == 0;
}

Value mlir::fk::getSwizzledTileColumn(KernelContext &k, Value row,
                                      Value column) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto index = [&](int64_t v) { return k.idx.constant(v); };
  Value rowBits = arith::AndIOp::create(b, loc, row, index(7));
  Value group = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, column, index(5)), index(1));
  Value chunkBits = arith::XOrIOp::create(b, loc, rowBits, group);
  return arith::XOrIOp::create(
      b, loc, column, arith::ShLIOp::create(b, loc, chunkBits, index(2)));
}
