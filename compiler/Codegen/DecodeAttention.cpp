//===- DecodeAttention.cpp - attention with few query rows ----------------===//
//
// See DecodeAttention.h for the kernel's plan. Scores live in log2 units:
// the query is scaled by scale * log2(e) once, the mask by log2(e), so each
// probability is one ex2.
//
//===----------------------------------------------------------------------===//

#include "Codegen/DecodeAttention.h"
#include "Codegen/AttentionShape.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/RuntimeSizes.h"
#include "Codegen/SharedMemory.h"
#include "Codegen/TileEpilogue.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

/// Threads of a decode block: four warps, so that blocks of several
/// attentions' heads share the SMs; the key splits supply the parallelism.
static constexpr int64_t kDecodeThreads = 128;

DecodeAttentionLayout DecodeAttentionLayout::get(AttentionOp attention) {
  AttentionShape shape(attention);
  DecodeAttentionLayout layout;
  layout.width = 16 / shape.elementBytes();
  while (layout.width > 1 && (shape.headDim % layout.width != 0 ||
                              shape.valueHeadDim % layout.width != 0))
    layout.width /= 2;
  int64_t accesses =
      llvm::divideCeil(std::max(shape.headDim, shape.valueHeadDim), layout.width);
  layout.lanesPerKey =
      std::min<int64_t>(32, llvm::PowerOf2Ceil(std::max<int64_t>(1, accesses)));
  int64_t laneSpan = layout.width * layout.lanesPerKey;
  layout.keyChunks = llvm::divideCeil(shape.headDim, laneSpan);
  layout.valueChunks = llvm::divideCeil(shape.valueHeadDim, laneSpan);
  // Two keys in flight per slot: with four, a block of f16 rows of 128
  // took 94 registers (5 blocks per SM) and ran slower at every size
  // measured (H100: docs/attention.md, "Decode").
  layout.keysInFlight = 2;
  return layout;
}

bool mlir::fk::prefersDecodeAttention(AttentionOp attention,
                                      TargetAttr target) {
  AttentionShape shape(attention);
  // The flash kernel's blocks for few queries: one per batch (at the fewest
  // batches of a run when their count is symbolic).
  return shape.masked || shape.getFewestBatches() < target.getSmCount();
}

namespace {
/// How many key splits the decode kernel runs: as many as one wave of
/// resident blocks holds (kResidentBlocksPerSm per SM), keeping two rounds
/// of keys per slot. Blocks of a split have equal work, so a wave that is
/// not full leaves SMs idle for a block's whole time: on an H100, 1024
/// blocks (4 splits of 256) ran in 0.184 ms where 1280 (5 splits) took
/// 0.214 ms (docs/attention.md, "Decode").
///
/// Where keys or batches are given at run time, the tiling's count is that
/// of the bounds' keys (kUnboundedSizeGuess without one) and the fewest
/// batches (the most any run needs), and
/// each run launches the count of its own sizes, at most the tiling's: a
/// run of few keys or many batches is not split for the bounds.
struct DecodeSplitHeuristic {
  /// Blocks of 128 threads resident per SM where they take at most 64
  /// registers (f16 and bf16 rows up to 128 wide take about 61).
  static constexpr int64_t kResidentBlocksPerSm = 8;
  /// Blocks resident on the GPU; blocks per batch; keys per split at least.
  int64_t residentBlocks, queryBlocks, leastKeys;

  DecodeSplitHeuristic(AttentionOp attention, TargetAttr target, int64_t rows,
                       int64_t threads) {
    DecodeAttentionLayout layout = DecodeAttentionLayout::get(attention);
    residentBlocks = kResidentBlocksPerSm * target.getSmCount();
    queryBlocks = llvm::divideCeil(AttentionShape(attention).queries, rows);
    leastKeys = 2 * layout.getSlots(threads) * layout.keysInFlight;
  }
  int64_t choose(int64_t keys, int64_t batches) const {
    return std::clamp<int64_t>(
        std::min<int64_t>(residentBlocks / (queryBlocks * batches),
                          keys / leastKeys),
        1, 65535);
  }
  /// `choose` of a run's `keys` and `batches` (index values, on the host
  /// or the GPU), at most `most`: max(1, min(most, floor(resident /
  /// blocks), floor(keys / least))), each floor(x / y) written as
  /// ceil((x + 1) / y) - 1 for the manifest's size expressions.
  Value emit(OpBuilder &b, Location loc, Value keys, Value batches,
             int64_t most) const {
    // Folded as built: sizes known when compiled leave constants.
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto ceilDiv = [&](Value x, Value y) {
      return b.createOrFold<arith::CeilDivUIOp>(loc, x, y);
    };
    auto add = [&](Value x, int64_t y) {
      return b.createOrFold<arith::AddIOp>(loc, x, constant(y));
    };
    auto min = [&](Value x, Value y) {
      return b.createOrFold<arith::MinUIOp>(loc, x, y);
    };
    auto max = [&](Value x, int64_t y) {
      return b.createOrFold<arith::MaxUIOp>(loc, x, constant(y));
    };
    if (queryBlocks != 1)
      batches = b.createOrFold<arith::MulIOp>(loc, batches,
                                              constant(queryBlocks));
    auto floorDiv = [&](Value x, Value y) {
      return add(ceilDiv(add(x, 1), y), -1);
    };
    Value byBlocks = floorDiv(constant(residentBlocks), max(batches, 1));
    Value byKeys = floorDiv(keys, constant(leastKeys));
    return max(min(byBlocks, min(byKeys, constant(most))), 1);
  }
};
} // namespace

TilingAttr mlir::fk::chooseDecodeAttentionTiling(AttentionOp attention,
                                                 TargetAttr target) {
  AttentionShape shape(attention);
  int64_t rows = std::min(shape.queries, kDecodeRowsPerBlock);
  int64_t splits =
      DecodeSplitHeuristic(attention, target, rows, kDecodeThreads)
          .choose(shape.keys, shape.getFewestBatches());
  return TilingAttr::get(attention.getContext(), KernelStrategy::Decode,
                         {rows, splits}, kDecodeThreads);
}

std::string mlir::fk::checkDecodeAttentionTiling(AttentionOp attention,
                                                 TilingAttr tiling) {
  std::string why = whyNotDecodeAttention(attention);
  if (!why.empty())
    return why;
  ArrayRef<int64_t> tile = tiling.getTile();
  if (tile.size() != 2)
    return "expects two tile sizes: query rows per block, key splits";
  if (tile[0] > kDecodeRowsPerBlock)
    return "a block takes at most " + std::to_string(kDecodeRowsPerBlock) +
           " query rows";
  if (tile[1] > 65535)
    return "at most 65535 key splits (the grid's z)";
  return "";
}

std::pair<MemRefType, MemRefType>
mlir::fk::getDecodeAttentionPartialTypes(AttentionOp attention,
                                         const DecodeAttentionTiling &tiling) {
  AttentionShape shape(attention);
  Type f32 = Float32Type::get(attention.getContext());
  // A symbolic batch count's partials are sized at its bound; without one
  // they are sized per run (fk-lower-to-gpu) and the kernels see them with
  // a placeholder extent.
  std::optional<int64_t> largest =
      getLargestSize(shape.getBatchCount(), getDimBounds(attention));
  int64_t batch = largest.value_or(getPlaceholderExtent(
      shape.queries * tiling.splits * std::max<int64_t>(2, shape.valueHeadDim)));
  return {MemRefType::get({batch, shape.queries, tiling.splits, 2}, f32),
          MemRefType::get(
              {batch, shape.queries, tiling.splits, shape.valueHeadDim}, f32)};
}

namespace {
/// Builds either kernel; see the file comment of DecodeAttention.h.
class DecodeKernel {
public:
  DecodeKernel(FusionOp fusion, const DecodeAttentionTiling &tiling,
               gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels,
               unsigned firstBuffer)
      : k(fusion, kernel, kernels, firstBuffer), tiling(tiling),
        attention(fusion.getAttention()), shape(attention),
        layout(DecodeAttentionLayout::get(attention)), b(k.b), loc(k.loc),
        kernel(kernel) {
    if (firstBuffer == 2) {
      Block &entry = kernel.getBody().front();
      stats = entry.getArgument(0);
      partial = entry.getArgument(1);
    }
  }

  FailureOr<LaunchShape> buildSplitKernel();
  FailureOr<LaunchShape> buildCombineKernel();

private:
  Value index(int64_t v) { return k.idx.constant(v); }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value minusInf() { return f32(-std::numeric_limits<double>::infinity()); }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value maxF(Value x, Value y) {
    return arith::MaxNumFOp::create(b, loc, x, y);
  }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  /// The block's coordinates, common to both kernels.
  void setUpBlock();
  /// `width` adjacent elements of `flat` from `start`, loaded together.
  SmallVector<Value> loadRun(Value flat, Value start, Type elementType);
  /// A partial result over some keys: max m, sum l and output o of one
  /// output element, or their total over several parts.
  struct Part {
    Value max, sum, output;
  };
  /// The total of `count` parts, part p given by `partAt(p)`: M = max m,
  /// L = sum l 2^(m - M), O = sum o 2^(m - M); a part with m = -inf saw no
  /// key and weighs 0.
  Part combineParts(int64_t count, function_ref<Part(int64_t)> partAt);
  /// `body(r, column)` for each element of the block's [rows, Dv] output,
  /// thread t taking elements t, t + threads, ...
  void forEachOutputElement(function_ref<void(Value, Value)> body);
  /// Stores O / L of element (row, column) of the output tile: NaN for a
  /// row whose keys are all hidden (L = 0), as the unfused softmax gives,
  /// and 0 in a run without keys, as the unfused product over no keys.
  void storeOutput(Value tile, Value row, Value column, Value o, Value l);
  /// Runs the fusion's epilogue on the f32 tile [rows, Dv] in shared memory.
  LogicalResult epilogue(Value tile);
  Value addSharedBuffer(ArrayRef<int64_t> dims) {
    return kernel.addWorkgroupAttribution(
        getSharedMemRefType(b.getContext(), dims, b.getF32Type()), loc);
  }

  KernelContext k;
  const DecodeAttentionTiling &tiling;
  AttentionOp attention;
  AttentionShape shape;
  DecodeAttentionLayout layout;
  OpBuilder &b;
  Location loc;
  gpu::GPUFuncOp kernel;
  /// The partial results' buffers (several splits only).
  Value stats, partial;

  Value thread, firstRow, batch;
  SmallVector<Value> batchCoords;
  /// The query rows and keys, given at run time or not (query rows at run
  /// time in a row variant's kernel: RowVariants.h).
  Value numQueries, numKeys;
  /// The last query row; rows past it compute it again and store nothing.
  Value lastQuery() {
    return b.createOrFold<arith::SubIOp>(loc, numQueries, index(1));
  }
  /// The grid's row blocks, computed per run where the query rows are.
  void setRowBlocks(LaunchShape &launch) const {
    launch.grid[0] = llvm::divideCeil(shape.queries, tiling.rows);
    if (shape.queryRows.isStatic())
      return;
    launch.gridWork = shape.queryRows;
    launch.workPerBlock = tiling.rows;
    launch.maxBlocks = launch.grid[0];
  }

  /// Whether each run launches the key splits of its own sizes, at most
  /// tiling.splits (see DecodeSplitHeuristic).
  bool splitsPerRun() const {
    return tiling.splits > 1 && (!shape.keyRows.isStatic() ||
                                 !shape.getBatchCount().isStatic());
  }
  /// The heuristic that counts a run's splits.
  FailureOr<DecodeSplitHeuristic> getSplitHeuristic() {
    FailureOr<TargetAttr> target = getTarget(attention, "fk-lower-to-gpu");
    if (failed(target))
      return failure();
    return DecodeSplitHeuristic(attention, *target, tiling.rows,
                                tiling.threads);
  }
};
} // namespace

void DecodeKernel::setUpBlock() {
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(tiling.threads), 1, 1}));
  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  firstRow = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                 index(tiling.rows));
  batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchCoords = k.idx.delinearize(batch, shape.batch);
  numQueries = k.idx.sizeValue(shape.queryRows);
  numKeys = k.idx.sizeValue(shape.keyRows);
}

SmallVector<Value> DecodeKernel::loadRun(Value flat, Value start,
                                         Type elementType) {
  int64_t width = layout.width;
  // A view of the run, read at constant offsets with the run's alignment on
  // the first: LLVM merges the loads into one vector load (as
  // FlatAddressing arranges for the other kernels).
  Value view = memref::SubViewOp::create(
      b, loc, flat, ArrayRef<OpFoldResult>{start},
      ArrayRef<OpFoldResult>{b.getIndexAttr(width)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  int64_t bytes = width * elementType.getIntOrFloatBitWidth() / 8;
  SmallVector<Value> values;
  for (int64_t e = 0; e < width; ++e)
    values.push_back(memref::LoadOp::create(
        b, loc, view, ValueRange{index(e)}, /*nontemporal=*/false,
        e == 0 ? llvm::MaybeAlign(std::min<int64_t>(16, bytes))
               : llvm::MaybeAlign()));
  return values;
}

DecodeKernel::Part
DecodeKernel::combineParts(int64_t count, function_ref<Part(int64_t)> partAt) {
  SmallVector<Part> parts;
  Value most = minusInf();
  for (int64_t p = 0; p < count; ++p) {
    parts.push_back(partAt(p));
    most = maxF(most, parts.back().max);
  }
  Part total{most, f32(0), f32(0)};
  for (const Part &part : parts) {
    // 2^(m - M), and 0 for a part that saw no key (m = -inf; also when
    // every part saw none, where m - M would be NaN).
    Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                       part.max, minusInf());
    Value weight = arith::SelectOp::create(
        b, loc, none, f32(0),
        emitFastExp2(b, loc, arith::SubFOp::create(b, loc, part.max, most)));
    total.sum = fma(part.sum, weight, total.sum);
    total.output = fma(part.output, weight, total.output);
  }
  return total;
}

void DecodeKernel::forEachOutputElement(
    function_ref<void(Value, Value)> body) {
  int64_t dv = shape.valueHeadDim;
  auto each = scf::ForOp::create(b, loc, thread, index(tiling.rows * dv),
                                 index(tiling.threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(each.getBody());
  Value element = each.getInductionVar();
  body(arith::DivUIOp::create(b, loc, element, index(dv)),
       arith::RemUIOp::create(b, loc, element, index(dv)));
}

void DecodeKernel::storeOutput(Value tile, Value row, Value column, Value o,
                               Value l) {
  // o / l: with l = 0 (every key hidden) 0 / 0 = NaN, as softmax gives.
  Value result = arith::DivFOp::create(b, loc, o, l);
  // A run without keys: 0, the unfused graph's product over no keys.
  if (!shape.keyRows.isStatic())
    result = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, numKeys,
                              index(0)),
        f32(0), result);
  memref::StoreOp::create(b, loc, result, tile, ValueRange{row, column});
}

LogicalResult DecodeKernel::epilogue(Value tile) {
  gpu::BarrierOp::create(b, loc);
  ResultTile result;
  result.anchor = attention;
  result.tile = tile;
  result.rows = tiling.rows;
  result.columns = shape.valueHeadDim;
  result.firstRow = firstRow;
  result.firstColumn = index(0);
  result.batchCoords = batchCoords;
  result.threads = tiling.threads;
  return emitTileEpilogue(k, result);
}

FailureOr<LaunchShape> DecodeKernel::buildSplitKernel() {
  setUpBlock();
  int64_t rows = tiling.rows, splits = tiling.splits;
  int64_t lanes = layout.lanesPerKey, width = layout.width;
  int64_t slots = layout.getSlots(tiling.threads);
  int64_t inFlight = layout.keysInFlight;
  // The run's splits (the grid's z), given at run time or not; a round of
  // the loop reads inFlight * splits * slots keys.
  Value runSplits = index(splits);
  std::optional<DecodeSplitHeuristic> heuristic;
  if (splitsPerRun()) {
    FailureOr<DecodeSplitHeuristic> found = getSplitHeuristic();
    if (failed(found))
      return failure();
    heuristic = *found;
    runSplits = gpu::GridDimOp::create(b, loc, gpu::Dimension::z);
  }
  Value rounds =
      shape.keyRows.isStatic() && !heuristic
          ? index(llvm::divideCeil(shape.keys, inFlight * splits * slots))
          : arith::CeilDivUIOp::create(
                b, loc, numKeys, mul(runSplits, index(inFlight * slots)));
  int64_t d = shape.headDim, dv = shape.valueHeadDim;
  double log2e = 1.0 / std::log(2.0);

  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value lane = arith::RemUIOp::create(b, loc, thread, index(32));
  Value slot = arith::DivUIOp::create(b, loc, thread, index(lanes));
  Value laneInKey = arith::RemUIOp::create(b, loc, lane, index(lanes));
  // Each operand as one dimension: the fusion input it reads, which is
  // [batch..., rows, dim], or for a head split read in place (fusion H1)
  // [lead..., rows, heads, dim] whose linear batch is lead * heads + head.
  struct Operand {
    Value flat, batch, rows;
    int64_t dim, heads;
    /// The element offset of `row`'s first element in this block's batch.
    Value rowStart(DecodeKernel &kernel, Value row) const {
      IndexBuilder &idx = kernel.k.idx;
      if (!heads)
        return idx.mul(idx.add(idx.mul(batch, rows), row),
                       idx.constant(dim));
      OpBuilder &b = kernel.b;
      Value lead = arith::DivUIOp::create(b, kernel.loc, batch,
                                          idx.constant(heads));
      Value head = arith::RemUIOp::create(b, kernel.loc, batch,
                                          idx.constant(heads));
      Value position = idx.add(idx.mul(lead, rows), row);
      return idx.mul(idx.add(idx.mul(position, idx.constant(heads)), head),
                     idx.constant(dim));
    }
  };
  auto operand = [&](Value value, ArrayRef<Dim> batchDims, Value rows,
                     int64_t dim, int64_t heads) {
    return Operand{
        collapseToOneDim(
            b, loc, k.buffers.lookup(getAttentionOperandInput(value))),
        k.idx.broadcastLinear(batchCoords, batchDims), rows, dim, heads};
  };
  Operand queries = operand(attention.getQuery(), shape.queryBatch,
                            numQueries, d, shape.queryHeads);
  Operand keys =
      operand(attention.getKey(), shape.keyBatch, numKeys, d, shape.keyHeads);
  Operand values = operand(attention.getValue(), shape.valueBatch, numKeys,
                           dv, shape.valueHeads);
  Type element = shape.elementType;

  // The lane's element offset in a row per access: lanes past the head
  // dim (when it is not a multiple of the slot's span) read the row's
  // first elements instead, with a zero query, and store nothing.
  auto laneColumn = [&](int64_t chunk) {
    return add(mul(laneInKey, index(width)), index(chunk * lanes * width));
  };
  auto inRow = [&](int64_t chunk, int64_t dim) -> Value {
    return lessThan(laneColumn(chunk), index(dim));
  };
  auto clampedColumn = [&](int64_t chunk, int64_t dim) -> Value {
    if (dim % (lanes * width) == 0)
      return laneColumn(chunk);
    return arith::SelectOp::create(b, loc, inRow(chunk, dim),
                                   laneColumn(chunk), index(0));
  };
  SmallVector<Value> keyColumns, valueColumns;
  for (int64_t c = 0; c < layout.keyChunks; ++c)
    keyColumns.push_back(clampedColumn(c, d));
  for (int64_t c = 0; c < layout.valueChunks; ++c)
    valueColumns.push_back(clampedColumn(c, dv));

  // The block's query rows (clamped: rows past the queries compute the last
  // one again and are never stored), scaled into log2 units.
  SmallVector<Value> rowIndex;
  SmallVector<SmallVector<Value>> q(rows);
  Value queryFactor = f32(shape.scale * log2e);
  for (int64_t r = 0; r < rows; ++r) {
    Value row =
        arith::MinUIOp::create(b, loc, add(firstRow, index(r)), lastQuery());
    rowIndex.push_back(row);
    Value rowStart = queries.rowStart(*this, row);
    for (int64_t c = 0; c < layout.keyChunks; ++c) {
      SmallVector<Value> run =
          loadRun(queries.flat, add(rowStart, keyColumns[c]), element);
      Value keep = d % (lanes * width) == 0 ? Value() : inRow(c, d);
      for (Value raw : run) {
        Value v = arith::MulFOp::create(
            b, loc, extendToComputeType(b, loc, raw, element), queryFactor);
        if (keep)
          v = arith::SelectOp::create(b, loc, keep, v, f32(0));
        q[r].push_back(v);
      }
    }
  }

  // The mask input, read per (row, key) as one dimension.
  AttentionShape::MaskAddressing mask;
  Type maskElement;
  if (shape.masked) {
    Value maskBuffer = k.buffers.lookup(attention.getMask());
    maskElement = cast<MemRefType>(maskBuffer.getType()).getElementType();
    mask = shape.addressMask(k.idx, maskBuffer, batchCoords);
  }
  // The last key any row of the block sees under the causal limit: row i
  // sees keys j <= i + Nk - Nq (compared as signed: Nk - Nq may be
  // negative at run time).
  Value causalOffset, lastVisibleKey;
  if (shape.causal) {
    causalOffset = arith::SubIOp::create(b, loc, numKeys, numQueries);
    lastVisibleKey =
        arith::AddIOp::create(b, loc, rowIndex.back(), causalOffset);
  }

  // Carried per row: max, sum, then the output accumulator.
  int64_t outputs = layout.valueChunks * width;
  SmallVector<Value> init;
  for (int64_t r = 0; r < rows; ++r) {
    init.push_back(minusInf());
    init.push_back(f32(0));
    init.append(outputs, f32(0));
  }
  int64_t perRow = 2 + outputs;
  // (A loop round runs only where there is a key: Nk - 1 >= 0.)
  Value lastKey = arith::SubIOp::create(b, loc, numKeys, index(1));
  auto loop = scf::ForOp::create(b, loc, index(0), rounds, index(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value roundIndex = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    // Per key in flight: its index, mask per row (log2 units), whether any
    // row sees it, its key and value rows, its scores per row. Every key's
    // loads are issued before any is used, so that they are in flight
    // together: first the masks, then the rows the masks leave visible.
    struct KeyInFlight {
      Value key, seen;
      SmallVector<Value> maskValues, keyRow, valueRow, scores;
    };
    std::vector<KeyInFlight> flight(inFlight);
    for (auto [u, f] : llvm::enumerate(flight)) {
      Value keyIndex = add(
          mul(add(mul(add(mul(roundIndex, index(inFlight)),
                          index(static_cast<int64_t>(u))),
                      runSplits),
                  split),
              index(slots)),
          slot);
      f.seen = lessThan(keyIndex, numKeys);
      f.key = arith::MinUIOp::create(b, loc, keyIndex, lastKey);
      if (!shape.masked)
        continue;
      Value anyRow;
      for (int64_t r = 0; r < rows; ++r) {
        Value offset = add(add(mask.batchOffset,
                               mul(rowIndex[r], mask.rowStride)),
                           mul(f.key, mask.keyStride));
        Value raw =
            cast<MemRefType>(mask.flat.getType()).getRank() == 0
                ? memref::LoadOp::create(b, loc, mask.flat, ValueRange{})
                : memref::LoadOp::create(b, loc, mask.flat, offset);
        Value m = extendToComputeType(b, loc, raw, maskElement);
        f.maskValues.push_back(arith::MulFOp::create(b, loc, m, f32(log2e)));
        // NaN counts as seen, so that it reaches the result.
        Value visible = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::UNE, m, minusInf());
        anyRow = anyRow ? arith::OrIOp::create(b, loc, anyRow, visible)
                        : visible;
      }
      f.seen = arith::AndIOp::create(b, loc, f.seen, anyRow);
    }
    for (KeyInFlight &f : flight) {
      if (shape.causal)
        f.seen = arith::AndIOp::create(
            b, loc, f.seen,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, f.key,
                                  lastVisibleKey));
      // The key and value rows, read only where some row sees the key.
      Value keyStart = keys.rowStart(*this, f.key);
      Value valueStart = values.rowStart(*this, f.key);
      SmallVector<Type> loadedTypes(
          (layout.keyChunks + layout.valueChunks) * width, element);
      auto ifSeen = scf::IfOp::create(b, loc, loadedTypes, f.seen, true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&ifSeen.getThenRegion().front());
        SmallVector<Value> loaded;
        for (Value column : keyColumns)
          llvm::append_range(
              loaded, loadRun(keys.flat, add(keyStart, column), element));
        for (Value column : valueColumns)
          llvm::append_range(
              loaded, loadRun(values.flat, add(valueStart, column), element));
        scf::YieldOp::create(b, loc, loaded);
        b.setInsertionPointToStart(&ifSeen.getElseRegion().front());
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
        scf::YieldOp::create(b, loc,
                             SmallVector<Value>(loadedTypes.size(), zero));
      }
      int64_t keyValues = layout.keyChunks * width;
      for (auto [i, raw] : llvm::enumerate(ifSeen.getResults()))
        (static_cast<int64_t>(i) < keyValues ? f.keyRow : f.valueRow)
            .push_back(raw);
    }
    for (KeyInFlight &f : flight) {
      for (Value &v : f.keyRow)
        v = extendToComputeType(b, loc, v, element);
      for (Value &v : f.valueRow)
        v = extendToComputeType(b, loc, v, element);
      // The scores: partial dot products, summed over the slot's lanes.
      for (int64_t r = 0; r < rows; ++r) {
        Value dot = f32(0);
        for (auto [qv, kv] : llvm::zip(q[r], f.keyRow))
          dot = fma(qv, kv, dot);
        for (int64_t offset = lanes / 2; offset >= 1; offset /= 2)
          dot = arith::AddFOp::create(
              b, loc, dot,
              gpu::ShuffleOp::create(
                  b, loc, dot,
                  arith::ConstantOp::create(b, loc,
                                            b.getI32IntegerAttr(offset)),
                  arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32)),
                  gpu::ShuffleMode::XOR)
                  .getShuffleResult());
        if (shape.masked)
          dot = arith::AddFOp::create(b, loc, dot, f.maskValues[r]);
        Value visible = f.seen;
        if (shape.causal)
          visible = arith::AndIOp::create(
              b, loc, visible,
              arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::sle, f.key,
                  arith::AddIOp::create(b, loc, rowIndex[r], causalOffset)));
        f.scores.push_back(
            arith::SelectOp::create(b, loc, visible, dot, minusInf()));
      }
    }

    // The online softmax per row over the keys in flight.
    SmallVector<Value> next;
    for (int64_t r = 0; r < rows; ++r) {
      Value oldMax = carried[r * perRow], oldSum = carried[r * perRow + 1];
      Value newMax = oldMax;
      for (int64_t u = 0; u < inFlight; ++u)
        newMax = maxF(newMax, flight[u].scores[r]);
      // A row that has seen nothing keeps max -inf; subtracting 0 instead
      // keeps its weights 0 rather than NaN (-inf - -inf).
      Value usable = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax,
                                minusInf()),
          f32(0), newMax);
      Value alpha =
          emitFastExp2(b, loc, arith::SubFOp::create(b, loc, oldMax, usable));
      SmallVector<Value> p;
      Value sum = arith::MulFOp::create(b, loc, oldSum, alpha);
      for (int64_t u = 0; u < inFlight; ++u) {
        p.push_back(emitFastExp2(
            b, loc, arith::SubFOp::create(b, loc, flight[u].scores[r], usable)));
        sum = arith::AddFOp::create(b, loc, sum, p.back());
      }
      next.push_back(newMax);
      next.push_back(sum);
      for (int64_t i = 0; i < outputs; ++i) {
        Value o = arith::MulFOp::create(b, loc, carried[r * perRow + 2 + i],
                                        alpha);
        for (int64_t u = 0; u < inFlight; ++u)
          o = fma(p[u], flight[u].valueRow[i], o);
        next.push_back(o);
      }
    }
    scf::YieldOp::create(b, loc, next);
  }
  ValueRange results = loop.getResults();

  // The slots' parts meet in shared memory.
  Value slotStats = addSharedBuffer({slots, rows, 2});
  Value slotOutputs = addSharedBuffer({slots, rows, dv});
  Value isFirstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneInKey,
                            index(0));
  for (int64_t r = 0; r < rows; ++r) {
    auto ifFirst = scf::IfOp::create(b, loc, isFirstLane, false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      for (int64_t s = 0; s < 2; ++s)
        memref::StoreOp::create(b, loc, results[r * perRow + s], slotStats,
                                ValueRange{slot, index(r), index(s)});
    }
    for (int64_t c = 0; c < layout.valueChunks; ++c) {
      Value column = laneColumn(c);
      auto store = [&]() {
        for (int64_t e = 0; e < width; ++e)
          memref::StoreOp::create(
              b, loc, results[r * perRow + 2 + c * width + e], slotOutputs,
              ValueRange{slot, index(r), add(column, index(e))});
      };
      if (dv % (lanes * width) == 0) {
        store();
        continue;
      }
      auto ifInRow = scf::IfOp::create(b, loc, inRow(c, dv), false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifInRow.getThenRegion().front());
      store();
    }
  }
  gpu::BarrierOp::create(b, loc);

  // The slots' parts combine per output element.
  Value tile = splits == 1 ? addSharedBuffer({rows, dv}) : Value();
  forEachOutputElement([&](Value r, Value column) {
    Part total = combineParts(slots, [&](int64_t p) {
      auto load = [&](Value buffer, Value last) -> Value {
        return memref::LoadOp::create(b, loc, buffer,
                                      ValueRange{index(p), r, last});
      };
      return Part{load(slotStats, index(0)), load(slotStats, index(1)),
                  load(slotOutputs, column)};
    });
    if (splits == 1)
      return storeOutput(tile, r, column, total.output, total.sum);
    Value row = add(firstRow, r);
    auto ifRow =
        scf::IfOp::create(b, loc, lessThan(row, numQueries), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifRow.getThenRegion().front());
    memref::StoreOp::create(b, loc, total.output, partial,
                            ValueRange{batch, row, split, column});
    auto ifFirstColumn = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, column,
                              index(0)),
        false);
    b.setInsertionPointToStart(&ifFirstColumn.getThenRegion().front());
    memref::StoreOp::create(b, loc, total.max, stats,
                            ValueRange{batch, row, split, index(0)});
    memref::StoreOp::create(b, loc, total.sum, stats,
                            ValueRange{batch, row, split, index(1)});
  });
  if (splits == 1 && failed(epilogue(tile)))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  setRowBlocks(launch);
  launch.grid[2] = splits;
  shape.setBatchGrid(launch);
  shape.limitLengths(launch);
  if (heuristic)
    launch.gridZ = [heuristic = *heuristic, keys = shape.keyRows,
                    batches = shape.getBatchCount(),
                    splits](OpBuilder &b, Location loc,
                            function_ref<Value(const Dim &)> size) {
      return heuristic.emit(b, loc, size(keys), size(batches), splits);
    };
  launch.block = {tiling.threads, 1, 1};
  return launch;
}

FailureOr<LaunchShape> DecodeKernel::buildCombineKernel() {
  setUpBlock();
  int64_t rows = tiling.rows, dv = shape.valueHeadDim;
  Value tile = addSharedBuffer({rows, dv});
  // The splits the run launched (those past them wrote no partials).
  Value runSplits = index(tiling.splits);
  if (splitsPerRun()) {
    FailureOr<DecodeSplitHeuristic> heuristic = getSplitHeuristic();
    if (failed(heuristic))
      return failure();
    runSplits = heuristic->emit(b, loc, numKeys,
                                k.idx.sizeValue(shape.getBatchCount()),
                                tiling.splits);
  }
  forEachOutputElement([&](Value r, Value column) {
    // Rows past the queries combine the last row again; never stored.
    Value row = arith::MinUIOp::create(b, loc, add(firstRow, r), lastQuery());
    // The splits' parts one after another (a loop: up to 65535 of them),
    // as an online softmax takes its keys: M' = max(M, m), L' = L 2^(M -
    // M') + l 2^(m - M'), O' alike; a part or total that saw no key (-inf)
    // weighs 0, M' = -inf subtracting 0 rather than giving NaN.
    auto loop = scf::ForOp::create(b, loc, index(0), runSplits, index(1),
                                   ValueRange{minusInf(), f32(0), f32(0)});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value p = loop.getInductionVar();
      auto load = [&](Value buffer, Value last) -> Value {
        return memref::LoadOp::create(b, loc, buffer,
                                      ValueRange{batch, row, p, last});
      };
      Value m = load(stats, index(0)), l = load(stats, index(1)),
            o = load(partial, column);
      ValueRange total = loop.getRegionIterArgs();
      Value most = maxF(total[0], m);
      Value usable = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, most,
                                minusInf()),
          f32(0), most);
      Value kept = emitFastExp2(b, loc,
                                arith::SubFOp::create(b, loc, total[0], usable));
      Value weight =
          emitFastExp2(b, loc, arith::SubFOp::create(b, loc, m, usable));
      scf::YieldOp::create(
          b, loc,
          ValueRange{most,
                     fma(l, weight, arith::MulFOp::create(b, loc, total[1], kept)),
                     fma(o, weight,
                         arith::MulFOp::create(b, loc, total[2], kept))});
    }
    storeOutput(tile, r, column, loop.getResult(2), loop.getResult(1));
  });
  if (failed(epilogue(tile)))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  setRowBlocks(launch);
  shape.setBatchGrid(launch);
  shape.limitLengths(launch);
  launch.block = {tiling.threads, 1, 1};
  return launch;
}

FailureOr<LaunchShape>
mlir::fk::buildDecodeAttentionKernel(FusionOp fusion,
                                     const DecodeAttentionTiling &tiling,
                                     gpu::GPUFuncOp kernel,
                                     gpu::GPUModuleOp kernels) {
  return DecodeKernel(fusion, tiling, kernel, kernels,
                      /*firstBuffer=*/tiling.splits > 1 ? 2 : 0)
      .buildSplitKernel();
}

FailureOr<LaunchShape> mlir::fk::buildDecodeAttentionCombineKernel(
    FusionOp fusion, const DecodeAttentionTiling &tiling,
    gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels) {
  return DecodeKernel(fusion, tiling, kernel, kernels, /*firstBuffer=*/2)
      .buildCombineKernel();
}
