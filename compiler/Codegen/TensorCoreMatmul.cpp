//===- TensorCoreMatmul.cpp - matmul fusions on Hopper tensor cores -------===//
//
// One block of one warpgroup (128 threads) per output tile of tileM x tileN:
//
//   prologue   thread 0 starts TMA loads of the first stages-1 K tiles of A
//              and B into the shared-memory ring, each stage on its mbarrier
//   main loop  per K tile: wait for its stage's mbarrier, wgmma on it (the
//              previous wgmma group is then complete), a CTA barrier so that
//              every warp is done with the previous stage, then thread 0
//              refills that stage with the K tile stages-1 ahead
//   epilogue   the accumulator goes to shared memory (reusing the ring); each
//              thread takes runs of adjacent output elements, evaluates the
//              fusion's epilogue on them and stores every result
//
// Warp-specialized (TensorCoreTiling::consumers > 0; 128 x 256 tiles), the
// block is a producer warpgroup and one or two consumer warpgroups:
//
//   producer   thread 0 loads K tile t into stage t % stages once the
//              consumers released the stage's previous K tile (an "empty"
//              mbarrier per stage, one arrival per consumer warpgroup);
//              with two consumers it gives registers up (setmaxnreg)
//   consumers  each multiplies its 64 rows of every A tile by the B tile;
//              after issuing K tile t it knows K tile t - 1 done and
//              releases that stage. No barrier of the whole block: the
//              producer runs ahead as far as the ring allows
//   epilogue   each consumer (a named barrier of its warpgroup) stores 64
//              columns of its accumulator at a time into its part of an
//              f32 tile beside the ring and runs the epilogue of its rows
//
// Where one warpgroup holds the tile's accumulator, two consumers instead
// take turns on whole tiles (ping-pong: consumer c computes the block's
// tiles c, c + 2, ...), each fill read by one of them, their main loops
// ordered by a pair of "turn" mbarriers.
//
// The warp-specialized kernel is persistent: a block per SM strides over
// the output tiles (of every batch), and both roles count the ring's fills
// across tiles, so that the producer loads the block's next tile while the
// consumers run this one's epilogue.
//
// Cooperative, it runs in clusters of two blocks where row tiles come in
// pairs (getClusterBlocks): blocks 2c and 2c + 1 take tiles 2i and 2i + 1,
// the two row tiles of one column (the tile order walks the rows of a
// column first), so they share each B tile. Each producer loads its A tile
// and half of B into both blocks' stages (TMA multicast; each stage's
// mbarrier expects the whole tile, half of it from the other block), and
// each consumer releases a stage to both producers, which wait for all
// four consumers before refilling it. B then crosses L2 once per two
// tiles.
//
// The right operand B [K, N] is read either as stored (N innermost, each K
// tile as 64-column boxes; wgmma's "transposed" B) or, when the fusion
// computes it as transpose(w) of an input w [N, K] (x @ transpose(w)), from
// w itself, K-major like A: a tileN x 64 box per K tile, the layout wgmma
// takes untransposed. The K-major tiles go to wgmma 64 rows and 16 of K at
// a time, with descriptors advanced by hand (32 bytes per K step inside
// the swizzled row): the nvgpu op's own descriptor steps assume the
// N-major layout. N then needs no alignment (w's rows are K long), which
// is what an LM head over a vocabulary of 50257 needs.
//
// Out-of-bounds parts of operand tiles (M, N, K not multiples of the tile)
// arrive as zeros from TMA, so they add nothing; out-of-bounds outputs are
// not stored. Batch dims are a third tensor-map dimension per operand, so a
// tile never reads another batch's rows; broadcast batch dims map several
// output batches to one operand batch. Where B has no batch dims, the
// batches are instead rows of one product (batch x M rows), so B is read
// once rather than once per batch (a decode step's [B, 1, K] @ [K, N]).
//
// With K split (TensorCoreTiling::splits > 1), the grid's z is the split:
// a block runs the main loop over its split's K tiles and stores its f32
// accumulator tile to the partial workspace instead of running the
// epilogue; buildSplitKCombineKernel sums the splits and runs it.
//
//===----------------------------------------------------------------------===//

#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/SharedMemory.h"
#include "Codegen/TileEpilogue.h"
#include "Codegen/WarpMma.h"
#include "fk/IR/FkKernelLimits.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fk;

/// The registers per thread of the warp-specialized kernel's producer and
/// consumer warpgroups with two consumers (setmaxnreg).
static constexpr int64_t kProducerRegisters = 40, kConsumerRegisters = 232;

MemRefType mlir::fk::getSplitKPartialType(MatmulOp matmul,
                                          const TensorCoreTiling &tiling) {
  MatmulShape shape(matmul);
  return MemRefType::get({tiling.splits, shape.m, shape.n},
                         Float32Type::get(matmul.getContext()));
}

std::string mlir::fk::whyNotTensorCoreMatmul(FusionOp fusion,
                                             TargetAttr target) {
  std::string why = whyNoWarpgroupKernels(target);
  if (why.empty())
    why = whyNotTensorCoreOperands(fusion);
  // Tensor maps take row strides that are multiples of 16 bytes.
  if (why.empty())
    why = whyNotAlignedRows(MatmulShape(fusion.getMatmul()));
  return why;
}

int64_t mlir::fk::getClusterBlocks(FusionOp fusion,
                                   const TensorCoreTiling &tiling,
                                   TargetAttr target) {
  MatmulShape shape(fusion.getMatmul());
  // Ping-pong consumers in clusters measured 2.5% slower on an H200 (the
  // transformer block 1.355 -> 1.389 ms, 16 x 2048^3 0.377 -> 0.387 ms):
  // each block's consumers take turns, and the two blocks' turns then wait
  // on each other's.
  if (!tiling.isWarpSpecialized() || tiling.isPingPong() ||
      tiling.splits > 1 || shape.hasRuntimeRows())
    return 1;
  int64_t rowTiles = llvm::divideCeil(shape.m, tiling.tileM);
  int64_t tiles = shape.tiles(tiling.tileM, tiling.tileN);
  // Each block loads half of the B tile: whole 64-column boxes (as many of
  // each product's), or half of a K-major box's rows (a multiple of the
  // 8 rows of a 128-byte swizzle pattern).
  int64_t columns = shape.outputTileColumns(tiling.tileN);
  int64_t boxColumns = kSwizzleBytes / shape.elementBytes();
  bool halves = shape.rhsKMajor ? columns % 16 == 0
                                : (columns / boxColumns) % 2 == 0;
  if (rowTiles % 2 != 0 || std::min(tiles, target.getSmCount()) % 2 != 0 ||
      !halves)
    return 1;
  return 2;
}

SmallVector<Value, 3>
mlir::fk::buildOperandTensorMaps(OpBuilder &b, FusionOp fusion,
                                 const TensorCoreTiling &tiling,
                                 TargetAttr target, Value lhsBuffer,
                                 ValueRange rhsBuffers, Value rows) {
  MatmulShape shape(fusion.getMatmul());
  int64_t bytes = shape.elementBytes();
  auto pointer = LLVM::LLVMPointerType::get(b.getContext());
  // One right operand per matmul: a pair's two of one N, a group's of each
  // product's N.
  SmallVector<MatmulOp, 4> products = fusion.getMatmuls();
  assert(products.size() == rhsBuffers.size() && "a map per right operand");
  Location loc = fusion.getLoc();
  // A [batch, M, K]: boxes of tileK (one 128-byte row) x tileM; rows given
  // at run time are the map's extent computed per run.
  SmallVector<int64_t> lhsDims = {shape.k, shape.hasRuntimeRows()
                                               ? ShapedType::kDynamic
                                               : shape.m},
                       lhsStrides = {shape.k * bytes},
                       lhsBox = {tiling.tileK, tiling.tileM};
  // B [batch, K, N]: boxes of 64 columns (128 bytes) x tileK; K-major, its
  // source w [batch, N, K]: boxes of tileK x the tile's columns of B (half
  // the tile's for each of a pair), as A's.
  SmallVector<int64_t> rhsDims = {shape.n, shape.k},
                       rhsStrides = {shape.n * bytes},
                       rhsBox = {kSwizzleBytes / bytes, tiling.tileK};
  if (shape.rhsKMajor) {
    rhsDims = {shape.k, shape.n};
    rhsStrides = {shape.k * bytes};
    rhsBox = {tiling.tileK, shape.outputTileColumns(tiling.tileN) /
                                getClusterBlocks(fusion, tiling, target)};
  }
  if (shape.batched()) {
    lhsDims.push_back(ShapedType::getNumElements(shape.lhsBatch));
    lhsStrides.push_back(shape.m * shape.k * bytes);
    lhsBox.push_back(1);
    rhsDims.push_back(ShapedType::getNumElements(shape.rhsBatch));
    rhsStrides.push_back(shape.k * shape.n * bytes);
    rhsBox.push_back(1);
  }
  SmallVector<Value> lhsDynamicDims;
  if (shape.hasRuntimeRows())
    lhsDynamicDims.push_back(rows);
  SmallVector<Value, 3> maps = {
      TensorMapOp::create(b, loc, pointer, lhsBuffer, lhsDynamicDims,
                          ValueRange(), lhsDims, lhsStrides, lhsBox,
                          kSwizzleBytes)};
  for (auto [product, rhsBuffer] : llvm::zip(products, rhsBuffers)) {
    int64_t n = MatmulShape(product).n;
    rhsDims[shape.rhsKMajor ? 1 : 0] = n;
    if (!shape.rhsKMajor)
      rhsStrides[0] = n * bytes;
    if (shape.batched())
      rhsStrides.back() = shape.k * n * bytes;
    maps.push_back(TensorMapOp::create(b, loc, pointer, rhsBuffer,
                                       ValueRange(), ValueRange(), rhsDims,
                                       rhsStrides, rhsBox, kSwizzleBytes));
  }
  return maps;
}

bool mlir::fk::storesResultByTma(FusionOp fusion,
                                 const TensorCoreTiling &tiling,
                                 TargetAttr target) {
  MatmulOp matmul = fusion.getMatmul();
  // One product, or a group's products each yielded as it is (its result
  // p is product p): the tile's product picks its result's map.
  SmallVector<MatmulOp, 4> products = fusion.getMatmuls();
  bool group = fusion.isMatmulGroup();
  if (!matmul || !tiling.isWarpSpecialized() || tiling.splits > 1 ||
      (products.size() != 1 && !group) ||
      fusion.getNumResults() != products.size())
    return false;
  ValueRange yielded =
      cast<YieldOp>(fusion.getBody().front().getTerminator()).getValues();
  MatmulShape shape(matmul);
  if (shape.elementBytes() != 2 || shape.batched() ||
      shape.hasRuntimeRows() ||
      shape.tiles(tiling.tileM, tiling.tileN) <= target.getSmCount())
    return false;
  for (auto [p, product] : llvm::enumerate(products)) {
    // Each result is its product's shape (batches folded into the rows are
    // consecutive rows of the result too): a 2-D map of m x n covers it.
    auto resultType = tensorType(fusion.getResult(p));
    if ((group && yielded[p] != product.getResult()) ||
        (MatmulShape(product).n * 2) % 16 != 0 ||
        resultType.getShape() != tensorType(product.getResult()).getShape() ||
        resultType.getElementTypeBitWidth() != 16)
      return false;
  }
  // The epilogue, evaluated on the accumulator's registers, reads no input
  // but the matmul's operands and vectors along its columns (a bias): a
  // residual read at the fragment's scattered elements measured slower
  // than the f32 tile's coalesced runs (docs/tiling.md, "Results stored by
  // TMA").
  auto isOperand = [&](Value arg) {
    return llvm::any_of(products, [&](MatmulOp product) {
      return arg == product.getLhs() || arg == getTensorCoreRhsInput(product);
    });
  };
  for (auto [input, arg] : llvm::zip(fusion.getInputs(),
                                     fusion.getBody().front().getArguments())) {
    if (isOperand(arg))
      continue;
    ArrayRef<int64_t> dims = tensorType(input).getShape();
    if (dims.size() > 1 || (dims.size() == 1 && dims[0] != shape.n))
      return false;
  }
  return true;
}

std::string mlir::fk::describeTensorCoreKernel(FusionOp fusion,
                                               const TensorCoreTiling &tiling,
                                               TargetAttr target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "matmul on the wgmma kernel: tiles of " << tiling.tileM << " x "
     << tiling.tileN << ", K in steps of " << tiling.tileK;
  if (tiling.splits > 1)
    os << ", split among " << tiling.splits << " blocks per tile";
  if (!tiling.isWarpSpecialized())
    os << "; one warpgroup copies and computes";
  else if (tiling.consumers == 1)
    os << "; a producer warpgroup and one consumer, persistent";
  else if (tiling.isPingPong())
    os << "; a producer warpgroup and two consumers taking turns on whole "
          "tiles (ping-pong), persistent";
  else
    os << "; a producer warpgroup and two consumers sharing each tile, "
          "persistent";
  if (getClusterBlocks(fusion, tiling, target) > 1)
    os << ", in clusters of two blocks on the two row tiles of a column, "
          "each loading half of the B tile for both (TMA multicast)";
  os << "; a ring of " << tiling.stages << " TMA stages; ";
  if (storesResultByTma(fusion, tiling, target))
    os << (fusion.getNumResults() > 1 ? "results" : "result")
       << " stored by TMA from the accumulator's registers";
  else
    os << "the epilogue through an f32 tile in shared memory";
  return text;
}

/// The result tile of one consumer that a TMA store writes: 64 columns
/// (128 bytes, one swizzle span) of its rows.
static int64_t getStoredTileRows(const TensorCoreTiling &tiling) {
  return tiling.getWarpgroupRows();
}

SmallVector<Value> mlir::fk::buildResultTensorMaps(OpBuilder &b,
                                                   FusionOp fusion,
                                                   const TensorCoreTiling &tiling,
                                                   ValueRange resultBuffers) {
  SmallVector<Value> maps;
  for (auto [product, buffer] :
       llvm::zip_equal(fusion.getMatmuls(), resultBuffers)) {
    MatmulShape shape(product);
    maps.push_back(TensorMapOp::create(
        b, fusion.getLoc(), LLVM::LLVMPointerType::get(b.getContext()),
        buffer, ValueRange(), ValueRange(), ArrayRef<int64_t>{shape.n, shape.m},
        ArrayRef<int64_t>{shape.n * 2},
        ArrayRef<int64_t>{kSwizzleBytes / 2, getStoredTileRows(tiling)},
        kSwizzleBytes));
  }
  return maps;
}

namespace {
/// Builds the kernel body; see the file comment.
class TensorCoreKernel {
public:
  TensorCoreKernel(FusionOp fusion, const TensorCoreTiling &tiling,
                   TargetAttr target, gpu::GPUFuncOp kernel,
                   gpu::GPUModuleOp kernels)
      : k(fusion, kernel, kernels,
          /*firstBuffer=*/(tiling.splits > 1 ? 3 : 2) +
              (fusion.getMatmuls().size() - 1) +
              (storesResultByTma(fusion, tiling, target)
                   ? fusion.getNumResults()
                   : 0)),
        tiling(tiling), target(target), matmul(fusion.getMatmul()),
        shape(matmul), b(k.b), loc(k.loc), ctx(fusion.getContext()),
        kernel(kernel), outputColumns(shape.outputTileColumns(tiling.tileN)) {
    if (tiling.splits > 1)
      partial = kernel.getBody().front().getArgument(2);
  }

  FailureOr<LaunchShape> build();

private:
  Value index(int64_t v) { return k.idx.constant(v); }
  /// The low bit of `round` (an index), the parity of an mbarrier phase.
  Value parity(Value round) { return getPhaseParity(b, loc, round); }
  /// The f32 accumulator of one computing warpgroup's rows of the tile.
  nvgpu::WarpgroupAccumulatorType accumulatorType() {
    return nvgpu::WarpgroupAccumulatorType::get(
        ctx, VectorType::get({tiling.getWarpgroupRows(), tiling.tileN},
                             b.getF32Type()));
  }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }

  MemRefType sharedTile(ArrayRef<int64_t> dims, Type element) {
    return getSharedMemRefType(ctx, dims, element);
  }
  /// The box a TMA load of an operand brings: rank 3 when batched.
  MemRefType loadBox(int64_t rows, int64_t columns) {
    if (shape.batched())
      return sharedTile({1, rows, columns}, shape.elementType);
    return sharedTile({rows, columns}, shape.elementType);
  }
  /// A view of the ring's bytes at `offset` (from the aligned base).
  Value view(Value offset, MemRefType type) {
    return shared.view(b, loc, offset, type);
  }

  void setUpSharedMemory();
  void loadStage(Value stage, Value kTile, Value predicate);
  /// Releases the ring's `stage` to the producers of every block of the
  /// cluster (each block's producer fills the stage in both).
  void releaseStageInCluster(Value stage);
  /// A barrier of every thread of the cluster's blocks.
  void syncCluster();
  /// A wgmma descriptor of the `tile` at `offset` in the ring.
  Value descriptor(Value offset, MemRefType tile, Value map);
  /// accumulator += the A and B tiles of the stage at those ring offsets
  /// (A's: the first of the warpgroup's rows).
  Value multiply(Value aStage, Value bStage, Value accumulator);
  Value multiplyTile(Value aStage, Value bStage, Value accumulator);
  Value multiplyKMajorTile(Value aStage, Value bStage, Value accumulator);
  /// The ring's byte offsets of the A and of the B tile of `stage`.
  Value aStageOffset(Value stage) { return mul(stage, index(aStageBytes)); }
  Value bStageOffset(Value stage) {
    return add(index(tiling.stages * aStageBytes),
               mul(stage, index(bStageBytes)));
  }
  /// The stage of the ring's fill number `fill`, and which fill of that
  /// stage it is (the phase of the stage's mbarriers it completes).
  std::pair<Value, Value> getStageAndRound(Value fill) {
    Value stages = index(tiling.stages);
    return {arith::RemUIOp::create(b, loc, fill, stages),
            arith::DivUIOp::create(b, loc, fill, stages)};
  }
  /// Waits until the copy engine has made the ring's fill number `fill`
  /// (the one-warpgroup kernel's K tile; the warp-specialized kernel counts
  /// across the block's tiles); returns its stage.
  Value waitForStage(Value fill);
  /// The kernel of one warpgroup: its main loop, then its epilogue.
  LogicalResult buildOneWarpgroup();
  Value mainLoop();
  /// The warp-specialized kernel: the producer's loop and the consumers'.
  LogicalResult buildWarpSpecialized();
  /// The output tiles of every batch, which the persistent kernel's blocks
  /// stride over (a count read at run time where the rows are).
  Value getTileCount() {
    if (!shape.hasRuntimeRows())
      return index(shape.tiles(tiling.tileM, tiling.tileN));
    Value rowTiles = k.idx.value(getRowTileCount(k, shape, tiling.tileM));
    return mul(rowTiles, index(shape.columnTiles(outputColumns)));
  }
  /// Sets the tile's origin and batch coordinates from its linear index.
  void setTile(Value linear);
  /// A group's tile (tileColumn among the kernel's columns, every
  /// product's tiles in turn): sets `product`, the right operand's map,
  /// and tileColumn to the column in that product.
  void selectProduct();
  /// Calls `body(first)` on the block's output tiles number `which`,
  /// `which` + `every`, ... (of blockIdx.x, blockIdx.x + gridDim.x, ...),
  /// their origin and batch set. `first` counts the K tiles of the block's
  /// earlier tiles, the place of this tile's first in the ring's order of
  /// fills.
  LogicalResult forEachTile(Value which, int64_t every,
                            function_ref<LogicalResult(Value first)> body);
  void producerLoop(Value first);
  Value consumerLoop(Value first, Value consumer, Value warpgroupThread);
  /// Ping-pong: a consumer starts the main loop of the block's tile i (its
  /// `first` fill: i * K tiles) once the other has ended tile i - 1's, so
  /// that it never waits on a stage's mbarrier more than one phase ahead
  /// (a parity wait cannot tell further phases apart), and passes the turn
  /// on after its own main loop.
  void waitForTurn(Value first, Value consumer);
  void passTurn(Value consumer, Value warpgroupThread);
  /// The consumers' epilogue of a tile, in slices of kEpilogueColumns columns
  /// through the epilogue tile beside the ring.
  LogicalResult consumerEpilogue(Value accumulator, Value consumer,
                                 Value warpgroupThread);
  /// consumerEpilogue where the result is stored by TMA
  /// (storesResultByTma): per 64-column slice, the accumulator's values as
  /// 16-bit pairs into one of two swizzled tiles, then one TMA store.
  void storeSlicesByTma(Value accumulator, Value consumer,
                        Value warpgroupThread);
  /// The thread of each consumer that issues its TMA stores.
  Value isStoreIssuer(Value warpgroupThread) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 warpgroupThread, index(0));
  }
  /// Waits, in the store issuer, until at most `pending` of its TMA
  /// stores still read shared memory (all of them done with `whole`).
  void waitForStores(Value warpgroupThread, int64_t pending,
                     bool whole = false);
  /// A barrier of the threads that compute the tile: every thread of the
  /// one-warpgroup kernel; the consumer warpgroup `consumer` of the
  /// warp-specialized one.
  void syncComputeThreads(Value consumer = Value());
  /// Stores `columns` columns from `firstColumn` of the warpgroup's
  /// accumulator into the f32 tile `cTile` in shared memory (the
  /// warpgroup's rows from its first), from its column `at` (a multiple of
  /// 8).
  void storeAccumulator(Value accumulator, Value cTile, Value warpgroupThread,
                        int64_t firstColumn, int64_t columns, int64_t at = 0);
  /// The LLVM form of one 64-row slice of a warpgroup's accumulator
  /// (tileN / 2 f32 values per thread), and of the whole accumulator (one
  /// such struct per 64 rows).
  Type getFragmentType() {
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(tiling.tileN / 2, b.getF32Type()));
  }
  Type getPackedAccumulatorType() {
    return LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(tiling.getWarpgroupRows() / 64,
                               getFragmentType()));
  }
  /// wgmma's f32 accumulator fragment (PTX ISA, "Matrix fragments for
  /// wgmma.mma_async", m64nNk16): per 64 rows, thread t of the warpgroup
  /// holds N / 2 values; value 4j + 2h + c is row 16 (t / 32) + (t % 32) / 4
  /// + 8h, column 8j + 2 (t % 4) + c. Returns each 64-row slice's values
  /// (the structs of getFragmentType), the thread's row 16 (t / 32) + (t %
  /// 32) / 4, its first column in each 8-column chunk 2 (t % 4), and its
  /// lane t % 32.
  struct ThreadFragments {
    SmallVector<Value> slices;
    Value row, column, lane;
  };
  ThreadFragments getThreadFragments(Value accumulator, Value warpgroupThread);
  /// Writes 64 columns from `firstColumn` of the warpgroup's accumulator,
  /// rounded to the result's 16-bit type in pairs, into `words` (the
  /// warpgroup's rows x 32 words, 128-byte swizzled as a TMA store reads
  /// it: row r's 16-byte chunk j at chunk j XOR r % 8).
  void writeSliceWords(
      Value accumulator, Value words, Value warpgroupThread,
      int64_t firstColumn,
      function_ref<Value(Value, Value, Value, Value)> epilogue = nullptr);
  /// The 16-bit pair of result values (as an i32) the fusion's epilogue
  /// makes of the accumulator values `low` and `high` at row `tileRow` of
  /// the consumer's rows and column `pairColumn` of the tile (the pair's
  /// first; storesResultByTma).
  Value evaluatePair(Value tileRow, Value firstRow, Value pairColumn,
                     Value low, Value high);
  /// Whether the accumulator's f32 tile `cTile` has its columns swizzled
  /// (getSwizzledTileColumn): wherever its rows allow. Measured on an H200
  /// (ncu, 8192 x 2048 x 2048, 128 x 256 tiles): with plain rows the
  /// epilogue's shared stores took 8.9 wavefronts per request and its loads
  /// 10.4, against 2 and 4 conflict-free.
  static bool isSwizzled(Value cTile) {
    return canSwizzleTileColumns(cast<MemRefType>(cTile.getType()));
  }
  /// The epilogue, by one warpgroup (its thread `thread`), on the f32 tile
  /// `cTile` of `rows` rows from the output tile's row `firstRow` and
  /// `columns` output columns from its column `first`; a pair's second
  /// product lies `columns` further in `cTile`.
  LogicalResult runEpilogue(Value cTile, Value firstRow, int64_t rows,
                            int64_t first, int64_t columns, Value thread);
  /// runEpilogue's epilogue of one product of a group (all of a pair's or a
  /// single matmul's when null).
  LogicalResult runProductEpilogue(MatmulOp product, Value cTile,
                                   Value firstRow, int64_t rows, int64_t first,
                                   int64_t columns, Value thread);
  /// Stores the block's f32 tile (in shared memory) as its split's part of
  /// the partial buffer.
  void storePartialTile(Value tile);

  KernelContext k;
  const TensorCoreTiling &tiling;
  TargetAttr target;
  MatmulOp matmul;
  MatmulShape shape;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  gpu::GPUFuncOp kernel;
  /// The output columns of a tile: tileN, or for a pair the tileN / 2
  /// columns of each product (the accumulator's first and second half).
  int64_t outputColumns;

  /// K tiles of the block's split.
  int64_t aStageBytes = 0, bStageBytes = 0, kTiles = 0;
  DynamicSharedMemory shared;
  /// The split's partial buffer and first K tile (several splits only).
  Value partial, firstKTile;
  /// The thread that issues the copies; the mbarriers of filled stages and
  /// (warp-specialized) of stages the consumers released.
  Value primary, barriers, emptyBarriers, turns;
  Value lhsMap, rhsMap, lhsDescriptorMap, rhsDescriptorMap;
  /// A pair's second right operand's map (else null).
  Value pairedRhsMap;
  /// The result's map where the kernel stores it by TMA (else null).
  Value resultMap;
  /// Whether evaluatePair could not evaluate the epilogue (it reported
  /// why).
  bool epilogueFailed = false;
  /// A group's products, the maps of their right operands (as the
  /// kernel's pointer arguments) and the kernel column of each one's first
  /// tile; the product of the block's tile (an index).
  SmallVector<MatmulOp, 4> groupProducts;
  SmallVector<Value> groupRhsPointers;
  SmallVector<int64_t> groupFirstColumns;
  MemRefType rhsBoxType;
  /// The results' tensor maps (storesResultByTma), one per product of a
  /// group (selectProduct picks the tile's), and their box.
  SmallVector<Value> resultPointers;
  MemRefType resultBoxType;
  Value product;
  Value tileRow, tileColumn, lhsBatch, rhsBatch;
  SmallVector<Value> batchCoords;
  /// Blocks per cluster (getClusterBlocks) and this block's rank in its
  /// cluster.
  int64_t clusterBlocks = 1;
  Value clusterRank;
};
} // namespace

void TensorCoreKernel::setUpSharedMemory() {
  shared = DynamicSharedMemory::create(
      b, loc, k.kernels, tiling.getSharedBytes(shape.elementBytes()));
  barriers = createCopyBarriers(b, loc, tiling.stages, primary);
  // One arrival per consumer warpgroup that reads the stage releases it:
  // every consumer, or in ping-pong the one whose tile it holds.
  if (tiling.isWarpSpecialized())
    emptyBarriers = createCopyBarriers(
        b, loc, tiling.stages, primary,
        /*arrivals=*/(tiling.isPingPong() ? 1 : tiling.consumers) *
            clusterBlocks);
  // Ping-pong consumers' turns: turn[c] completes a phase each time the
  // other consumer ends a main loop.
  if (tiling.isPingPong())
    turns = createCopyBarriers(b, loc, tiling.consumers, primary);
  // The other block's copies and releases reach these mbarriers.
  if (clusterBlocks > 1)
    syncCluster();
}

void TensorCoreKernel::syncCluster() {
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

/// The shared-memory address (32 bits) of mbarrier `stage` of `group`: the
/// group seen as the memref its lowering makes of it, whose pointer the
/// inline PTX of a remote arrive maps into another block.
static Value barrierAddress(OpBuilder &b, Location loc, MLIRContext *ctx,
                            IndexBuilder &idx, Value group, Value stage) {
  Value memref = UnrealizedConversionCastOp::create(
                     b, loc,
                     nvgpu::getMBarrierMemrefType(
                         ctx, cast<nvgpu::MBarrierGroupType>(group.getType())),
                     group)
                     .getResult(0);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(), idx.add(base, idx.mul(stage, idx.constant(8))));
}

void TensorCoreKernel::releaseStageInCluster(Value stage) {
  // The stage's empty mbarrier in each block: its address in this block's
  // shared memory mapped into the other's (mapa), arrived on remotely. The
  // arrive has the default (CTA-scope) release, as CUTLASS's cluster
  // barriers: the consumer has only read the stage, through wgmma, whose
  // group is complete; a cluster-scope release measured 1.85x slower.
  // (Formally weaker than a cluster-scope release; CUTLASS's pipelines
  // rely on the same.)
  Value address = barrierAddress(b, loc, ctx, k.idx, emptyBarriers, stage);
  for (int64_t rank = 0; rank < clusterBlocks; ++rank)
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange(),
        ValueRange{address, arith::ConstantIntOp::create(b, loc, rank, 32)},
        "{\n\t.reg .b32 remote;\n\t"
        "mapa.shared::cluster.u32 remote, $0, $1;\n\t"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}",
        "r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
}

void TensorCoreKernel::loadStage(Value stage, Value kTile, Value predicate) {
  Value aOffset = aStageOffset(stage), bOffset = bStageOffset(stage);
  if (firstKTile)
    kTile = add(firstKTile, kTile);
  Value kStart = mul(kTile, index(tiling.tileK));
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, loc, barriers, index(aStageBytes + bStageBytes), stage, predicate);

  MemRefType aBox = loadBox(tiling.tileM, tiling.tileK);
  SmallVector<Value> aCoords = {kStart, tileRow};
  if (shape.batched())
    aCoords.push_back(lhsBatch);
  nvgpu::TmaAsyncLoadOp::create(b, loc, view(aOffset, aBox), barriers,
                                lhsMap, aCoords, stage, Value(), predicate);

  // A pair's B tile is the first product's columns, then the second's. In
  // a cluster (clusterBlocks 2) each block loads its half of the B tile
  // into both blocks' stages (multicast); alone, its rank is 0 and the half
  // is the whole.
  SmallVector<Value, 2> maps = {rhsMap};
  if (pairedRhsMap)
    maps.push_back(pairedRhsMap);
  Value rank = clusterBlocks > 1 ? clusterRank : index(0);
  Value multicast =
      clusterBlocks > 1
          ? arith::ConstantIntOp::create(b, loc, (1 << clusterBlocks) - 1, 16)
          : Value();
  int64_t bytes = shape.elementBytes();
  if (shape.rhsKMajor) {
    // Rows [rank * part, (rank + 1) * part) of each product's box.
    int64_t part = outputColumns / clusterBlocks;
    MemRefType bBox = loadBox(part, tiling.tileK);
    Value firstRow = mul(rank, index(part));
    for (auto [i, map] : llvm::enumerate(maps)) {
      Value offset = add(
          bOffset, add(index(i * outputColumns * tiling.tileK * bytes),
                       mul(firstRow, index(tiling.tileK * bytes))));
      SmallVector<Value> bCoords = {kStart, add(tileColumn, firstRow)};
      if (shape.batched())
        bCoords.push_back(rhsBatch);
      nvgpu::TmaAsyncLoadOp::create(b, loc, view(offset, bBox), barriers,
                                    map, bCoords, stage, multicast, predicate);
    }
    return;
  }
  // B's tile row is tileN wide: several boxes of one swizzle span each, of
  // which a block of a cluster loads boxes rank, rank + 2, ... (as many of
  // each product's: getClusterBlocks).
  int64_t boxColumns = kSwizzleBytes / bytes;
  int64_t boxesPerProduct = outputColumns / boxColumns;
  MemRefType bBox = loadBox(tiling.tileK, boxColumns);
  for (int64_t j = 0; j < tiling.tileN / boxColumns; j += clusterBlocks) {
    Value box = add(index(j % boxesPerProduct), rank);
    Value offset = add(
        bOffset, mul(add(index(j - j % boxesPerProduct), box),
                     index(tiling.tileK * boxColumns * bytes)));
    SmallVector<Value> bCoords = {
        add(tileColumn, mul(box, index(boxColumns))), kStart};
    if (shape.batched())
      bCoords.push_back(rhsBatch);
    nvgpu::TmaAsyncLoadOp::create(b, loc, view(offset, bBox), barriers,
                                  maps[j / boxesPerProduct], bCoords, stage,
                                  multicast, predicate);
  }
}

Value TensorCoreKernel::mainLoop() {
  int64_t stages = tiling.stages;
  // K steps beyond the last are never loaded (a constant-false predicate
  // would print as an invalid `@0` in the PTX).
  for (int64_t s = 0; s + 1 < stages && s < kTiles; ++s)
    loadStage(index(s), index(s), primary);
  Value init = nvgpu::WarpgroupMmaInitAccumulatorOp::create(
      b, loc, accumulatorType());
  auto loop = scf::ForOp::create(b, loc, index(0), index(kTiles), index(1),
                                 ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    Value stage = waitForStage(kTile);
    Value aStage = aStageOffset(stage), bStage = bStageOffset(stage);
    // The multiply waits for all but its own wgmma group, so the previous
    // K tile's group is done (in this warp: wait_group is per warp, hence
    // the CTA barrier before the previous stage is refilled).
    Value next = multiply(aStage, bStage, loop.getRegionIterArg(0));
    gpu::BarrierOp::create(b, loc);
    Value ahead = add(kTile, index(stages - 1));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          ahead, index(kTiles));
    loadStage(getStageAndRound(ahead).first, ahead,
              arith::AndIOp::create(b, loc, primary, inRange));
    scf::YieldOp::create(b, loc, next);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  return loop.getResult(0);
}

Value TensorCoreKernel::waitForStage(Value fill) {
  // A stage's mbarrier completes one phase per fill: fill n of a stage
  // (the ring's fill n * stages + stage) is phase n, waited on with parity
  // n % 2.
  auto [stage, round] = getStageAndRound(fill);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity(round),
                                         index(kMbarrierWaitTicks), stage);
  return stage;
}

void TensorCoreKernel::producerLoop(Value first) {
  // The copy engine's n-th fill of the ring (n = first + K tile) goes to
  // stage n % stages once the consumers have released the stage's previous
  // fill, n - stages: that release is phase n / stages - 1 of the stage's
  // empty mbarrier.
  auto loop = scf::ForOp::create(b, loc, index(0), index(kTiles), index(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kTile = loop.getInductionVar();
  Value fill = add(first, kTile);
  auto [stage, round] = getStageAndRound(fill);
  Value refill = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                       fill, index(tiling.stages));
  auto ifRefill = scf::IfOp::create(b, loc, refill, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifRefill.getThenRegion().front());
    Value released = arith::SubIOp::create(b, loc, round, index(1));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, emptyBarriers,
                                           parity(released),
                                           index(kMbarrierWaitTicks), stage);
  }
  loadStage(stage, kTile, primary);
}

Value TensorCoreKernel::consumerLoop(Value first, Value consumer,
                                     Value warpgroupThread) {
  Value init = nvgpu::WarpgroupMmaInitAccumulatorOp::create(
      b, loc, accumulatorType());
  // The consumer's rows of each A tile (all of them in ping-pong).
  Value aRows = tiling.isPingPong()
                    ? index(0)
                    : mul(consumer, index(tiling.getWarpgroupRows() *
                                          tiling.tileK * shape.elementBytes()));
  Value releaser = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         warpgroupThread, index(0));
  // One thread per warpgroup releases a fill's stage to the producer (as
  // CUTLASS's pipelines do; a wgmma group is the warpgroup's).
  auto release = [&](Value fill, Value predicate) {
    auto ifRelease = scf::IfOp::create(b, loc, predicate, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
    if (clusterBlocks > 1)
      return releaseStageInCluster(getStageAndRound(fill).first);
    nvgpu::MBarrierArriveOp::create(
        b, loc, nvgpu::MBarrierTokenType::get(ctx), emptyBarriers,
        getStageAndRound(fill).first);
  };
  auto loop = scf::ForOp::create(b, loc, index(0), index(kTiles), index(1),
                                 ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kTile = loop.getInductionVar();
    Value fill = add(first, kTile);
    Value stage = waitForStage(fill);
    Value aStage = add(aStageOffset(stage), aRows);
    Value bStage = bStageOffset(stage);
    Value next = multiply(aStage, bStage, loop.getRegionIterArg(0));
    // The multiply waited for the previous K tile's wgmma group: its stage
    // is free.
    Value previous = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                           kTile, index(0));
    release(arith::SubIOp::create(b, loc, fill, index(1)),
            arith::AndIOp::create(b, loc, releaser, previous));
    scf::YieldOp::create(b, loc, next);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  // The last K tile's stage, which the producer refills for the next tile.
  if (kTiles > 0)
    release(add(first, index(kTiles - 1)), releaser);
  return loop.getResult(0);
}

void TensorCoreKernel::setTile(Value linear) {
  Value inBatch = linear;
  if (shape.batched()) {
    int64_t perBatch = shape.tiles(tiling.tileM, tiling.tileN) /
                       shape.batches();
    Value batch = arith::DivUIOp::create(b, loc, linear, index(perBatch));
    inBatch = arith::RemUIOp::create(b, loc, linear, index(perBatch));
    batchCoords = k.idx.delinearize(batch, shape.batch);
    lhsBatch = k.idx.broadcastLinear(batchCoords, shape.lhsBatch);
    rhsBatch = k.idx.broadcastLinear(batchCoords, shape.rhsBatch);
  }
  std::tie(tileRow, tileColumn) =
      emitOutputTileOrigin(k, shape, tiling.tileM, outputColumns, inBatch);
  selectProduct();
}

void TensorCoreKernel::selectProduct() {
  if (groupProducts.empty())
    return;
  // Product p's tiles start at column groupFirstColumns[p]: the last
  // product whose first column the tile reaches is its own.
  Value pointer = groupRhsPointers.front(), column = tileColumn;
  Value resultPointer =
      resultPointers.empty() ? Value() : resultPointers.front();
  product = index(0);
  for (size_t p = 1; p < groupProducts.size(); ++p) {
    Value start = index(groupFirstColumns[p]);
    Value reached = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          tileColumn, start);
    product = arith::SelectOp::create(b, loc, reached, index(p), product);
    column = arith::SelectOp::create(
        b, loc, reached, arith::SubIOp::create(b, loc, tileColumn, start),
        column);
    pointer = LLVM::SelectOp::create(b, loc, reached, groupRhsPointers[p],
                                     pointer);
    if (!resultPointers.empty())
      resultPointer = LLVM::SelectOp::create(b, loc, reached,
                                             resultPointers[p], resultPointer);
  }
  tileColumn = column;
  rhsMap = UnrealizedConversionCastOp::create(
               b, loc, getSwizzledTensorMapType(rhsBoxType), pointer)
               .getResult(0);
  if (resultPointer)
    resultMap = UnrealizedConversionCastOp::create(
                    b, loc, getSwizzledTensorMapType(resultBoxType),
                    resultPointer)
                    .getResult(0);
}

LogicalResult
TensorCoreKernel::forEachTile(Value which, int64_t every,
                              function_ref<LogicalResult(Value)> body) {
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(
      b, loc, add(block, mul(which, blocks)), getTileCount(),
      mul(blocks, index(every)), ValueRange{mul(which, index(kTiles))});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  setTile(loop.getInductionVar());
  Value first = loop.getRegionIterArg(0);
  if (failed(body(first)))
    return failure();
  scf::YieldOp::create(b, loc, add(first, index(every * kTiles)));
  return success();
}

void TensorCoreKernel::waitForStores(Value warpgroupThread, int64_t pending,
                                     bool whole) {
  auto ifIssuer = scf::IfOp::create(b, loc, isStoreIssuer(warpgroupThread),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending),
                                       whole ? UnitAttr() : b.getUnitAttr());
}

void TensorCoreKernel::storeSlicesByTma(Value accumulator, Value consumer,
                                        Value warpgroupThread) {
  int64_t rows = getStoredTileRows(tiling), columns = kSwizzleBytes / 2;
  int64_t tileBytes = rows * columns * 2;
  // Two tiles per consumer, where the f32 epilogue tile would be: a slice
  // is written into one while the other's store may still read it.
  Value base = add(index(tiling.stages * (aStageBytes + bStageBytes)),
                   mul(consumer, index(2 * tileBytes)));
  Value firstRow = tiling.isPingPong() ? index(0) : mul(consumer, index(rows));
  MemRefType storedTile = sharedTile({rows, columns}, shape.elementType);
  // The same bytes as 32-bit words: a thread writes its values in pairs.
  MemRefType wordTile = sharedTile({rows, columns / 2}, b.getI32Type());
  // A bare product's values are rounded in pairs; an epilogue is evaluated
  // on them first.
  bool bare = cast<YieldOp>(k.fusion.getBody().front().getTerminator())
                  .getValues()
                  .front() == matmul.getResult();
  auto epilogue = [&](Value tileRow, Value pairColumn, Value low,
                      Value high) {
    return evaluatePair(tileRow, firstRow, pairColumn, low, high);
  };
  int64_t slices = tiling.tileN / columns;
  for (int64_t slice = 0; slice < slices; ++slice) {
    Value offset = add(base, index(slice % 2 * tileBytes));
    // The tile's previous store (two slices ago; the last slice's where a
    // tile has an odd number of them) has read it.
    waitForStores(warpgroupThread,
                  /*pending=*/slice == 0 && slices % 2 ? 0 : 1);
    syncComputeThreads(consumer);
    writeSliceWords(accumulator, view(offset, wordTile), warpgroupThread,
                    slice * columns,
                    bare ? function_ref<Value(Value, Value, Value, Value)>()
                         : epilogue);
    // The generic proxy's writes, visible to the TMA store.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    syncComputeThreads(consumer);
    auto ifIssuer = scf::IfOp::create(b, loc, isStoreIssuer(warpgroupThread),
                                      /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
    nvgpu::TmaAsyncStoreOp::create(
        b, loc, view(offset, storedTile), resultMap,
        ValueRange{add(tileColumn, index(slice * columns)),
                   add(tileRow, firstRow)},
        Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
}

LogicalResult TensorCoreKernel::consumerEpilogue(Value accumulator,
                                                 Value consumer,
                                                 Value warpgroupThread) {
  if (resultMap) {
    storeSlicesByTma(accumulator, consumer, warpgroupThread);
    return failure(epilogueFailed);
  }
  // Each consumer runs the epilogue of its own rows of the tile (its half
  // of a cooperative tile, a ping-pong consumer's whole tile) through its
  // own part of the epilogue tile, synchronized by a named barrier of its
  // warpgroup alone: neither waits for the other's epilogue. (With one
  // epilogue over both halves and a barrier of both warpgroups, ncu counted
  // a third of the nn.Linear 4096 x 1024 x 4096 kernel's stalls at those
  // barriers: docs/tiling.md, "Epilogues per consumer".)
  int64_t columns = tiling.getEpilogueColumns();
  int64_t rows = tiling.getWarpgroupRows();
  Value offset = add(index(tiling.stages * (aStageBytes + bStageBytes)),
                     mul(consumer, index(rows * columns * 4)));
  Value cTile = view(offset, sharedTile({rows, columns}, b.getF32Type()));
  // The consumer's first row in the output tile.
  Value firstRow = tiling.isPingPong() ? index(0) : mul(consumer, index(rows));
  int64_t liveRows = std::min(rows, getLiveTileRows(tiling.tileM, shape));
  // A pair's slice is half as wide: its columns of each product side by
  // side in the epilogue tile.
  int64_t slice = pairedRhsMap ? columns / 2 : columns;
  for (int64_t first = 0; first < outputColumns; first += slice) {
    // The epilogue tile is free: its readers are done with the previous
    // slice or tile.
    syncComputeThreads(consumer);
    storeAccumulator(accumulator, cTile, warpgroupThread, first, slice);
    if (pairedRhsMap)
      storeAccumulator(accumulator, cTile, warpgroupThread,
                       outputColumns + first, slice, /*at=*/slice);
    syncComputeThreads(consumer);
    if (failed(runEpilogue(cTile, firstRow, liveRows, first, slice,
                           warpgroupThread)))
      return failure();
  }
  return success();
}

LogicalResult TensorCoreKernel::runEpilogue(Value cTile, Value firstRow,
                                            int64_t rows, int64_t first,
                                            int64_t columns, Value thread) {
  if (groupProducts.empty())
    return runProductEpilogue(nullptr, cTile, firstRow, rows, first, columns,
                              thread);
  // A group's tile holds one product's columns: that product's epilogue,
  // one case each.
  auto cases = llvm::to_vector(llvm::seq<int64_t>(0, groupProducts.size()));
  auto select = scf::IndexSwitchOp::create(b, loc, TypeRange(), product,
                                           cases, cases.size());
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&select.getDefaultRegion());
  scf::YieldOp::create(b, loc);
  for (auto [region, matmul] :
       llvm::zip(select.getCaseRegions(), groupProducts)) {
    b.createBlock(&region);
    auto yield = scf::YieldOp::create(b, loc);
    b.setInsertionPoint(yield);
    if (failed(runProductEpilogue(matmul, cTile, firstRow, rows, first,
                                  columns, thread)))
      return failure();
  }
  return success();
}

LogicalResult TensorCoreKernel::runProductEpilogue(MatmulOp product,
                                                   Value cTile, Value firstRow,
                                                   int64_t rows, int64_t first,
                                                   int64_t columns,
                                                   Value thread) {
  return emitMatmulEpilogue(
      k, product ? MatmulShape(product) : shape, cTile, rows, columns,
      add(tileRow, firstRow), add(tileColumn, index(first)), batchCoords,
      kThreadsPerWarpgroup, thread, isSwizzled(cTile), product);
}

void TensorCoreKernel::waitForTurn(Value first, Value consumer) {
  // Tile i > 0 waits for phase (i - 1) / 2 of turn[c]: the other
  // consumer's main loops end in turn, one phase each. Tile 0 waits with
  // parity 1, the phase before a fresh mbarrier's first, which counts as
  // complete: every tile waits, with no branch around the wait. (A branch
  // there put the accumulator's zeroing behind an injected warpgroup.arrive:
  // C7519. The consumers' serialized wgmmas, C7520, came from the warpgroup
  // index, now warp-uniform: buildWarpSpecialized.)
  Value tile = arith::DivUIOp::create(b, loc, first,
                                      index(std::max<int64_t>(kTiles, 1)));
  Value later = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      tile, index(0));
  Value phase = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tile, index(1)),
      index(tiling.consumers));
  Value waited = arith::SelectOp::create(b, loc, later, parity(phase),
                                         arith::ConstantIntOp::create(
                                             b, loc, b.getI1Type(), 1));
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, turns, waited,
                                         index(kMbarrierWaitTicks), consumer);
}

void TensorCoreKernel::passTurn(Value consumer, Value warpgroupThread) {
  Value releaser = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         warpgroupThread, index(0));
  auto ifReleaser = scf::IfOp::create(b, loc, releaser, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifReleaser.getThenRegion().front());
  Value other = arith::SubIOp::create(b, loc, index(tiling.consumers - 1),
                                      consumer);
  nvgpu::MBarrierArriveOp::create(b, loc, nvgpu::MBarrierTokenType::get(ctx),
                                  turns, other);
}

void TensorCoreKernel::syncComputeThreads(Value consumer) {
  if (!tiling.isWarpSpecialized()) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // A named barrier of consumer c's warpgroup alone, 1 + c (the producer
  // warpgroup never joins; each consumer runs its own epilogue).
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v).getResult();
  };
  Value id = arith::AddIOp::create(
      b, loc, i32(1),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), consumer));
  NVVM::BarrierOp::create(b, loc, /*res=*/Type(), id,
                          i32(kThreadsPerWarpgroup),
                          /*reductionOp=*/{}, /*reductionPredicate=*/Value());
}

TensorCoreKernel::ThreadFragments
TensorCoreKernel::getThreadFragments(Value accumulator,
                                     Value warpgroupThread) {
  ThreadFragments fragments;
  Value packed = UnrealizedConversionCastOp::create(
                     b, loc, getPackedAccumulatorType(), accumulator)
                     .getResult(0);
  for (int64_t slice = 0; slice < tiling.getWarpgroupRows() / 64; ++slice)
    fragments.slices.push_back(
        LLVM::ExtractValueOp::create(b, loc, packed, slice));
  Value warp = arith::DivUIOp::create(b, loc, warpgroupThread, index(32));
  fragments.lane = arith::RemUIOp::create(b, loc, warpgroupThread, index(32));
  fragments.row = add(mul(warp, index(16)),
                      arith::DivUIOp::create(b, loc, fragments.lane, index(4)));
  fragments.column = mul(
      arith::RemUIOp::create(b, loc, fragments.lane, index(4)), index(2));
  return fragments;
}

void TensorCoreKernel::storeAccumulator(Value accumulator, Value cTile,
                                        Value warpgroupThread,
                                        int64_t firstColumn, int64_t columns,
                                        int64_t at) {
  // The fragment written out here (getThreadFragments) because MLIR 22's
  // nvgpu.warpgroup.mma.store misplaces the second 64 rows of a 128-row
  // accumulator unless N is 128 (llvm-project#154581) and indexes rows by
  // the block's thread id, not the warpgroup's.
  auto [slices, row, column, lane] =
      getThreadFragments(accumulator, warpgroupThread);
  // A pair of values (c = 0, 1) lies in one 16-byte chunk of the tile: the
  // pair's column is swizzled once and the second value follows the first.
  bool swizzled = isSwizzled(cTile);
  for (auto [slice, values] : llvm::enumerate(slices)) {
    Value pairColumn;
    for (int64_t i = firstColumn / 2; i < (firstColumn + columns) / 2; ++i) {
      int64_t j = i / 4 - firstColumn / 8 + at / 8, h = (i % 4) / 2,
              c = i % 2;
      Value tileRow = add(row, index(64 * static_cast<int64_t>(slice) + 8 * h));
      if (c == 0) {
        pairColumn = add(column, index(8 * j));
        if (swizzled)
          pairColumn = getSwizzledTileColumn(k, tileRow, pairColumn);
      }
      Value value = LLVM::ExtractValueOp::create(b, loc, values, i);
      memref::StoreOp::create(
          b, loc, value, cTile,
          ValueRange{tileRow, c == 0 ? pairColumn : add(pairColumn, index(c))});
    }
  }
}

void TensorCoreKernel::writeSliceWords(
    Value accumulator, Value words, Value warpgroupThread, int64_t firstColumn,
    function_ref<Value(Value, Value, Value, Value)> epilogue) {
  auto [slices, row, column, lane] =
      getThreadFragments(accumulator, warpgroupThread);
  // The pair's word in its 16-byte chunk, and the row's swizzle.
  Value wordInChunk = arith::RemUIOp::create(b, loc, lane, index(4));
  Value rowInEight = arith::DivUIOp::create(b, loc, lane, index(4));
  for (auto [slice, values] : llvm::enumerate(slices)) {
    for (int64_t j = 0; j < 8; ++j)
      for (int64_t h = 0; h < 2; ++h) {
        // Values 4j' + 2h + c of the fragment, j' the slice's chunk j.
        int64_t i = 4 * (firstColumn / 8 + j) + 2 * h;
        Value low = LLVM::ExtractValueOp::create(b, loc, values, i);
        Value high = LLVM::ExtractValueOp::create(b, loc, values, i + 1);
        Value tileRow =
            add(row, index(64 * static_cast<int64_t>(slice) + 8 * h));
        Value pair =
            epilogue
                ? epilogue(tileRow, add(column, index(firstColumn + 8 * j)),
                           low, high)
                : packPair(b, loc, low, high, shape.elementType);
        if (isa<VectorType>(pair.getType()))
          pair = LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
        // tileRow % 8 is the lane's row in its group of 8, (t % 32) / 4.
        Value chunk = arith::XOrIOp::create(b, loc, index(j), rowInEight);
        memref::StoreOp::create(
            b, loc, pair, words,
            ValueRange{tileRow, add(mul(chunk, index(4)), wordInChunk)});
      }
  }
}

Value TensorCoreKernel::evaluatePair(Value tileRow, Value firstRow,
                                     Value pairColumn, Value low, Value high) {
  // The pair's first column in the product.
  Value column = add(tileColumn, pairColumn);
  Value row = add(add(tileRow, firstRow), this->tileRow);
  // Elements past the result are never stored (the TMA store clips them)
  // but are evaluated: their coordinates are clamped into the result, so
  // that the epilogue's reads stay inside its inputs.
  Value lastRow = index(shape.m - 1), lastColumn = index(shape.n - 1);
  row = arith::MinUIOp::create(b, loc, row, lastRow);
  // The row's coordinates in the result: batches folded into the rows
  // first.
  ArrayRef<int64_t> resultShape =
      tensorType(k.fusion.getResult(0)).getShape();
  SmallVector<Value> rowCoords =
      resultShape.size() == 2 ? SmallVector<Value>{row}
                              : k.idx.delinearize(row, resultShape.drop_back());
  Type element = tensorType(k.fusion.getResult(0)).getElementType();
  Value yielded =
      cast<YieldOp>(k.fusion.getBody().front().getTerminator()).getValues()[0];
  SmallVector<Value, 2> values;
  for (auto [c, sum] : llvm::enumerate(SmallVector<Value, 2>{low, high})) {
    Value at = arith::MinUIOp::create(
        b, loc, add(column, index(static_cast<int64_t>(c))), lastColumn);
    ElementEmitter emitter = k.makeEmitter();
    Value accumulated = sum;
    SmallVector<Value> coords(rowCoords);
    coords.push_back(at);
    // The epilogue is elementwise (fk-fuse makes it so, and the result is
    // the product's shape): it reads the product at the element it
    // computes, whose value this thread holds.
    emitter.contractionHook =
        [&](Operation *, ArrayRef<Value> read) -> FailureOr<Value> {
      if (ArrayRef<Value>(coords) != read)
        return k.fusion.emitOpError()
               << "reads its " << matmul->getName()
               << " away from the output element";
      return roundToElementType(b, loc, accumulated,
                                tensorType(matmul.getResult()).getElementType());
    };
    FailureOr<Value> value = emitter.emit(yielded, coords);
    if (failed(value)) {
      epilogueFailed = true;
      value = sum;
    }
    values.push_back(truncateToElementType(b, loc, *value, element));
  }
  auto pairType = VectorType::get({2}, element);
  Value pair = LLVM::UndefOp::create(b, loc, pairType);
  for (auto [i, value] : llvm::enumerate(values))
    pair = LLVM::InsertElementOp::create(
        b, loc, pair, value,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                 static_cast<int32_t>(i)));
  return pair;
}

Value TensorCoreKernel::descriptor(Value offset, MemRefType tile, Value map) {
  return nvgpu::WarpgroupGenerateDescriptorOp::create(
      b, loc, nvgpu::WarpgroupMatrixDescriptorType::get(ctx, tile),
      view(offset, tile), map);
}

Value TensorCoreKernel::multiply(Value aStage, Value bStage,
                                 Value accumulator) {
  return shape.rhsKMajor ? multiplyKMajorTile(aStage, bStage, accumulator)
                         : multiplyTile(aStage, bStage, accumulator);
}

Value TensorCoreKernel::multiplyTile(Value aStage, Value bStage,
                                     Value accumulator) {
  MemRefType aTile = sharedTile({tiling.getWarpgroupRows(), tiling.tileK},
                                shape.elementType);
  MemRefType bTile = sharedTile({tiling.tileK, tiling.tileN}, shape.elementType);
  // B is K x N with N innermost: wgmma's "transposed" B.
  return nvgpu::WarpgroupMmaOp::create(
      b, loc, accumulator.getType(), descriptor(aStage, aTile, lhsDescriptorMap),
      descriptor(bStage, bTile, rhsDescriptorMap),
      /*waitGroup=*/IntegerAttr(), /*transposeA=*/UnitAttr(),
      /*transposeB=*/b.getUnitAttr(), accumulator);
}

Value TensorCoreKernel::multiplyKMajorTile(Value aStage, Value bStage,
                                           Value accumulator) {
  // One wgmma group per K tile, as nvgpu.warpgroup.mma issues for the
  // N-major layout: a fence, per 16-element K step one wgmma per 64 rows of
  // the tile with descriptors that many bytes into the swizzled rows (32
  // per step; A's second 64 rows 64 swizzled rows further), a commit, and a
  // wait for all but this group. Written in NVVM ops on the accumulator's
  // LLVM form, one fragment per 64 rows (the casts cancel after the NVGPU
  // lowering): the nvgpu op advances B's descriptor for the N-major layout
  // only.
  // wgmma's K: 16 16-bit elements or 8 TF32, 32 bytes either way.
  constexpr int64_t kStepBytes = 32, kWgmmaRows = 64;
  int64_t kStep = kStepBytes / shape.elementBytes();
  int64_t stepBytes = kStepBytes;
  int64_t halfBytes = kWgmmaRows * tiling.tileK * shape.elementBytes();
  int64_t halves = tiling.getWarpgroupRows() / kWgmmaRows;
  auto i64 = b.getI64Type();
  Type fragment = getFragmentType(), packedType = getPackedAccumulatorType();
  auto cast = [&](Value value, Type type) {
    return UnrealizedConversionCastOp::create(b, loc, type, value).getResult(0);
  };
  Value packed = cast(accumulator, packedType);
  SmallVector<Value> d;
  for (int64_t half = 0; half < halves; ++half)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, packed, half));
  MemRefType aTile = sharedTile({kWgmmaRows, kStep}, shape.elementType);
  MemRefType bTile = sharedTile({tiling.tileN, kStep}, shape.elementType);
  auto wgmmaType = [&](Type t) {
    return NVVM::WGMMATypesAttr::get(ctx, t.isBF16()  ? NVVM::WGMMATypes::bf16
                                          : t.isF32() ? NVVM::WGMMATypes::tf32
                                                      : NVVM::WGMMATypes::f16);
  };
  // K-major in NVVM's terms: A row-major (M x K), B column-major (K x N).
  auto rowMajor = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto columnMajor = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t step = 0; step < tiling.tileK / kStep; ++step) {
    Value offset = index(step * stepBytes);
    Value bDescriptor =
        cast(descriptor(add(bStage, offset), bTile, rhsDescriptorMap), i64);
    for (int64_t half = 0; half < halves; ++half) {
      Value aOffset = add(aStage, index(half * halfBytes + step * stepBytes));
      Value aDescriptor =
          cast(descriptor(aOffset, aTile, lhsDescriptorMap), i64);
      d[half] = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, fragment, d[half], aDescriptor, bDescriptor,
          NVVM::MMAShapeAttr::get(ctx, kWgmmaRows, tiling.tileN, kStep),
          wgmmaType(shape.elementType), wgmmaType(shape.elementType),
          NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one), one,
          one, rowMajor, columnMajor, /*satfinite=*/NVVM::MMAIntOverflowAttr());
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
  for (int64_t half = 0; half < halves; ++half)
    packed = LLVM::InsertValueOp::create(b, loc, packed, d[half],
                                         ArrayRef<int64_t>{half});
  return cast(packed, accumulator.getType());
}

LogicalResult TensorCoreKernel::buildOneWarpgroup() {
  Value accumulator = mainLoop();
  // Every warp is done reading the ring before the tile overwrites it.
  syncComputeThreads();
  Value cTile = view(index(0), sharedTile({tiling.tileM, tiling.tileN},
                                          b.getF32Type()));
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  storeAccumulator(accumulator, cTile, thread, 0, tiling.tileN);
  syncComputeThreads();
  if (partial) {
    storePartialTile(cTile);
    return success();
  }
  // A pair's products are the tile's halves.
  return runEpilogue(cTile, /*firstRow=*/index(0),
                     getLiveTileRows(tiling.tileM, shape), /*first=*/0,
                     outputColumns, thread);
}

LogicalResult TensorCoreKernel::buildWarpSpecialized() {
  // Warpgroup 0 produces: its thread `primary` issues every TMA load, each
  // into a stage the consumers released. Warpgroups 1.. consume: each
  // multiplies its rows of every A tile by the B tile, releases the stage,
  // and with the others stores and runs the epilogue. No barrier of the
  // whole block after the set-up: the producer runs up to `stages` K tiles
  // ahead, into the block's next tile while the consumers run the
  // epilogue of this one.
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpgroup = emitWarpUniform(
      b, loc,
      arith::DivUIOp::create(b, loc, thread, index(kThreadsPerWarpgroup)));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  // With two consumers, the producer gives registers up to them (CUTLASS's
  // 40 / 232 split: 128 x 40 + 256 x 232 of the SM's 64K).
  bool rebalance = tiling.consumers == 2;
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  if (rebalance)
    NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  auto ifPrimary = scf::IfOp::create(b, loc, primary, /*withElse=*/false);
  b.setInsertionPointToStart(&ifPrimary.getThenRegion().front());
  if (failed(forEachTile(index(0), /*every=*/1, [&](Value first) {
        producerLoop(first);
        return success();
      })))
    return failure();

  b.setInsertionPointToStart(&roles.getElseRegion().front());
  if (rebalance)
    NVVM::SetMaxRegisterOp::create(b, loc, kConsumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  Value consumer = arith::SubIOp::create(b, loc, warpgroup, index(1));
  Value warpgroupThread =
      arith::RemUIOp::create(b, loc, thread, index(kThreadsPerWarpgroup));
  // Ping-pong consumers take turns: tiles c, c + consumers, ... of the
  // block; the ring's order of fills runs one's main loop after the
  // other's, under the other's epilogue.
  bool pingPong = tiling.isPingPong();
  if (failed(forEachTile(
          pingPong ? consumer : index(0), pingPong ? tiling.consumers : 1,
          [&](Value first) {
            if (pingPong)
              waitForTurn(first, consumer);
            Value accumulator =
                consumerLoop(first, consumer, warpgroupThread);
            if (pingPong)
              passTurn(consumer, warpgroupThread);
            return consumerEpilogue(accumulator, consumer, warpgroupThread);
          })))
    return failure();
  // The block's shared memory outlives its last TMA stores.
  if (resultMap)
    waitForStores(warpgroupThread, /*pending=*/0, /*whole=*/true);
  // ... and the other block's last copies into it and releases of its
  // stages.
  if (clusterBlocks > 1) {
    b.setInsertionPointAfter(roles);
    syncCluster();
  }
  return success();
}

/// `body(row, column)` for each element of a rows x columns tile, the 128
/// threads taking adjacent columns.
static void forEachTileElement(KernelContext &k, int64_t rows, int64_t columns,
                               function_ref<void(Value, Value)> body) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, thread, k.idx.constant(rows * columns),
                                 k.idx.constant(128));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value element = loop.getInductionVar();
  Value width = k.idx.constant(columns);
  body(arith::DivUIOp::create(b, loc, element, width),
       arith::RemUIOp::create(b, loc, element, width));
}

/// Output rows per block of the kernel that sums the splits: a 16-row slice
/// of a tile, so that a product of few tiles still has several blocks per
/// tile summing its partials.
static constexpr int64_t kCombineRows = 16;

void TensorCoreKernel::storePartialTile(Value tile) {
  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  int64_t rows = getLiveTileRows(tiling.tileM, shape);
  forEachTileElement(k, rows, tiling.tileN, [&](Value r, Value c) {
    Value row = add(tileRow, r), column = add(tileColumn, c);
    auto inside = scf::IfOp::create(
        b, loc, isInsideProduct(k, shape, row, column), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    Value value = memref::LoadOp::create(
        b, loc, tile,
        ValueRange{r, isSwizzled(tile) ? getSwizzledTileColumn(k, r, c) : c});
    memref::StoreOp::create(b, loc, value, partial,
                            ValueRange{split, row, column});
  });
}

FailureOr<LaunchShape> TensorCoreKernel::build() {
  aStageBytes = tiling.tileM * tiling.tileK * shape.elementBytes();
  bStageBytes = tiling.tileK * tiling.tileN * shape.elementBytes();
  kTiles = (shape.k + tiling.tileK - 1) / tiling.tileK / tiling.splits;
  int64_t threads = tiling.getThreads();
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  clusterBlocks = getClusterBlocks(k.fusion, tiling, target);
  if (clusterBlocks > 1) {
    kernel->setAttr("nvvm.cluster_dim",
                    b.getDenseI32ArrayAttr(
                        {static_cast<int32_t>(clusterBlocks), 1, 1}));
    clusterRank = arith::RemUIOp::create(
        b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
        index(clusterBlocks));
  }

  // The tensor maps arrive as pointers (a gpu.func cannot take the nvgpu
  // type); the casts vanish in the lowering. wgmma descriptors take the
  // swizzle from a two-dimensional map type, even for batched loads.
  Block &entry = kernel.getBody().front();
  int64_t boxColumns = kSwizzleBytes / shape.elementBytes();
  auto cast = [&](Value pointer, MemRefType box) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, getSwizzledTensorMapType(box),
                                              pointer)
        .getResult(0);
  };
  // A K-major B's boxes are tileN rows of one swizzled K row, as A's.
  int64_t rhsRows = shape.rhsKMajor ? tiling.tileN : tiling.tileK,
          rhsColumns = shape.rhsKMajor ? tiling.tileK : boxColumns;
  lhsMap = cast(entry.getArgument(0), loadBox(tiling.tileM, tiling.tileK));
  // A K-major box of a pair's right operand is half the tile's rows.
  MemRefType rhsBox = loadBox(
      shape.rhsKMajor ? outputColumns / clusterBlocks : rhsRows, rhsColumns);
  rhsMap = cast(entry.getArgument(1), rhsBox);
  if (k.fusion.getPairedMatmul())
    pairedRhsMap = cast(entry.getArgument(2), rhsBox);
  if (storesResultByTma(k.fusion, tiling, target)) {
    resultBoxType =
        sharedTile({getStoredTileRows(tiling), boxColumns}, shape.elementType);
    // The results' maps follow the operands': one per product.
    int64_t first = 1 + k.fusion.getMatmuls().size();
    for (unsigned r = 0; r < k.fusion.getNumResults(); ++r)
      resultPointers.push_back(entry.getArgument(first + r));
    resultMap = cast(resultPointers.front(), resultBoxType);
  }
  // A group's maps, one per product (selectProduct picks the tile's); its
  // products' tiles follow each other along the kernel's columns.
  if (k.fusion.isMatmulGroup()) {
    groupProducts = k.fusion.getMatmuls();
    rhsBoxType = rhsBox;
    int64_t column = 0;
    for (auto [p, product] : llvm::enumerate(groupProducts)) {
      groupRhsPointers.push_back(entry.getArgument(1 + p));
      groupFirstColumns.push_back(column);
      column += llvm::divideCeil(MatmulShape(product).n, outputColumns) *
                outputColumns;
    }
  }
  lhsDescriptorMap = shape.batched()
                         ? cast(entry.getArgument(0),
                                sharedTile({tiling.getWarpgroupRows(),
                                            tiling.tileK},
                                           shape.elementType))
                         : lhsMap;
  rhsDescriptorMap = shape.batched() || pairedRhsMap || clusterBlocks > 1
                         ? cast(entry.getArgument(1),
                                sharedTile({rhsRows, rhsColumns},
                                           shape.elementType))
                         : rhsMap;

  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  primary = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                  index(0));
  // The persistent warp-specialized kernel sets them per tile.
  if (!tiling.isWarpSpecialized()) {
    std::tie(tileRow, tileColumn) =
        emitOutputTileOrigin(k, shape, tiling.tileM, outputColumns);
    selectProduct();
  }
  if (partial)
    firstKTile = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z),
                     index(kTiles));
  if (shape.batched() && !tiling.isWarpSpecialized()) {
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    batchCoords = k.idx.delinearize(batch, shape.batch);
    lhsBatch = k.idx.broadcastLinear(batchCoords, shape.lhsBatch);
    rhsBatch = k.idx.broadcastLinear(batchCoords, shape.rhsBatch);
  }

  setUpSharedMemory();
  nvgpu::TmaPrefetchOp::create(b, loc, lhsMap, primary);
  nvgpu::TmaPrefetchOp::create(b, loc, rhsMap, primary);
  if (pairedRhsMap)
    nvgpu::TmaPrefetchOp::create(b, loc, pairedRhsMap, primary);
  for (size_t p = 1; p < groupRhsPointers.size(); ++p)
    nvgpu::TmaPrefetchOp::create(b, loc, cast(groupRhsPointers[p], rhsBox),
                                 primary);
  if (failed(tiling.isWarpSpecialized() ? buildWarpSpecialized()
                                         : buildOneWarpgroup()))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  int64_t columnTiles = shape.columnTiles(outputColumns);
  launch.grid = {0, columnTiles,
                 ShapedType::getNumElements(shape.batch) * tiling.splits};
  setRowTileGrid(launch, shape, tiling.tileM);
  // Persistent: a block per SM (or per tile, when fewer). Rows given at run
  // time: the run's row tiles times the column tiles, at most one per SM.
  if (tiling.isWarpSpecialized()) {
    launch.grid = {std::min(shape.tiles(tiling.tileM, tiling.tileN),
                            target.getSmCount()),
                   1, 1};
    launch.blocksPerWork = columnTiles;
    launch.maxBlocks = target.getSmCount();
    launch.persistent = true;
    launch.clusterBlocks = clusterBlocks;
    assert(launch.grid[0] % clusterBlocks == 0 &&
           "a cluster's blocks take the row tiles of a pair");
  }
  launch.block = {threads, 1, 1};
  launch.sharedBytes = tiling.getSharedBytes(shape.elementBytes());
  return launch;
}

FailureOr<LaunchShape>
mlir::fk::buildTensorCoreMatmulKernel(FusionOp fusion,
                                      const TensorCoreTiling &tiling,
                                      TargetAttr target,
                                      gpu::GPUFuncOp kernel,
                                      gpu::GPUModuleOp kernels) {
  return TensorCoreKernel(fusion, tiling, target, kernel, kernels).build();
}

FailureOr<LaunchShape>
mlir::fk::buildSplitKCombineKernel(FusionOp fusion,
                                   const TensorCoreTiling &tiling,
                                   gpu::GPUFuncOp kernel,
                                   gpu::GPUModuleOp kernels) {
  KernelContext k(fusion, kernel, kernels, /*firstBuffer=*/1);
  MatmulOp matmul = fusion.getMatmul();
  MatmulShape shape(matmul);
  OpBuilder &b = k.b;
  Location loc = k.loc;
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({128, 1, 1}));
  Value partial = kernel.getBody().front().getArgument(0);
  // One block per slice of `rows` rows of an output tile.
  int64_t rows = getLiveTileRows(kCombineRows, shape);
  Value tile = kernel.addWorkgroupAttribution(
      getSharedMemRefType(fusion.getContext(), {rows, tiling.tileN},
                          b.getF32Type()),
      loc);
  Value tileRow = k.idx.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                            k.idx.constant(rows));
  Value tileColumn =
      k.idx.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y),
                k.idx.constant(tiling.tileN));
  // The slice's sums in shared memory (zeros outside the product, never
  // stored), in the splits' order.
  forEachTileElement(k, rows, tiling.tileN, [&](Value r, Value c) {
    Value row = k.idx.add(tileRow, r), column = k.idx.add(tileColumn, c);
    Value inside = isInsideProduct(k, shape, row, column);
    auto ifInside = scf::IfOp::create(b, loc, b.getF32Type(), inside,
                                      /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifInside.getThenRegion().front());
      Value sum;
      for (int64_t split = 0; split < tiling.splits; ++split) {
        Value part = memref::LoadOp::create(
            b, loc, partial,
            ValueRange{k.idx.constant(split), row, column});
        sum = sum ? arith::AddFOp::create(b, loc, sum, part).getResult()
                  : part;
      }
      scf::YieldOp::create(b, loc, sum);
      b.setInsertionPointToStart(&ifInside.getElseRegion().front());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0))});
    }
    memref::StoreOp::create(b, loc, ifInside.getResult(0), tile,
                            ValueRange{r, c});
  });
  gpu::BarrierOp::create(b, loc);
  if (failed(emitMatmulEpilogue(k, shape, tile, rows, tiling.tileN, tileRow,
                                tileColumn, /*batchCoords=*/{},
                                /*threads=*/128)))
    return failure();
  gpu::ReturnOp::create(b, loc);

  LaunchShape launch;
  launch.grid = {0, (shape.n + tiling.tileN - 1) / tiling.tileN, 1};
  setRowTileGrid(launch, shape, rows);
  launch.block = {128, 1, 1};
  return launch;
}
