//===- FlashAttention.cpp - attention fusions as one online-softmax kernel ===//
//
// The block's threads: warpgroup g (128 threads) owns query rows
// [64 g, 64 g + 64) of the block's tile. Thread 0 issues every TMA copy:
// Q once, then K and V blocks into a ring of `stages` slots, each slot on
// its mbarrier. Per key block every warpgroup
//
//   1. waits for the slot, computes S = Q K^T with wgmma (Q and K are
//      K-major 128-byte swizzled tiles, the head dim the reduction axis);
//   2. masks S where the block crosses the causal diagonal or the end of
//      the keys, updates the running max m and sum l of its rows and turns
//      S into P in registers;
//   3. rescales O and adds P V with wgmma, P taken from registers (the f32
//      accumulator layout of S is the 16-bit A-operand layout of P), V an
//      MN-major 128-byte swizzled tile;
//   4. joins a block barrier, after which thread 0 refills the slot with the
//      block `stages` ahead.
//
// Registers: wgmma's m64nN f32 accumulator gives thread t of a warpgroup
// N / 2 values; value i sits at row 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2)
// % 2) and column 8 (i / 4) + 2 (t % 4) + i % 2 of the warpgroup's 64 rows.
// So each thread holds parts of two rows; row max and sum reduce over the
// four threads of a quad with shuffles.
//
// The wgmma groups are inline PTX (fence, the instructions, commit, wait)
// as one asm statement each: nvgpu.warpgroup.mma has no register-A form,
// and one statement keeps the compiler from moving accumulator reads or
// writes across the fence and the wait.
//
// Warp-specialized (FlashAttentionTiling::warpSpecialized, FlashAttention-3's
// structure), warpgroup 0 only copies and warpgroups 1 and 2 (the
// consumers, 64 query rows each) only compute:
//
//   producer   one thread loads Q, then K block n and V block n - 1 into
//              rings of their own, each fill once the consumers released
//              the slot's previous one (an "empty" mbarrier per slot, one
//              arrival per consumer); it gives registers up (setmaxnreg)
//   consumers  per key block n: issue S_n = Q K_n^T, rescale O, issue
//              O += P_{n-1} V_{n-1}, then wait for S_n alone and run the
//              softmax of block n while the tensor cores finish P V: the
//              softmax of one block overlaps the products of the next. The
//              two consumers issue their products in turns (two named
//              barriers), so one's softmax runs under the other's products.
//
// There is no barrier of the whole block after the set-up: the producer
// runs ahead as far as the rings allow.
//
// The mma.sync form (targets from sm_80 without wgmma, and head dims other
// than 64 and 128) differs in the copies and the two products only: every
// thread issues cp.async copies of Q and of the K and V blocks (one commit
// group per slot, waited on before the block barrier), and each warp
// computes S and P V for its 16 rows with mma.sync m16n8k16 on ldmatrix
// fragments. Its accumulators have the layout above (the m16n8 fragment of
// a warp is a wgmma accumulator's), so steps 2 and 3 are the same code.
//
//===----------------------------------------------------------------------===//

#include "Codegen/FlashAttention.h"
#include "Codegen/AttentionShape.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/TileEpilogue.h"
#include "Codegen/WarpMma.h"
#include "fk/IR/FkNumerics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

namespace {
/// Columns of 16-bit elements in one 128-byte swizzled row.
constexpr int64_t kBoxColumns = 64;
/// The warp-specialized block's registers per thread after setmaxnreg
/// (FlashAttention-3's split for three warpgroups: 128 x 24 + 256 x 240 of
/// the SM's 64K): S, O and P of a 128-key block take about 170.
constexpr int64_t kProducerRegisters = 24, kConsumerRegisters = 240;
/// Named barriers (0 is the block's): the consumers', and from
/// kTurnBarrier one per consumer's turn.
constexpr int64_t kComputeBarrier = 1, kTurnBarrier = 2;
} // namespace

SmallVector<Value, 3> mlir::fk::buildAttentionTensorMaps(
    OpBuilder &b, FusionOp fusion, const FlashAttentionTiling &tiling,
    Value query, Value key, Value value,
    function_ref<Value(const Dim &)> hostSize) {
  AttentionShape shape(fusion.getAttention());
  int64_t bytes = shape.elementBytes();
  auto pointer = LLVM::LLVMPointerType::get(b.getContext());
  Location loc = fusion.getLoc();
  // [batch, rows, head dim] with the batch dims flattened: a box never
  // crosses into another batch, and rows past the end arrive as zeros. A
  // head split [lead..., H, T, D] of a [lead..., T, H, D] buffer is
  // [lead, H, T, D] with the strides of its layout (rows H * D apart, heads
  // D apart): tensor maps take any order of strides. Symbolic rows and
  // batch counts are extents (and strides) computed per run.
  int64_t rowBytes = shape.headDim * bytes;
  // An extent or stride of symbolic size is computed per run.
  auto entry = [&](const Dim &size, SmallVector<Value> &dynamic) {
    if (size.isStatic())
      return size.getCoefficient();
    dynamic.push_back(hostSize(size));
    return int64_t(ShapedType::kDynamic);
  };
  auto map = [&](Value buffer, const Dim &rows, ArrayRef<Dim> batch,
                 int64_t boxRows, int64_t heads) -> Value {
    Dim batches = *elementCount(batch);
    if (heads)
      batches = *batches.dividedBy(Dim(heads));
    SmallVector<Value> dims, strides;
    int64_t rowExtent = entry(rows, dims);
    if (!heads) {
      int64_t outer = entry(batches, dims);
      int64_t batchStride = entry(*rows.times(Dim(rowBytes)), strides);
      return TensorMapOp::create(
          b, loc, pointer, buffer, dims, strides,
          SmallVector<int64_t>{shape.headDim, rowExtent, outer},
          SmallVector<int64_t>{rowBytes, batchStride},
          SmallVector<int64_t>{kBoxColumns, boxRows, 1}, kSwizzleBytes);
    }
    int64_t outer = entry(batches, dims);
    int64_t leadStride = entry(*rows.times(Dim(heads * rowBytes)), strides);
    return TensorMapOp::create(
        b, loc, pointer, buffer, dims, strides,
        SmallVector<int64_t>{shape.headDim, rowExtent, heads, outer},
        SmallVector<int64_t>{heads * rowBytes, rowBytes, leadStride},
        SmallVector<int64_t>{kBoxColumns, boxRows, 1, 1}, kSwizzleBytes);
  };
  return {map(query, shape.queryRows, shape.queryBatch, tiling.queryRows,
              shape.queryHeads),
          map(key, shape.keyRows, shape.keyBatch, tiling.keyBlock,
              shape.keyHeads),
          map(value, shape.keyRows, shape.valueBatch, tiling.keyBlock,
              shape.valueHeads)};
}

namespace {
/// Builds the kernel body; see the file comment.
class FlashKernel {
public:
  FlashKernel(FusionOp fusion, const FlashAttentionTiling &tiling,
              TargetAttr target, bool warpMma, gpu::GPUFuncOp kernel,
              gpu::GPUModuleOp kernels)
      : k(fusion, kernel, kernels, /*firstBuffer=*/warpMma ? 0 : 3),
        tiling(tiling), target(target), warpMma(warpMma),
        attention(fusion.getAttention()), shape(attention), b(k.b),
        loc(k.loc), ctx(fusion.getContext()), kernel(kernel) {}

  FailureOr<LaunchShape> build();

private:
  Value index(int64_t v) { return k.idx.constant(v); }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }
  /// x + c for a c that may be negative (the index builder's additions
  /// promise no unsigned wrap).
  Value addSigned(Value x, int64_t c) {
    return arith::AddIOp::create(b, loc, x, index(c));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  /// The last key query `row` sees under the causal limit, row + Nk - Nq
  /// (signed: negative where it sees none).
  Value diagonalKey(Value row) {
    if (shape.queryRows.isStatic() && shape.keyRows.isStatic())
      return addSigned(row, shape.keys - shape.queries);
    if (shape.queryRows == shape.keyRows)
      return row;
    return arith::SubIOp::create(b, loc, add(row, numKeys), numQueries);
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value parity(Value round) { return getPhaseParity(b, loc, round); }
  /// The ring slot key block `block` fills, and which of the slot's fills
  /// it is (the round).
  std::pair<Value, Value> ringSlot(Value block) {
    return {arith::RemUIOp::create(b, loc, block, index(tiling.stages)),
            arith::DivUIOp::create(b, loc, block, index(tiling.stages))};
  }
  /// The mbarriers (see `barriers`) that part `part` (0: K, or K and V
  /// without a producer; 1: V) of slot `stage` fills, and that releases it.
  Value fullBarrier(int64_t part, Value stage) {
    return add(stage, index(1 + part * tiling.stages));
  }
  Value emptyBarrier(int64_t part, Value stage) {
    return add(stage, index(part * tiling.stages));
  }
  /// Waits until part `part` of key block `block` has landed; returns its
  /// slot.
  Value waitForFill(int64_t part, Value block);
  /// Waits until Q has landed.
  void waitForQuery();
  /// The named barrier of consumer `consumer`'s turn.
  Value turnBarrier(Value consumer) {
    return arith::AddIOp::create(
        b, loc, i32(kTurnBarrier),
        arith::IndexCastUIOp::create(b, loc, b.getI32Type(), consumer));
  }
  /// The shared tile a TMA load of `rows` rows fills: the box of a
  /// [batch, rows, head dim] map, or of a head split's [lead, heads, rows,
  /// head dim] (the same bytes).
  MemRefType loadBox(int64_t rows, int64_t heads) {
    if (heads)
      return getSharedMemRefType(ctx, {1, 1, rows, kBoxColumns},
                                 shape.elementType);
    return getSharedMemRefType(ctx, {1, rows, kBoxColumns}, shape.elementType);
  }
  /// The batch coordinates of a tensor map over an operand of batch dims
  /// `operandBatch`: its linear batch, or for a head split of `heads`
  /// heads the head, then the leading dims' linear index.
  SmallVector<Value, 2> mapBatchCoords(ArrayRef<Dim> operandBatch,
                                       int64_t heads);

  int64_t chunks() const { return tiling.headDim / kBoxColumns; }
  int64_t stageOffset(int64_t part) const {
    return queryBytes + part * tiling.keyBlock * tiling.headDim * elementBytes;
  }
  void setUp();
  void loadQuery();
  void loadKeyValue(Value stage, Value block, Value predicate);
  /// Starts the TMA copies of K (part 0) or V (part 1) of key block
  /// `block` into ring slot `stage`, signalling mbarrier `barrier`.
  void loadRingPart(int64_t part, Value stage, Value block, Value barrier,
                    Value predicate);
  Value tileStart(Value offset);
  Value descriptor(Value start, int64_t bytes, int64_t leadingBytes);
  /// S = Q K^T on `stage`'s K block; with `wait` false the products are
  /// only issued (see waitGroups).
  SmallVector<Value> scores(Value stage, bool wait = true);
  /// The mma.sync form (sm_80 and later): cp.async copies of Q and of K
  /// and V blocks, S = Q K^T and O += P V on mma.sync.
  struct AsyncOperand {
    Value global, base;
    int64_t rowStride;
  };
  AsyncOperand asyncOperand(Value operand, ArrayRef<Dim> operandBatch,
                            const Dim &rows, int64_t heads);
  void loadQueryAsync();
  void loadKeyValueAsync(Value stage, Value block, Value inRange);
  SmallVector<Value> scoresMma(Value stage);
  SmallVector<Value> accumulateMma(ArrayRef<Value> o, ArrayRef<Value> p,
                                   Value stage);
  /// Element offsets in the ring of Q and of `stage`'s K (part 0) or V.
  Value ringElement(Value stage, int64_t part) {
    return add(mul(stage, index(stageBytes / elementBytes)),
               index(stageOffset(part) / elementBytes));
  }
  /// Whether `key` is hidden: at or past `end` (the keys' end), or under a
  /// causal limit past `diagonal` (the last key the query sees). Index or
  /// i32 operands alike, all of one type.
  Value isHiddenKey(Value key, Value end, Value diagonal) {
    Value hidden = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         key, end);
    if (!shape.causal)
      return hidden;
    return arith::OrIOp::create(
        b, loc, hidden,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, key,
                              diagonal));
  }
  SmallVector<Value> hideKeys(ArrayRef<Value> s, Value block);
  SmallVector<Value> addMaskInput(ArrayRef<Value> s, Value block);
  /// O + P V on `stage`'s V block, P as packPairs gives it.
  SmallVector<Value> accumulate(ArrayRef<Value> o, ArrayRef<Value> p,
                                Value stage, bool wait = true);
  /// P in 16-bit pairs, the A-operand registers of the P V product.
  SmallVector<Value> packPairs(ArrayRef<Value> p);
  /// `values` (accumulators of issued wgmma groups) once at most `pending`
  /// groups are in flight.
  SmallVector<Value> waitGroups(ArrayRef<Value> values, int64_t pending);
  /// One key block's step of the online softmax, see softmaxStep.
  struct SoftmaxStep {
    SmallVector<Value, 2> max, sum, alpha;
    SmallVector<Value> p;
  };
  SoftmaxStep softmaxStep(SmallVector<Value> s, Value block, ValueRange max,
                          ValueRange sum);
  /// The loop over key blocks in which every warpgroup computes; returns
  /// the row maxima, sums and O.
  SmallVector<Value> buildLoop(Value blocks);
  /// The warp-specialized block (see the file comment).
  LogicalResult buildWarpSpecialized(Value blocks);
  /// The consumer's loop of the warp-specialized block.
  SmallVector<Value> consumerLoop(Value blocks, Value consumer);
  /// Consumer `consumer` waits for its turn to issue products; passes it
  /// (if it is consumer `only`, where given).
  void waitForTurn(Value consumer);
  void passTurn(Value consumer, std::optional<int64_t> only = std::nullopt);
  /// The running max and sum of the thread's rows and its part of O before
  /// the first key block: -inf, 0 and 0.
  SmallVector<Value> initialState();
  /// O with the values of row r times alpha[r].
  SmallVector<Value> rescale(ValueRange o, ValueRange alpha);
  /// The computing threads meet (all of them: the block without a producer,
  /// else a named barrier of the consumers).
  void syncComputeThreads();
  /// O / l, then the fusion's epilogue.
  LogicalResult finish(ArrayRef<Value> results);
  Value quadReduce(Value v, bool max);
  Value exp2(Value x);
  /// One PTX statement with one result (a struct for several).
  Value inlineAsm(Type type, StringRef text, StringRef constraints,
                  ValueRange operands, bool sideEffects);
  /// One PTX statement with side effects and `count` f32 results.
  SmallVector<Value> inlineAsmF32s(int64_t count, StringRef text,
                                   ArrayRef<std::string> constraints,
                                   ValueRange operands);
  /// Accumulator value i of a thread (see the file comment) is in the
  /// thread's row rowSlot(i) (row0 or row1), at column columnOf(i) plus
  /// 2 (t % 4).
  static int64_t rowSlot(int64_t i) { return i / 2 % 2; }
  static int64_t columnOf(int64_t i) { return 8 * (i / 4) + i % 2; }
  Value rowOf(int64_t i) const { return rowSlot(i) ? row1 : row0; }
  /// The key of the thread's first score in key block `block`.
  Value threadFirstKey(Value block) {
    return add(mul(block, index(tiling.keyBlock)), mul(quadLane, index(2)));
  }
  /// A wgmma operand: a matrix descriptor (of the first K step, with the
  /// byte offset of each step's part of the tile) or, for A, four registers
  /// per step.
  struct WgmmaOperand {
    Value descriptor;
    SmallVector<int64_t> stepBytes;
    SmallVector<Value> registers;
  };
  SmallVector<Value> wgmma(int64_t n, ArrayRef<Value> acc,
                           const WgmmaOperand &a, const WgmmaOperand &bOperand,
                           bool transposeB, bool wait);
  LogicalResult epilogue(ArrayRef<Value> o);

  KernelContext k;
  const FlashAttentionTiling &tiling;
  TargetAttr target;
  /// mma.sync and cp.async rather than wgmma and TMA.
  bool warpMma;
  AttentionOp attention;
  AttentionShape shape;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  gpu::GPUFuncOp kernel;

  int64_t elementBytes = 0, queryBytes = 0, stageBytes = 0;
  /// The key blocks, or 0 where the keys are given at run time.
  int64_t keyBlocks = 0;
  /// The query rows and keys (constants, or sizes given at run time).
  Value numQueries, numKeys;
  DynamicSharedMemory shared;
  /// Barrier 0: Q; 1 + s: ring slot s (K and V). Warp-specialized: K's
  /// slot s is 1 + s, V's 1 + stages + s, and `emptyBarriers` part *
  /// stages + s releases part's slot s.
  Value primary, barriers, emptyBarriers, queryMap, keyMap, valueMap;
  Value firstQuery;
  /// The tensor-map coordinates of this block's batch in Q, K and V.
  SmallVector<Value, 2> queryBatch, keyBatch, valueBatch;
  SmallVector<Value> batchCoords;
  /// The thread's place: warpgroup, the warpgroup among the computing ones
  /// (whose 64 query rows it owns) and the thread in it, lane in the quad
  /// (t % 4) as index, and the block-local query rows of its accumulator
  /// values.
  Value warpgroup, computeGroup, groupThread, quadLane, row0, row1;
  /// P = exp2(s * factor - m * factor); `foldScale`: s is the raw score
  /// (the scale folded into factor), else scaled and masked first.
  double factor = 0;
  bool foldScale = false;
  /// The i64 descriptor bits that do not depend on the address.
  Value sharedAddress;
  /// The mma.sync form's: the shared memory as elements, Q, K and V as
  /// they are copied, the tiles' layout, the thread and its lane.
  Value ring, thread, lane;
  AsyncOperand queryOperand, keyOperand, valueOperand;
  SwizzledTile queryTile{}, keyTile{};
  std::optional<WarpFragments> fragments;
};
} // namespace

void FlashKernel::setUp() {
  shared = DynamicSharedMemory::create(b, loc, k.kernels,
                                       tiling.getSharedBytes(elementBytes));
  if (warpMma) {
    int64_t elements =
        (queryBytes + tiling.stages * stageBytes) / elementBytes;
    ring = shared.view(
        b, loc, index(0),
        getSharedMemRefType(ctx, {elements}, shape.elementType));
    return;
  }
  sharedAddress = add(shared.address, shared.base);
  if (!tiling.warpSpecialized) {
    barriers = createCopyBarriers(b, loc, tiling.stages + 1, primary);
    return;
  }
  barriers = createCopyBarriers(b, loc, 2 * tiling.stages + 1, primary);
  emptyBarriers =
      createCopyBarriers(b, loc, 2 * tiling.stages, primary,
                         /*arrivals=*/tiling.getWarpgroups());
}

SmallVector<Value, 2> FlashKernel::mapBatchCoords(ArrayRef<Dim> operandBatch,
                                                  int64_t heads) {
  Value linear = k.idx.broadcastLinear(batchCoords, operandBatch);
  if (!heads)
    return {linear};
  return {arith::RemUIOp::create(b, loc, linear, index(heads)),
          arith::DivUIOp::create(b, loc, linear, index(heads))};
}

void FlashKernel::loadQuery() {
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers, index(queryBytes),
                                          index(0), primary);
  for (int64_t c = 0; c < chunks(); ++c) {
    Value tile = shared.view(b, loc, index(c * tiling.queryRows * kSwizzleBytes),
                             loadBox(tiling.queryRows, shape.queryHeads));
    SmallVector<Value> coords = {index(c * kBoxColumns), firstQuery};
    llvm::append_range(coords, queryBatch);
    nvgpu::TmaAsyncLoadOp::create(b, loc, tile, barriers, queryMap, coords,
                                  index(0), Value(), primary);
  }
}

void FlashKernel::loadKeyValue(Value stage, Value block, Value predicate) {
  Value barrier = add(stage, index(1));
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers, index(stageBytes),
                                          barrier, predicate);
  for (int64_t part : {0, 1})
    loadRingPart(part, stage, block, barrier, predicate);
}

void FlashKernel::loadRingPart(int64_t part, Value stage, Value block,
                               Value barrier, Value predicate) {
  Value map = part ? valueMap : keyMap;
  ArrayRef<Value> batch = part ? valueBatch : keyBatch;
  int64_t heads = part ? shape.valueHeads : shape.keyHeads;
  Value firstKey = mul(block, index(tiling.keyBlock));
  Value slot = mul(stage, index(stageBytes));
  for (int64_t c = 0; c < chunks(); ++c) {
    Value offset = add(
        slot, index(stageOffset(part) + c * tiling.keyBlock * kSwizzleBytes));
    SmallVector<Value> coords = {index(c * kBoxColumns), firstKey};
    llvm::append_range(coords, batch);
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, shared.view(b, loc, offset, loadBox(tiling.keyBlock, heads)),
        barriers, map, coords, barrier, Value(), predicate);
  }
}

FlashKernel::AsyncOperand
FlashKernel::asyncOperand(Value operand, ArrayRef<Dim> operandBatch,
                          const Dim &rows, int64_t heads) {
  // [batch..., rows, D] (its batch dims possibly regrouped: the same
  // linear batch), or a head split read in place: head h of [lead...,
  // rows, heads, D], rows heads * D apart.
  AsyncOperand result;
  result.global = collapseToOneDim(
      b, loc, k.buffers.lookup(getAttentionOperandInput(operand)));
  SmallVector<Value, 2> coords = mapBatchCoords(operandBatch, heads);
  if (!heads) {
    result.rowStride = shape.headDim;
    result.base =
        mul(coords[0], k.idx.sizeValue(*rows.times(Dim(shape.headDim))));
    return result;
  }
  result.rowStride = heads * shape.headDim;
  result.base = add(
      mul(coords[1], k.idx.sizeValue(*rows.times(Dim(heads * shape.headDim)))),
      mul(coords[0], index(shape.headDim)));
  return result;
}

void FlashKernel::loadQueryAsync() {
  copyTileAsync(k.idx, thread, tiling.getThreads(), queryTile, ring, index(0),
                queryOperand.global, queryOperand.base, firstQuery, index(0),
                k.idx.size(shape.queryRows), shape.headDim,
                queryOperand.rowStride);
}

void FlashKernel::loadKeyValueAsync(Value stage, Value block, Value inRange) {
  auto ifInRange = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifInRange.getThenRegion().front());
  Value firstKey = mul(block, index(tiling.keyBlock));
  for (auto [part, operand] :
       {std::pair{0, &keyOperand}, std::pair{1, &valueOperand}})
    copyTileAsync(k.idx, thread, tiling.getThreads(), keyTile, ring,
                  ringElement(stage, part), operand->global, operand->base,
                  firstKey, index(0), k.idx.size(shape.keyRows),
                  shape.headDim, operand->rowStride);
}

SmallVector<Value> FlashKernel::scoresMma(Value stage) {
  // Per 16 of the head dim (8 on f32): the warp's 16 query rows as A, then
  // per 16 keys K's rows as B's columns.
  Value warpRow = mul(arith::DivUIOp::create(b, loc, thread, index(32)),
                      index(kMmaM));
  Value keyStart = ringElement(stage, 0);
  SmallVector<Value> s(tiling.keyBlock / kMmaN * 4, f32(0));
  int64_t stepK = fragments->getStepK();
  for (int64_t step = 0; step < shape.headDim / stepK; ++step) {
    Value chunk = index(step * stepK / queryTile.chunkElements);
    SmallVector<Value, 4> a =
        fragments->loadA(queryTile, index(0), warpRow, chunk);
    for (int64_t pair = 0; pair < tiling.keyBlock / (2 * kMmaN); ++pair)
      fragments->multiplyPair(
          a,
          fragments->loadBFromColumns(keyTile, keyStart,
                                      index(pair * 2 * kMmaN), chunk),
          MutableArrayRef<Value>(s).slice(pair * 8, 8));
  }
  return s;
}

SmallVector<Value> FlashKernel::accumulateMma(ArrayRef<Value> o,
                                              ArrayRef<Value> p, Value stage) {
  // P's A fragments, as for wgmma: K step t (16 keys) is S values 8t ..
  // 8t+7, packed in pairs. On f32, K step t (8 keys) is S values 4t ..
  // 4t+3, rows r and r + 8 of keys 2c and 2c + 1, in the order rows r, r +
  // 8 of key 2c, then of 2c + 1, which V's rows follow (rowsInPairs). V is
  // keys x head dim, N innermost: B's rows.
  bool f32Operands = shape.elementType.isF32();
  SmallVector<SmallVector<Value, 4>> a;
  for (size_t i = 0; i < p.size(); i += f32Operands ? 4 : 8) {
    if (f32Operands) {
      a.push_back(fragments->f32Operands({p[i], p[i + 2], p[i + 1], p[i + 3]}));
      continue;
    }
    a.emplace_back();
    for (size_t j = i; j < i + 8; j += 2)
      a.back().push_back(packPair(b, loc, p[j], p[j + 1], shape.elementType));
  }
  Value valueStart = ringElement(stage, 1);
  SmallVector<Value> next(o);
  int64_t stepK = fragments->getStepK();
  for (int64_t step = 0; step < tiling.keyBlock / stepK; ++step)
    for (int64_t pair = 0; pair < shape.headDim / (2 * kMmaN); ++pair)
      fragments->multiplyPair(
          a[step],
          fragments->loadBFromRows(
              keyTile, valueStart, index(step * stepK),
              index(pair * 2 * kMmaN / keyTile.chunkElements), f32Operands),
          MutableArrayRef<Value>(next).slice(pair * 8, 8));
  return next;
}

/// The start-address field of wgmma matrix descriptors of the tile at
/// `offset` (from the aligned base): its shared address in 16-byte units.
/// Shared addresses stay below 256 KiB, so the field (14 bits) never
/// carries into the others and a descriptor of a later part of the tile is
/// one addition away.
Value FlashKernel::tileStart(Value offset) {
  Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                               add(sharedAddress, offset));
  return arith::ShRUIOp::create(b, loc, address, i64(4));
}

/// A wgmma matrix descriptor of the 128-byte swizzled tile `bytes` past
/// `start` (see tileStart): rows of 128 bytes, 8-row groups 1024 bytes
/// apart, `leadingBytes` between 64-column chunks (MN-major operands).
Value FlashKernel::descriptor(Value start, int64_t bytes,
                              int64_t leadingBytes) {
  int64_t fixed = ((leadingBytes >> 4) << 16) | ((int64_t(1024) >> 4) << 32) |
                  (int64_t(1) << 62);
  return arith::AddIOp::create(b, loc, start, i64(fixed + (bytes >> 4)));
}

SmallVector<Value> FlashKernel::wgmma(int64_t n, ArrayRef<Value> acc,
                                      const WgmmaOperand &a,
                                      const WgmmaOperand &bOperand,
                                      bool transposeB, bool wait) {
  // One asm statement: fence, one wgmma per K step of 16, commit, and
  // unless the caller waits later (waitGroups), wait.
  // Operands: the n/2 accumulators (outputs, tied to the inputs when
  // accumulating), then A (a descriptor, or four registers per step), then
  // B's descriptor. A descriptor operand is that of the first step; the
  // others are made in the statement, so that they hold no registers
  // outside it.
  int64_t values = n / 2, steps = bOperand.stepBytes.size();
  std::string type = shape.elementType.isF16() ? "f16" : "bf16";
  bool registersA = a.descriptor == nullptr;
  int64_t firstA = values + (acc.empty() ? 0 : values);
  int64_t firstB = firstA + (registersA ? 4 * steps : 1);
  auto operand = [](int64_t i) { return "$" + std::to_string(i); };
  auto advance = [&](StringRef reg, int64_t base, int64_t bytes) {
    return "add.s64 " + reg.str() + ", " + operand(base) + ", " +
           std::to_string(bytes >> 4) + ";\n";
  };
  std::string d;
  for (int64_t i = 0; i < values; ++i)
    d += (i ? ", " : "") + operand(i);
  std::string text = "{\n.reg .b64 fk_a, fk_b;\nwgmma.fence.sync.aligned;\n";
  for (int64_t s = 0; s < steps; ++s) {
    std::string aText = "fk_a";
    if (registersA)
      aText = "{" + operand(firstA + 4 * s) + ", " +
              operand(firstA + 4 * s + 1) + ", " +
              operand(firstA + 4 * s + 2) + ", " +
              operand(firstA + 4 * s + 3) + "}";
    else
      text += advance("fk_a", firstA, a.stepBytes[s]);
    text += advance("fk_b", firstB, bOperand.stepBytes[s]);
    // scale-d 0 on the first step without an accumulator: D = A B.
    std::string scaleD = (!acc.empty() || s > 0) ? "1" : "0";
    std::string transpose = transposeB ? "1" : "0";
    // Register A takes no transpose flag of its own.
    std::string flags = scaleD + ", 1, 1, " +
                        (registersA ? transpose : "0, " + transpose);
    text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
            "k16.f32." + type + "." + type + " {" + d + "}, " + aText +
            ", fk_b, " + flags + ";\n";
  }
  text += "wgmma.commit_group.sync.aligned;\n";
  if (wait)
    text += "wgmma.wait_group.sync.aligned 0;\n";
  text += "}";

  SmallVector<std::string> constraints;
  for (int64_t i = 0; i < values; ++i)
    constraints.push_back("=f");
  for (int64_t i = 0; i < (int64_t)acc.size(); ++i)
    constraints.push_back(std::to_string(i));
  SmallVector<Value> operands(acc.begin(), acc.end());
  if (registersA) {
    for (Value r : a.registers) {
      constraints.push_back("r");
      operands.push_back(r);
    }
  } else {
    constraints.push_back("l");
    operands.push_back(a.descriptor);
  }
  constraints.push_back("l");
  operands.push_back(bOperand.descriptor);
  return inlineAsmF32s(values, text, constraints, operands);
}

SmallVector<Value> FlashKernel::scores(Value stage, bool wait) {
  // K steps of 16 along the head dim: 4 per 128-byte row (32 bytes each),
  // then the next 64-column chunk.
  Value queryTile = tileStart(
      mul(computeGroup, index(kFlashRowsPerWarpgroup * kSwizzleBytes)));
  Value keyTile = tileStart(
      add(mul(stage, index(stageBytes)), index(stageOffset(0))));
  WgmmaOperand a{descriptor(queryTile, 0, /*leadingBytes=*/16), {}, {}};
  WgmmaOperand key{descriptor(keyTile, 0, /*leadingBytes=*/16), {}, {}};
  for (int64_t step = 0; step < tiling.headDim / 16; ++step) {
    int64_t c = step / 4, within = step % 4 * 32;
    a.stepBytes.push_back(c * tiling.queryRows * kSwizzleBytes + within);
    key.stepBytes.push_back(c * tiling.keyBlock * kSwizzleBytes + within);
  }
  return wgmma(tiling.keyBlock, {}, a, key, /*transposeB=*/false, wait);
}

SmallVector<Value> FlashKernel::waitGroups(ArrayRef<Value> values,
                                           int64_t pending) {
  // The values pass through the statement (outputs tied to inputs), so
  // that nothing reads them before the wait.
  SmallVector<std::string> constraints(values.size(), "=f");
  for (size_t i = 0; i < values.size(); ++i)
    constraints.push_back(std::to_string(i));
  return inlineAsmF32s(
      values.size(),
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
      constraints, values);
}

SmallVector<Value> FlashKernel::hideKeys(ArrayRef<Value> s, Value block) {
  // Key j is hidden from query i when j >= Nk, or (causal) j > i + Nk - Nq.
  // Value i of the thread is key threadFirstKey + columnOf(i): the constant
  // is compared with limits per thread and row (in 32 bits: lengths are
  // below 2^31, kMaxAttentionLength, when compiled or per run by the
  // launch's limits).
  auto i32 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v).getResult();
  };
  Value first = threadFirstKey(block);
  Value keysLeft = arith::SubIOp::create(b, loc, i32(numKeys), i32(first));
  SmallVector<Value> lastVisible;
  if (shape.causal)
    for (Value row : {row0, row1})
      lastVisible.push_back(arith::SubIOp::create(
          b, loc, i32(diagonalKey(add(firstQuery, row))), i32(first)));
  Value minusInf = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> hidden;
  for (auto [i, value] : llvm::enumerate(s)) {
    Value offset = arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(columnOf(i)));
    Value isHidden = isHiddenKey(
        offset, keysLeft, shape.causal ? lastVisible[rowSlot(i)] : Value());
    // -inf whatever the score: a NaN or inf that Q or K put in a hidden
    // score does not reach the output (as in blocks never loaded).
    hidden.push_back(arith::SelectOp::create(b, loc, isHidden, minusInf, value));
  }
  return hidden;
}

SmallVector<Value> FlashKernel::addMaskInput(ArrayRef<Value> s, Value block) {
  // scale * s + mask at each of the thread's scores, the mask read as one
  // dimension: per row an offset, per score the key times the key stride
  // (0 where the mask broadcasts). Rows past the queries and keys past the
  // keys read the last ones instead: their results are hidden or never
  // stored.
  Value maskBuffer = k.buffers.lookup(attention.getMask());
  auto maskType = cast<MemRefType>(maskBuffer.getType());
  AttentionShape::MaskAddressing mask =
      shape.addressMask(k.idx, maskBuffer, batchCoords);
  // (Queries and keys, given at run time or not.)
  Value lastQuery = b.createOrFold<arith::SubIOp>(loc, numQueries, index(1));
  Value lastKey = b.createOrFold<arith::SubIOp>(loc, numKeys, index(1));
  SmallVector<Value> rowOffsets;
  for (Value row : {row0, row1})
    rowOffsets.push_back(add(
        mask.batchOffset,
        mul(arith::MinUIOp::create(b, loc, add(firstQuery, row), lastQuery),
            mask.rowStride)));
  Value flat = mask.flat;
  Value first = threadFirstKey(block);
  SmallVector<Value> result;
  for (auto [i, value] : llvm::enumerate(s)) {
    Value key = arith::MinUIOp::create(b, loc, add(first, index(columnOf(i))),
                                       lastKey);
    Value element = add(rowOffsets[rowSlot(i)], mul(key, mask.keyStride));
    Value raw = maskType.getRank() == 0
                    ? memref::LoadOp::create(b, loc, flat, ValueRange{})
                    : memref::LoadOp::create(b, loc, flat, element);
    Value maskValue =
        extendToComputeType(b, loc, raw, maskType.getElementType());
    result.push_back(
        math::FmaOp::create(b, loc, value, f32(shape.scale), maskValue));
  }
  return result;
}

SmallVector<Value> FlashKernel::packPairs(ArrayRef<Value> p) {
  // P's A fragments: K step t (16 keys) is S values 8t .. 8t+7, packed in
  // pairs.
  std::string convert = shape.elementType.isF16()
                            ? "cvt.rn.f16x2.f32 $0, $2, $1;"
                            : "cvt.rn.bf16x2.f32 $0, $2, $1;";
  SmallVector<Value> aRegisters;
  for (size_t i = 0; i < p.size(); i += 2)
    // The first value goes to the low half.
    aRegisters.push_back(
        inlineAsm(b.getI32Type(), convert, "=r,f,f", ValueRange{p[i], p[i + 1]},
                  /*sideEffects=*/false));
  return aRegisters;
}

SmallVector<Value> FlashKernel::accumulate(ArrayRef<Value> o,
                                           ArrayRef<Value> p, Value stage,
                                           bool wait) {
  // V is K x N (keys x head dim) with N innermost: MN-major, 64-column
  // chunks keyBlock rows apart; K steps of 16 rows of 128 bytes.
  Value valueTile = tileStart(
      add(mul(stage, index(stageBytes)), index(stageOffset(1))));
  WgmmaOperand v{descriptor(valueTile, 0,
                            /*leadingBytes=*/tiling.keyBlock * kSwizzleBytes),
                 {}, {}};
  for (int64_t step = 0; step < tiling.keyBlock / 16; ++step)
    v.stepBytes.push_back(step * 16 * kSwizzleBytes);
  return wgmma(tiling.headDim, o,
               WgmmaOperand{Value(), {}, SmallVector<Value>(p)}, v,
               /*transposeB=*/true, wait);
}

Value FlashKernel::quadReduce(Value v, bool max) {
  for (int64_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(
                      b, loc, v,
                      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(offset)),
                      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(32)),
                      gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = max ? arith::MaxNumFOp::create(b, loc, v, other).getResult()
            : arith::AddFOp::create(b, loc, v, other).getResult();
  }
  return v;
}

Value FlashKernel::exp2(Value x) { return emitFastExp2(b, loc, x); }

Value FlashKernel::inlineAsm(Type type, StringRef text, StringRef constraints,
                             ValueRange operands, bool sideEffects) {
  return emitInlinePtx(b, loc, type, text, constraints, operands, sideEffects);
}

SmallVector<Value> FlashKernel::inlineAsmF32s(int64_t count, StringRef text,
                                              ArrayRef<std::string> constraints,
                                              ValueRange operands) {
  SmallVector<Type> fields(count, b.getF32Type());
  Value result = inlineAsm(LLVM::LLVMStructType::getLiteral(ctx, fields), text,
                           llvm::join(constraints, ","), operands,
                           /*sideEffects=*/true);
  SmallVector<Value> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return out;
}

Value FlashKernel::waitForFill(int64_t part, Value block) {
  // A slot's mbarrier completes one phase per fill: round n of a slot is
  // phase n, waited on with parity n % 2.
  auto [stage, round] = ringSlot(block);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity(round),
                                         index(kMbarrierWaitTicks),
                                         fullBarrier(part, stage));
  return stage;
}

void FlashKernel::waitForQuery() {
  Value falseBit = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, falseBit,
                                         index(kMbarrierWaitTicks), index(0));
}

SmallVector<Value> FlashKernel::initialState() {
  Value minusInf = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init = {minusInf, minusInf, f32(0), f32(0)};
  init.append(tiling.headDim / 2, f32(0));
  return init;
}

SmallVector<Value> FlashKernel::rescale(ValueRange o, ValueRange alpha) {
  SmallVector<Value> scaled;
  for (auto [i, v] : llvm::enumerate(o))
    scaled.push_back(arith::MulFOp::create(b, loc, v, alpha[rowSlot(i)]));
  return scaled;
}

LogicalResult FlashKernel::epilogue(ArrayRef<Value> o) {
  // O goes to shared memory as f32 rows (over Q and the ring, which every
  // thread is done with), then the fusion's epilogue reads runs of it.
  syncComputeThreads();
  // Rows are padded (FlashAttentionTiling::kOutputRowPad) so that the eight
  // rows a quad column of a warp stores fall in different banks.
  MemRefType tileType = getSharedMemRefType(
      ctx,
      {tiling.queryRows,
       tiling.headDim + FlashAttentionTiling::kOutputRowPad},
      b.getF32Type());
  Value tile = shared.view(b, loc, index(0), tileType);
  Value twiceQuad = mul(quadLane, index(2));
  for (auto [i, value] : llvm::enumerate(o))
    memref::StoreOp::create(
        b, loc, value, tile,
        ValueRange{rowOf(i), add(twiceQuad, index(columnOf(i)))});
  syncComputeThreads();
  ResultTile result;
  result.anchor = attention;
  result.tile = tile;
  result.rows = tiling.queryRows;
  result.columns = tiling.headDim;
  result.firstRow = firstQuery;
  result.firstColumn = index(0);
  result.batchCoords = batchCoords;
  result.threads = tiling.getComputeThreads();
  result.thread = add(mul(computeGroup, index(kThreadsPerWarpgroup)),
                      groupThread);
  return emitTileEpilogue(k, result);
}

FlashKernel::SoftmaxStep FlashKernel::softmaxStep(SmallVector<Value> s,
                                                  Value block, ValueRange max,
                                                  ValueRange sum) {
  if (shape.masked)
    s = addMaskInput(s, block);
  else if (!foldScale)
    for (Value &v : s)
      v = arith::MulFOp::create(b, loc, v, f32(shape.scale));
  // Only blocks that cross the end of the keys or the causal diagonal
  // hide any score.
  Value lastKey = add(mul(block, index(tiling.keyBlock)),
                      index(tiling.keyBlock - 1));
  Value needsMask = isHiddenKey(
      lastKey, numKeys, shape.causal ? diagonalKey(firstQuery) : Value());
  SmallVector<Type> sTypes(s.size(), b.getF32Type());
  auto ifMask = scf::IfOp::create(b, loc, sTypes, needsMask, true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifMask.getThenRegion().front());
    scf::YieldOp::create(b, loc, hideKeys(s, block));
    b.setInsertionPointToStart(&ifMask.getElseRegion().front());
    scf::YieldOp::create(b, loc, s);
  }
  s.assign(ifMask.getResults().begin(), ifMask.getResults().end());

  // Per row r of the thread's two: the new max, the rescale of the old
  // sum and output, P.
  Value minusInf = f32(-std::numeric_limits<double>::infinity());
  SoftmaxStep step;
  SmallVector<Value, 2> negatedMax;
  for (int r = 0; r < 2; ++r) {
    Value rowMax = minusInf;
    for (size_t i = 0; i < s.size(); ++i)
      if (rowSlot(i) == r)
        rowMax = arith::MaxNumFOp::create(b, loc, rowMax, s[i]);
    rowMax = quadReduce(rowMax, /*max=*/true);
    step.max.push_back(arith::MaxNumFOp::create(b, loc, max[r], rowMax));
    // A row with every score so far hidden keeps max -inf; subtracting 0
    // instead leaves its P at 0 rather than NaN (-inf - -inf).
    Value hiddenRow = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OEQ, step.max[r], minusInf);
    Value usable =
        arith::SelectOp::create(b, loc, hiddenRow, f32(0), step.max[r]);
    Value scaledMax = arith::MulFOp::create(b, loc, usable, f32(factor));
    step.alpha.push_back(exp2(arith::SubFOp::create(
        b, loc, arith::MulFOp::create(b, loc, max[r], f32(factor)),
        scaledMax)));
    negatedMax.push_back(arith::NegFOp::create(b, loc, scaledMax));
  }
  // P = exp2(s * c - m * c), one FMA and one ex2 per score.
  SmallVector<Value, 2> rowSum = {f32(0), f32(0)};
  for (auto [i, v] : llvm::enumerate(s)) {
    int64_t r = rowSlot(i);
    Value scaled = math::FmaOp::create(b, loc, v, f32(factor), negatedMax[r]);
    step.p.push_back(exp2(scaled));
    rowSum[r] = arith::AddFOp::create(b, loc, rowSum[r], step.p.back());
  }
  for (int r = 0; r < 2; ++r)
    step.sum.push_back(arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, sum[r], step.alpha[r]),
        rowSum[r]));
  return step;
}

SmallVector<Value> FlashKernel::buildLoop(Value blocks) {
  // The mma.sync form's copies: one commit group per ring slot (Q in the
  // first), empty past the last block, so that at block n "at most stages
  // - 1 groups pending" means that block n has landed.
  Value copies;
  if (warpMma) {
    int64_t rowChunks = shape.headDim * elementBytes / 16;
    queryTile = {tiling.queryRows, rowChunks, 16 / elementBytes};
    keyTile = {tiling.keyBlock, rowChunks, 16 / elementBytes};
    queryOperand = asyncOperand(attention.getQuery(), shape.queryBatch,
                                shape.queryRows, shape.queryHeads);
    keyOperand = asyncOperand(attention.getKey(), shape.keyBatch,
                              shape.keyRows, shape.keyHeads);
    valueOperand = asyncOperand(attention.getValue(), shape.valueBatch,
                                shape.keyRows, shape.valueHeads);
    // f32: one TF32 product where the module allows TF32, else three
    // (as precise as f32; fk/IR/FkNumerics.h).
    bool splitF32 = shape.elementType.isF32() && !allowsTf32(attention);
    fragments.emplace(k.idx, ring, lane, shape.elementType, splitF32);
    loadQueryAsync();
    // (Every slot's copy where the key blocks are known at run time only:
    // each is predicated on its block.)
    for (int64_t s = 0; s < tiling.stages; ++s) {
      if (!keyBlocks || s < keyBlocks)
        loadKeyValueAsync(index(s), index(s),
                          arith::CmpIOp::create(b, loc,
                                                arith::CmpIPredicate::slt,
                                                index(s), blocks));
      copies = commitAsyncCopies(b, loc);
    }
  } else {
    for (Value map : {queryMap, keyMap, valueMap})
      nvgpu::TmaPrefetchOp::create(b, loc, map, primary);
    loadQuery();
    for (int64_t s = 0; s < tiling.stages && (!keyBlocks || s < keyBlocks);
         ++s) {
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            index(s), blocks);
      loadKeyValue(index(s), index(s),
                   arith::AndIOp::create(b, loc, primary, inRange));
    }
    waitForQuery();
  }

  auto loop = scf::ForOp::create(b, loc, index(0), blocks, index(1),
                                 initialState());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value block = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    Value stage;
    if (warpMma) {
      // This thread's copies of the block have landed, and the barrier
      // makes every thread's visible.
      stage = ringSlot(block).first;
      waitAsyncCopies(b, loc, copies, tiling.stages - 1);
      gpu::BarrierOp::create(b, loc);
    } else {
      stage = waitForFill(0, block);
    }

    SmallVector<Value> s = warpMma ? scoresMma(stage) : scores(stage);
    SoftmaxStep step =
        softmaxStep(s, block, carried.take_front(2), carried.slice(2, 2));
    SmallVector<Value> next(step.max.begin(), step.max.end());
    next.append(step.sum.begin(), step.sum.end());
    SmallVector<Value> o = rescale(carried.drop_front(4), step.alpha);
    SmallVector<Value> updated =
        warpMma ? accumulateMma(o, step.p, stage)
                : accumulate(o, packPairs(step.p), stage);
    next.append(updated.begin(), updated.end());

    // Every warp is done with the slot: refill it with the block `stages`
    // ahead.
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(block, index(tiling.stages));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          ahead, blocks);
    if (warpMma) {
      loadKeyValueAsync(stage, ahead, inRange);
      commitAsyncCopies(b, loc);
    } else {
      loadKeyValue(stage, ahead,
                   arith::AndIOp::create(b, loc, primary, inRange));
    }
    scf::YieldOp::create(b, loc, next);
  }
  // Q's copies are still in flight where the loop never ran (a causal mask
  // hides every key from the block's rows); the epilogue's tile overlays Q.
  if (warpMma)
    waitAsyncCopies(b, loc, copies, 0);

  return SmallVector<Value>(loop.getResults());
}

LogicalResult FlashKernel::finish(ArrayRef<Value> results) {
  // O / l once per row; a row with nothing visible has l = 0 and gives NaN,
  // as the unfused softmax (0 / 0) does.
  SmallVector<Value> inverse(2);
  for (int r = 0; r < 2; ++r)
    inverse[r] = arith::DivFOp::create(b, loc, f32(1),
                                       quadReduce(results[2 + r], /*max=*/false));
  SmallVector<Value> o;
  for (int64_t i = 0; i < tiling.headDim / 2; ++i)
    o.push_back(
        arith::MulFOp::create(b, loc, results[4 + i], inverse[rowSlot(i)]));
  return epilogue(o);
}

void FlashKernel::syncComputeThreads() {
  if (!tiling.warpSpecialized) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  NVVM::BarrierOp::create(b, loc, /*res=*/Type(), i32(kComputeBarrier),
                          i32(tiling.getComputeThreads()),
                          /*reductionOp=*/{}, /*reductionPredicate=*/Value());
}

// Consumer c's turn is named barrier kTurnBarrier + c of both consumers'
// threads: c waits on it (bar.sync, its 128 threads), the other consumer
// passes the turn by arriving (bar.arrive, the other 128).
void FlashKernel::waitForTurn(Value consumer) {
  NVVM::BarrierOp::create(b, loc, /*res=*/Type(), turnBarrier(consumer),
                          i32(tiling.getComputeThreads()),
                          /*reductionOp=*/{}, /*reductionPredicate=*/Value());
}

void FlashKernel::passTurn(Value consumer, std::optional<int64_t> only) {
  OpBuilder::InsertionGuard guard(b);
  if (only) {
    auto ifOnly = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, consumer,
                              index(*only)),
        /*withElse=*/false);
    b.setInsertionPointToStart(&ifOnly.getThenRegion().front());
  }
  Value other = arith::SubIOp::create(b, loc, index(1), consumer);
  NVVM::BarrierArriveOp::create(b, loc, turnBarrier(other),
                                i32(tiling.getComputeThreads()));
}

LogicalResult FlashKernel::buildWarpSpecialized(Value blocks) {
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);

  // The producer: fill n of a part's slot s waits for the consumers'
  // release of fill n - stages, phase n / stages - 1 of the slot's empty
  // mbarrier (the first round waits with parity 1, the phase before a
  // fresh mbarrier's first, which counts as complete). V block n is loaded
  // after K block n + 1, the order the consumers read them in.
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  auto ifPrimary = scf::IfOp::create(b, loc, primary, /*withElse=*/false);
  b.setInsertionPointToStart(&ifPrimary.getThenRegion().front());
  for (Value map : {queryMap, keyMap, valueMap})
    nvgpu::TmaPrefetchOp::create(b, loc, map, Value());
  loadQuery();
  auto fill = [&](int64_t part, Value block) {
    auto [stage, round] = ringSlot(block);
    nvgpu::MBarrierTryWaitParityOp::create(
        b, loc, emptyBarriers, parity(add(round, index(1))),
        index(kMbarrierWaitTicks), emptyBarrier(part, stage));
    Value barrier = fullBarrier(part, stage);
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, loc, barriers, index(stageBytes / 2), barrier, Value());
    loadRingPart(part, stage, block, barrier, Value());
  };
  auto loads = scf::ForOp::create(b, loc, index(0), add(blocks, index(1)),
                                  index(1));
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loads.getBody());
    Value n = loads.getInductionVar();
    auto ifKey = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n,
                                      blocks),
        /*withElse=*/false);
    b.setInsertionPointToStart(&ifKey.getThenRegion().front());
    fill(0, n);
    b.setInsertionPointAfter(ifKey);
    auto ifValue = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, n,
                                      index(0)),
        /*withElse=*/false);
    b.setInsertionPointToStart(&ifValue.getThenRegion().front());
    fill(1, arith::SubIOp::create(b, loc, n, index(1)));
  }

  b.setInsertionPointToStart(&roles.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(b, loc, kConsumerRegisters,
                                 NVVM::SetMaxRegisterAction::increase);
  // Q has landed (also where no key block is read: the epilogue's tile
  // overlays it).
  waitForQuery();
  return finish(consumerLoop(blocks, computeGroup));
}

SmallVector<Value> FlashKernel::consumerLoop(Value blocks, Value consumer) {
  int64_t outputs = tiling.headDim / 2;
  int64_t pairs = tiling.keyBlock / 4;
  SmallVector<Value> init = initialState();
  SmallVector<Type> types(init.size(), b.getF32Type());
  // One thread per warpgroup releases a slot (a wgmma group is the
  // warpgroup's: once it waited, the group's reads are done).
  Value releaser = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         groupThread, index(0));
  auto release = [&](int64_t part, Value block) {
    Value stage = ringSlot(block).first;
    auto ifReleaser = scf::IfOp::create(b, loc, releaser, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifReleaser.getThenRegion().front());
    nvgpu::MBarrierArriveOp::create(b, loc,
                                    nvgpu::MBarrierTokenType::get(ctx),
                                    emptyBarriers, emptyBarrier(part, stage));
  };

  // Nothing to read (a causal mask hides every key from the block): the
  // initial values, and no turns taken.
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, blocks,
                                    index(0));
  auto ifAny = scf::IfOp::create(b, loc, types, any, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifAny.getElseRegion().front());
  scf::YieldOp::create(b, loc, init);
  b.setInsertionPointToStart(&ifAny.getThenRegion().front());

  // Consumer 0 takes the first turn. Each consumer waits for blocks + 1
  // turns (a turn per block's products, and the last P V); consumer 1
  // passes all but its last, which no one would wait for.
  passTurn(consumer, /*only=*/1);

  // Block 0: S, then its softmax.
  Value first = index(0);
  Value stage = waitForFill(0, first);
  waitForTurn(consumer);
  SmallVector<Value> s = scores(stage, /*wait=*/false);
  passTurn(consumer);
  s = waitGroups(s, 0);
  release(0, first);
  SoftmaxStep step = softmaxStep(s, first, ValueRange(init).take_front(2),
                                 ValueRange(init).slice(2, 2));
  // Carried: max, sum and alpha of the rows, P's registers, O.
  SmallVector<Value> carriedInit(step.max.begin(), step.max.end());
  llvm::append_range(carriedInit, step.sum);
  llvm::append_range(carriedInit, step.alpha);
  llvm::append_range(carriedInit, packPairs(step.p));
  carriedInit.append(init.begin() + 4, init.end());
  auto loop = scf::ForOp::create(b, loc, index(1), blocks, index(1),
                                 carriedInit);
  auto split = [&](ValueRange values) {
    return std::tuple{values.take_front(2), values.slice(2, 2),
                      values.slice(4, 2), values.slice(6, pairs),
                      values.drop_front(6 + pairs)};
  };
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loop.getBody());
    Value block = loop.getInductionVar();
    auto [max, sum, alpha, p, o] = split(loop.getRegionIterArgs());
    Value previous = arith::SubIOp::create(b, loc, block, index(1));
    Value keyStage = waitForFill(0, block);
    waitForTurn(consumer);
    // S of this block and P V of the previous one in flight together; O's
    // rescale runs under the first.
    SmallVector<Value> scoresNow = scores(keyStage, /*wait=*/false);
    SmallVector<Value> scaled = rescale(o, alpha);
    Value valueStage = waitForFill(1, previous);
    SmallVector<Value> updated =
        accumulate(scaled, SmallVector<Value>(p), valueStage, /*wait=*/false);
    passTurn(consumer);
    scoresNow = waitGroups(scoresNow, 1);
    release(0, block);
    SoftmaxStep now = softmaxStep(scoresNow, block, max, sum);
    // The new P goes to registers only once the P V in flight, which
    // reads the old P's, is done: P passes through the wait with O.
    SmallVector<Value> waited(updated);
    llvm::append_range(waited, now.p);
    waited = waitGroups(waited, 0);
    updated.assign(waited.begin(), waited.begin() + outputs);
    SmallVector<Value> packed =
        packPairs(ArrayRef<Value>(waited).drop_front(outputs));
    release(1, previous);
    SmallVector<Value> next(now.max.begin(), now.max.end());
    llvm::append_range(next, now.sum);
    llvm::append_range(next, now.alpha);
    llvm::append_range(next, packed);
    llvm::append_range(next, updated);
    scf::YieldOp::create(b, loc, next);
  }

  // The last block's P V.
  auto [max, sum, alpha, p, o] = split(loop.getResults());
  Value last = arith::SubIOp::create(b, loc, blocks, index(1));
  SmallVector<Value> scaled = rescale(o, alpha);
  Value valueStage = waitForFill(1, last);
  waitForTurn(consumer);
  SmallVector<Value> updated =
      accumulate(scaled, SmallVector<Value>(p), valueStage, /*wait=*/false);
  passTurn(consumer, /*only=*/0);
  updated = waitGroups(updated, 0);
  SmallVector<Value> results(max.begin(), max.end());
  llvm::append_range(results, sum);
  llvm::append_range(results, updated);
  scf::YieldOp::create(b, loc, results);
  return SmallVector<Value>(ifAny.getResults());
}

FailureOr<LaunchShape> FlashKernel::build() {
  elementBytes = shape.elementBytes();
  queryBytes = tiling.getQueryBytes(elementBytes);
  stageBytes = tiling.getStageBytes(elementBytes);
  numQueries = k.idx.sizeValue(shape.queryRows);
  numKeys = k.idx.sizeValue(shape.keyRows);
  keyBlocks = shape.keyRows.isStatic()
                  ? llvm::divideCeil(shape.keys, tiling.keyBlock)
                  : 0;
  int64_t threads = tiling.getThreads();
  int64_t queryBlocks = llvm::divideCeil(shape.queries, tiling.queryRows);
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // Two blocks per SM when their shared memory fits: the warpgroups of one
  // block then fill the tensor cores while the other's do their softmax.
  // ptxas holds each thread to 128 registers for it, which the mma.sync
  // form's warps (a 16-row slice of O each) keep only up to head dim 64
  // without a mask input (above, or with the mask's values live, they
  // spill), and not with f32 operands split in two (twice the fragment
  // registers).
  bool splitF32 = shape.elementType.isF32() && !allowsTf32(attention);
  bool smallSlice = shape.headDim <= 64 && !shape.masked && !splitF32;
  if (!tiling.warpSpecialized &&
      tiling.twoBlocksFit(shape.elementBytes(), target) &&
      (!warpMma || smallSlice))
    kernel->setAttr("nvvm.minctasm", b.getI32IntegerAttr(2));

  // The tensor maps arrive as pointers (a gpu.func cannot take the nvgpu
  // type); the casts vanish in the lowering.
  Block &entry = kernel.getBody().front();
  auto cast = [&](Value pointer, int64_t rows, int64_t heads) -> Value {
    return UnrealizedConversionCastOp::create(
               b, loc, getSwizzledTensorMapType(loadBox(rows, heads)), pointer)
        .getResult(0);
  };
  if (!warpMma) {
    queryMap = cast(entry.getArgument(0), tiling.queryRows, shape.queryHeads);
    keyMap = cast(entry.getArgument(1), tiling.keyBlock, shape.keyHeads);
    valueMap = cast(entry.getArgument(2), tiling.keyBlock, shape.valueHeads);
  }

  thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  primary = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                  index(0));
  warpgroup = emitWarpUniform(
      b, loc,
      arith::DivUIOp::create(b, loc, thread, index(kThreadsPerWarpgroup)));
  // (The producer's computeGroup is never used.)
  computeGroup = tiling.warpSpecialized
                     ? arith::SubIOp::create(b, loc, warpgroup, index(1))
                     : warpgroup;
  groupThread =
      arith::RemUIOp::create(b, loc, thread, index(kThreadsPerWarpgroup));
  lane = arith::RemUIOp::create(b, loc, groupThread, index(32));
  quadLane = arith::RemUIOp::create(b, loc, lane, index(4));
  row0 = add(mul(computeGroup, index(kFlashRowsPerWarpgroup)),
             add(mul(arith::DivUIOp::create(b, loc, groupThread, index(32)),
                     index(16)),
                 arith::DivUIOp::create(b, loc, lane, index(4))));
  row1 = add(row0, index(8));

  // Under a causal mask the last query blocks see the most keys: they start
  // first, so that the short ones fill the end of the grid.
  Value queryBlock = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  if (shape.causal) {
    // (The grid's x is the run's query blocks where they are given at run
    // time.)
    Value lastBlock =
        shape.queryRows.isStatic()
            ? index(queryBlocks - 1)
            : arith::SubIOp::create(
                  b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x),
                  index(1))
                  .getResult();
    queryBlock = arith::SubIOp::create(b, loc, lastBlock, queryBlock);
  }
  firstQuery = mul(queryBlock, index(tiling.queryRows));
  Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  batchCoords = k.idx.delinearize(batch, shape.batch);
  queryBatch = mapBatchCoords(shape.queryBatch, shape.queryHeads);
  keyBatch = mapBatchCoords(shape.keyBatch, shape.keyHeads);
  valueBatch = mapBatchCoords(shape.valueBatch, shape.valueHeads);

  // The key blocks this block reads: all, or under a causal mask those up
  // to the last key its last query sees (none when every row is hidden).
  Value blocks = keyBlocks ? index(keyBlocks)
                          : arith::CeilDivUIOp::create(
                                b, loc, numKeys, index(tiling.keyBlock))
                                .getResult();
  if (shape.causal) {
    Value seen = diagonalKey(addSigned(firstQuery, tiling.queryRows));
    seen = arith::MaxSIOp::create(b, loc, seen, index(0));
    blocks = arith::MinSIOp::create(
        b, loc, blocks,
        arith::CeilDivSIOp::create(b, loc, seen, index(tiling.keyBlock)));
  }

  setUp();
  // With a positive scale and no mask input the max of the raw scores gives
  // the max of the scaled ones, and scale * log2(e) folds into one FMA
  // before exp2; otherwise the scores are scaled (and masked) first.
  double log2e = 1.0 / std::log(2.0);
  foldScale = shape.scale > 0 && !shape.masked;
  factor = foldScale ? shape.scale * log2e : log2e;
  if (tiling.warpSpecialized) {
    if (failed(buildWarpSpecialized(blocks)))
      return failure();
  } else if (failed(finish(buildLoop(blocks)))) {
    return failure();
  }
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  launch.grid = {queryBlocks, 1, 1};
  shape.setBatchGrid(launch);
  shape.limitLengths(launch);
  if (!shape.queryRows.isStatic()) {
    launch.gridWork = shape.queryRows;
    launch.workPerBlock = tiling.queryRows;
    launch.maxBlocks = kMaxGridX;
  }
  launch.block = {threads, 1, 1};
  launch.sharedBytes = tiling.getSharedBytes(elementBytes);
  return launch;
}

FailureOr<LaunchShape>
mlir::fk::buildFlashAttentionKernel(FusionOp fusion,
                                    const FlashAttentionTiling &tiling,
                                    TargetAttr target, gpu::GPUFuncOp kernel,
                                    gpu::GPUModuleOp kernels) {
  return FlashKernel(fusion, tiling, target, /*warpMma=*/false, kernel,
                     kernels)
      .build();
}

FailureOr<LaunchShape>
mlir::fk::buildWarpMmaFlashAttentionKernel(FusionOp fusion,
                                           const FlashAttentionTiling &tiling,
                                           TargetAttr target,
                                           gpu::GPUFuncOp kernel,
                                           gpu::GPUModuleOp kernels) {
  return FlashKernel(fusion, tiling, target, /*warpMma=*/true, kernel, kernels)
      .build();
}
