//===- Tiling.cpp - fk-tile: each fusion's kernel and its tiles -----------===//

#include "Codegen/Tiling.h"
#include "Codegen/AttentionShape.h"
#include "Codegen/DecodeAttention.h"
#include "Codegen/FlashAttention.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/Passes.h"
#include "Codegen/RowVariants.h"
#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/Tuning.h"
#include "Codegen/SimtMatmul.h"
#include "Codegen/TransposeKernel.h"
#include "Codegen/WarpMma.h"
#include "Codegen/WarpMmaMatmul.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkNumerics.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTarget.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKTILE
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

int64_t mlir::fk::getRowKernelThreads(int64_t runs, int64_t width) {
  constexpr int64_t kElementsPerThread = 8;
  int64_t runsPerThread = std::max<int64_t>(1, kElementsPerThread / width);
  return std::clamp<int64_t>(
      (llvm::divideCeil(runs, runsPerThread) + 31) / 32 * 32, 32, 1024);
}

/// The tiling of a loop, reduction or matmul fusion on the kernels every
/// target runs: runs of elements, rows, or one matmul output element per
/// thread.
static TilingAttr getElementOrRowTiling(FusionOp fusion) {
  MLIRContext *ctx = fusion.getContext();
  auto elements = [&](int64_t width) {
    return TilingAttr::get(ctx, KernelStrategy::Elements, {width}, kBlockSize);
  };
  switch (fusion.getKind()) {
  case FusionKind::Loop: {
    RankedTensorType type = tensorType(fusion.getResult(0));
    // The transpose kernel's tiles need static sizes.
    if (!isSymbolic(type) && isTileTranspose(fusion))
      return TilingAttr::get(ctx, KernelStrategy::Transpose,
                             {kTransposeTile, kTransposeTile},
                             kTransposeThreads);
    if (type.getRank() == 0)
      return elements(1);
    // A symbolic innermost dimension is a multiple of its coefficient.
    return elements(getVectorWidth(
        fusion, getDim(type, type.getRank() - 1).getCoefficient()));
  }
  case FusionKind::Reduction: {
    std::optional<RowSpace> rows = getFusionRowSpace(fusion);
    if (!rows)
      return elements(1);
    if (rows->hasRuntimeLength()) {
      // Rows held in registers as rows of the bound's length, or read in
      // loops of an element per thread per round by at most 256 threads,
      // so that short runs leave few idle.
      std::optional<int64_t> longest = getLongestRow(fusion, *rows);
      int64_t threads =
          !longest ? kRuntimeRowThreads
          : isLoopedRowFusion(fusion, *rows)
              ? std::min(kRuntimeRowThreads, getRowKernelThreads(*longest, 1))
              : getRowKernelThreads(*longest, 1);
      return TilingAttr::get(ctx, KernelStrategy::Rows, {1}, threads);
    }
    ArrayRef<int64_t> rowShape =
        ArrayRef(rows->shape).drop_front(rows->leadingRank);
    int64_t length = rows->rowLength();
    int64_t width =
        rowShape.size() == 1 ? getVectorWidth(fusion, length) : 1;
    return TilingAttr::get(ctx, KernelStrategy::Rows, {width},
                           getRowKernelThreads(length / width, width));
  }
  case FusionKind::Matmul:
    return elements(1);
  case FusionKind::Attention:
    return {};
  }
  llvm_unreachable("unknown fusion kind");
}

const MatmulTuning *TilingRequests::getTuned(MatmulOp matmul) const {
  if (!tuning || !matmulTile.empty() || matmulThreads)
    return nullptr;
  // Tuning files name products by their sizes: rows given at run time take
  // the heuristic's tile, as do pairs (TuningTable::lookup).
  MatmulShape shape(matmul);
  if (shape.hasRuntimeRows())
    return nullptr;
  return tuning->lookup(shape);
}

TilingAttr mlir::fk::chooseTiling(FusionOp fusion, TargetAttr target,
                                  const TilingRequests &requests,
                                  std::string *whyNotTensorCores) {
  MLIRContext *ctx = fusion.getContext();
  ArrayRef<int64_t> matmulTile = requests.matmulTile,
                    attentionTile = requests.attentionTile;
  switch (fusion.getKind()) {
  case FusionKind::Loop:
  case FusionKind::Reduction:
    return getElementOrRowTiling(fusion);
  case FusionKind::Matmul: {
    // Sizes the tiled kernels do not read at run time (a contracted or
    // right-operand dimension): the element-per-thread kernel reads them.
    if (std::string why = whyNotTiledAtRuntimeSizes(fusion.getMatmul());
        !why.empty()) {
      if (whyNotTensorCores)
        *whyNotTensorCores = why;
      return getElementOrRowTiling(fusion);
    }
    // Hopper's wgmma kernel where the target has it, else mma.sync (sm_80
    // and later); `matmulTile` is a tile of the target's kernel.
    SmallVector<int64_t> tile(matmulTile);
    // f32 and the integers: TF32 on the tensor cores, or the CUDA-core
    // kernel's operands.
    bool fourOrEightBytes =
        MatmulShape(fusion.getMatmul()).elementBytes() >= 4;
    std::string why = whyNotTensorCoreMatmul(fusion, target);
    if (why.empty()) {
      // `matmulTile` is a tile of 16-bit operands, not of TF32's.
      int64_t threads = requests.matmulThreads;
      bool pingPong = false;
      if (tile.empty() || fourOrEightBytes)
        tile = chooseTensorCoreTile(fusion.getMatmul(), target, &pingPong);
      // A measured choice for the shape, unless flags fix the tile.
      if (const MatmulTuning *tuned = requests.getTuned(fusion.getMatmul())) {
        tile = tuned->tile;
        threads = tuned->threads;
        pingPong = false;
      }
      return TilingAttr::get(ctx, KernelStrategy::TensorCore, tile,
                             threads ? threads
                                     : chooseTensorCoreThreads(tile, pingPong));
    }
    std::string whyNotMma = whyNotWarpMmaMatmul(fusion, target);
    if (whyNotMma.empty()) {
      // On a target with wgmma, `matmulTile` is a wgmma tile; it is a tile
      // of 16-bit operands, not of TF32's.
      if (tile.empty() || target.getWgmma() || fourOrEightBytes)
        tile = chooseWarpMmaTile(fusion.getMatmul(), target);
      return TilingAttr::get(ctx, KernelStrategy::WarpMma, tile,
                             kWarpMmaThreads);
    }
    // f32 stays exact f32 unless the module allows TF32, tiled on the CUDA
    // cores, as integers are; `matmulTile` is a tile of the tensor-core
    // kernels, not of this one.
    std::string whyNotSimt = whyNotSimtMatmul(fusion, target);
    if (whyNotSimt.empty()) {
      SmallVector<int64_t> simtTile =
          chooseSimtTile(fusion.getMatmul(), target);
      return TilingAttr::get(
          ctx, KernelStrategy::Simt, simtTile,
          SimtTiling{simtTile[0], simtTile[1], simtTile[2]}.getThreads());
    }
    if (whyNotTensorCores) {
      *whyNotTensorCores = fourOrEightBytes    ? whyNotSimt
                           : target.getWgmma() ? why
                                               : whyNotMma;
    }
    return getElementOrRowTiling(fusion);
  }
  case FusionKind::Attention: {
    // Few query rows (decode): the decode kernel, where the flash kernel
    // cannot compute the attention or is the slower (see
    // prefersDecodeAttention), unless a flash tile is asked for.
    AttentionOp attention = fusion.getAttention();
    bool flash = whyNotFlashAttention(attention, target).empty();
    if (usesDecodeAttention(attention) &&
        (!flash ||
         (attentionTile.empty() && prefersDecodeAttention(attention, target))))
      return chooseDecodeAttentionTiling(fusion.getAttention(), target);
    // Two warpgroups share each K/V block. Key blocks of 128 where two
    // blocks still fit on an SM (head dim 64), else 64 (measured:
    // docs/attention.md); 64 also with a mask input, whose values are live
    // with the scores they are added to and would not fit in the 128
    // registers of two blocks per SM.
    auto queryType = tensorType(fusion.getAttention().getQuery());
    int64_t headDim = queryType.getShape().back();
    int64_t elementBytes = queryType.getElementTypeBitWidth() / 8;
    bool warpgroups =
        whyNotWarpgroupFlash(fusion.getAttention(), target).empty();
    // The wgmma form computes head dims 96 and 112 as 128.
    int64_t tileHeadDim =
        warpgroups ? getWarpgroupFlashHeadDim(headDim) : headDim;
    int64_t rows = 2 * kFlashRowsPerWarpgroup, keys = 128;
    if (!FlashAttentionTiling{rows, keys, tileHeadDim, /*stages=*/2}
             .twoBlocksFit(elementBytes, target) ||
        fusion.getAttention().getMask())
      keys = 64;
    // On mma.sync a warp holds its 16 rows' scores of a key block and their
    // output in registers. Head dims 96 to 128 take blocks of 128 keys (half
    // the loop iterations and Q reads), still without spilling, where a
    // block's shared memory holds them (not on the 99 KiB of sm_86/89/120);
    // smaller head dims, larger ones (whose output slice needs the
    // registers) and masked attentions 64 (measured on an H100, B4 H16
    // N4096: D128 1.80 -> 1.60 ms, causal 1.00 -> 0.92 ms, D96 1.45 -> 1.26
    // ms; D64 0.93 -> 1.11 ms).
    // Other head dims run on mma.sync (on sm_90a too), in blocks of 64 query
    // rows where 128 would not fit.
    if (!warpgroups) {
      auto fits = [&](int64_t rows, int64_t keys) {
        return getFlashSharedBytes(rows, keys, headDim, elementBytes) <=
               target.getSharedMemoryPerBlock();
      };
      keys = headDim >= 96 && headDim <= 128 &&
                     !fusion.getAttention().getMask() && fits(rows, 128)
                 ? 128
                 : 64;
      if (!fits(rows, keys))
        rows = kFlashRowsPerWarpgroup;
    }
    // Few query rows fill one warpgroup's 64, and the kernel reads K and V
    // once per block: blocks of 64 rows and 64 keys are smaller, more fit
    // on an SM, and reading the keys is faster (measured on an H100:
    // docs/attention.md, "Decode").
    // (Query rows given at run time weigh as their bound.)
    AttentionShape sizes(attention);
    if (sizes.queries <= kFlashRowsPerWarpgroup)
      rows = kFlashRowsPerWarpgroup, keys = 64;
    // Head dims 96 to 128 on wgmma in blocks of 128 rows: a producer
    // warpgroup and two consumers taking turns on the tensor cores, with
    // 128-key blocks (FlashAttention-3's structure; one block per SM, whose
    // consumers hold S, O and P of a 128-key block in 240 registers).
    // Measured on an H200 (docs/attention.md). It needs three key blocks or
    // more: ptxas serializes the wgmma of shorter walks, whose loop it
    // unrolls, for want of registers (and there is little to overlap).
    // A tile given without a block keeps every warpgroup computing; a block
    // of 384 asked for off wgmma is an error of fk-tile, of a tile not of
    // 128 rows one of checkFlashTile.
    int64_t threads = requests.attentionThreads;
    bool producer = threads == 3 * kThreadsPerWarpgroup;
    if (!attentionTile.empty()) {
      rows = attentionTile[0], keys = attentionTile[1];
    } else if (producer) {
      rows = 2 * kFlashRowsPerWarpgroup, keys = 128;
    } else if (threads) {
      rows = threads / kThreadsPerWarpgroup * kFlashRowsPerWarpgroup;
    } else if (warpgroups && tileHeadDim == 128 &&
               rows == 2 * kFlashRowsPerWarpgroup && sizes.keys > 2 * 128) {
      producer = true;
      keys = 128;
    }
    if (!threads)
      threads = (rows / kFlashRowsPerWarpgroup + (producer ? 1 : 0)) *
                kThreadsPerWarpgroup;
    return TilingAttr::get(ctx,
                           warpgroups ? KernelStrategy::Flash
                                      : KernelStrategy::WarpMmaFlash,
                           {rows, keys, tileHeadDim}, threads);
  }
  }
  llvm_unreachable("unknown fusion kind");
}

/// The query rows and key blocks the flash kernel takes: a warpgroup per 64
/// query rows (at most two), key blocks that one wgmma spans (N = 64 or
/// 128) and that TMA boxes hold.
static bool isFlashExtent(int64_t size) { return size == 64 || size == 128; }

/// Whether the flash kernel can take `tile` = [query rows, key block, head
/// dim] for `attention`, in its wgmma form (`warpgroups`, whose head dim may
/// be padded) or its mma.sync form.
static std::string checkFlashTile(AttentionOp attention, ArrayRef<int64_t> tile,
                                  int64_t threads, bool warpgroups) {
  if (tile.size() != 3)
    return "expects three tile sizes: query rows, key block, head dim";
  if (!isFlashExtent(tile[0]))
    return "query rows must be 64 or 128 (a warpgroup per 64 rows)";
  if (!isFlashExtent(tile[1]))
    return "the key block must be 64 or 128";
  int64_t headDim = tensorType(attention.getQuery()).getShape().back();
  int64_t padded = getWarpgroupFlashHeadDim(headDim);
  if (warpgroups && tile[2] != padded)
    return "the third tile size must be the head dim the wgmma form computes "
           "with (" + std::to_string(padded) + ")";
  if (!warpgroups && tile[2] != headDim)
    return "the third tile size must be the head dim";
  int64_t computing = tile[0] / kFlashRowsPerWarpgroup * 128;
  if (warpgroups && threads == 3 * 128) {
    if (tile[0] != 2 * kFlashRowsPerWarpgroup)
      return "384 threads (a producer and two consumer warpgroups) take 128 "
             "query rows";
    return "";
  }
  if (threads != computing)
    return warpgroups ? "threads must be 128 per 64 query rows (one "
                        "warpgroup each), or 384 for 128 rows (a producer "
                        "and two consumer warpgroups)"
                      : "threads must be 128 per 64 query rows (one "
                        "warpgroup each)";
  return "";
}

bool mlir::fk::readsPromotedOperands(TilingAttr tiling) {
  return tiling.getStrategy() == KernelStrategy::TensorCore ||
         tiling.getStrategy() == KernelStrategy::WarpMma ||
         tiling.getStrategy() == KernelStrategy::Simt || isFlashKernel(tiling);
}

CopyEngine mlir::fk::getCopyEngine(TilingAttr tiling) {
  // TMA for the wgmma kernels, cp.async for the others.
  return tiling.getStrategy() == KernelStrategy::TensorCore ||
                 tiling.getStrategy() == KernelStrategy::Flash
             ? CopyEngine::Tma
             : CopyEngine::AsyncCopy;
}

bool mlir::fk::isFlashKernel(TilingAttr tiling) {
  return tiling.getStrategy() == KernelStrategy::Flash ||
         tiling.getStrategy() == KernelStrategy::WarpMmaFlash;
}

LogicalResult mlir::fk::checkTiling(FusionOp fusion, TilingAttr tiling,
                                   TargetAttr target, PromotionAttr promotion,
                                   bool needPromotion) {
  auto error = [&]() {
    return fusion.emitOpError() << "has an unusable " << tiling << ": ";
  };
  ArrayRef<int64_t> tile = tiling.getTile();
  if (tile.empty() || llvm::any_of(tile, [](int64_t t) { return t < 1; }))
    return error() << "tile sizes must be positive";
  int64_t threads = tiling.getThreads();
  if (threads < 32 || threads > 1024 || threads % 32)
    return error() << "threads must be whole warps, 32 to 1024";
  switch (tiling.getStrategy()) {
  case KernelStrategy::Elements:
  case KernelStrategy::Rows:
    if (fusion.getKind() == FusionKind::Attention)
      return error() << "an attention fusion runs on the flash or decode "
                        "kernel only";
    break;
  default:
    break;
  }
  switch (tiling.getStrategy()) {
  case KernelStrategy::Transpose:
    if (!isTileTranspose(fusion))
      return error() << "the fusion does not only transpose the last two "
                        "dimensions of an input (or its grid would exceed "
                        "65535 row tiles or matrices)";
    if (tile != ArrayRef<int64_t>{kTransposeTile, kTransposeTile} ||
        threads != kTransposeThreads)
      return error() << "the transpose kernel moves 32 x 32 tiles with 256 "
                        "threads";
    break;
  case KernelStrategy::Elements:
    if (tile.size() != 1)
      return error() << "an elements kernel takes one tile size";
    if (fusion.getKind() != FusionKind::Loop && tile[0] != 1)
      return error() << "only loop kernels take runs of several elements";
    break;
  case KernelStrategy::Rows:
    if (tile.size() != 1)
      return error() << "a rows kernel takes one tile size";
    if (fusion.getKind() != FusionKind::Reduction || !getFusionRowSpace(fusion))
      return error() << "the fusion does not reduce rows";
    break;
  case KernelStrategy::TensorCore: {
    if (fusion.getKind() != FusionKind::Matmul)
      return error() << "only matmul fusions run on tensor cores";
    std::string why = whyNotTensorCoreMatmul(fusion, target);
    MatmulShape shape(fusion.getMatmul());
    if (why.empty())
      why = checkTensorCoreTile(tile, shape.elementBytes(), threads,
                                shape.paired);
    if (why.empty())
      why = whyNotSplitK(fusion.getMatmul(), tile);
    if (!why.empty())
      return error() << why;
    break;
  }
  case KernelStrategy::WarpMma: {
    if (fusion.getKind() != FusionKind::Matmul)
      return error() << "only matmul fusions run on tensor cores";
    std::string why = whyNotWarpMmaMatmul(fusion, target);
    if (why.empty())
      why = checkWarpMmaTile(tile,
                             MatmulShape(fusion.getMatmul()).elementBytes());
    if (why.empty() && threads != kWarpMmaThreads)
      why = "the mma.sync kernel is four warps, 128 threads";
    if (!why.empty())
      return error() << why;
    break;
  }
  case KernelStrategy::Simt: {
    if (fusion.getKind() != FusionKind::Matmul)
      return error() << "only matmul fusions run the tiled CUDA-core kernel";
    std::string why = whyNotSimtMatmul(fusion, target);
    if (why.empty())
      why = checkSimtTile(tile,
                          MatmulShape(fusion.getMatmul()).elementBytes());
    if (why.empty() &&
        threads != SimtTiling{tile[0], tile[1], tile[2]}.getThreads())
      why = "the tiled CUDA-core kernel takes a thread per 8 x 8 outputs";
    if (!why.empty())
      return error() << why;
    break;
  }
  case KernelStrategy::Flash:
  case KernelStrategy::WarpMmaFlash: {
    if (fusion.getKind() != FusionKind::Attention)
      return error() << "only attention fusions run the flash kernel";
    std::string why = whyNotFlashAttention(fusion.getAttention(), target);
    // The wgmma form needs wgmma; the mma.sync form runs wherever the
    // flash kernel does.
    if (why.empty() && tiling.getStrategy() == KernelStrategy::Flash)
      why = whyNotWarpgroupFlash(fusion.getAttention(), target);
    if (why.empty())
      why = checkFlashTile(fusion.getAttention(), tile, threads,
                           tiling.getStrategy() == KernelStrategy::Flash);
    if (!why.empty())
      return error() << why;
    break;
  }
  case KernelStrategy::Decode: {
    if (fusion.getKind() != FusionKind::Attention)
      return error() << "only attention fusions run the decode kernel";
    std::string why =
        checkDecodeAttentionTiling(fusion.getAttention(), tiling);
    if (!why.empty())
      return error() << why;
    break;
  }
  }
  // The tensor-core and flash kernels read their operands through a
  // shared-memory ring, as their promotion says.
  if (!readsPromotedOperands(tiling))
    return success();
  if (promotion)
    return checkPromotion(fusion, tiling, promotion, target);
  if (needPromotion)
    return fusion.emitOpError()
           << "is tiled for "
           << (isFlashKernel(tiling) ? "the flash kernel" : "tensor cores")
           << " but has no fk.promotion (run fk-promote)";
  return success();
}

SmallVector<int64_t> mlir::fk::getPromotedOperands(FusionOp fusion) {
  SmallVector<Value, 3> promoted;
  if (MatmulOp matmul = fusion.getMatmul()) {
    // The left operand, then each matmul's right (a pair's two, a group's
    // one per product).
    promoted = {Value(matmul.getLhs())};
    for (MatmulOp product : fusion.getMatmuls())
      promoted.push_back(getTensorCoreRhsInput(product));
  }
  else if (AttentionOp attention = fusion.getAttention())
    // A mask input is read where each score needs it, not by tiles; a head
    // split is read in its input's layout.
    for (Value operand :
         {attention.getQuery(), attention.getKey(), attention.getValue()})
      promoted.push_back(getAttentionOperandInput(operand));
  SmallVector<int64_t> operands;
  for (Value operand : promoted)
    operands.push_back(cast<BlockArgument>(operand).getArgNumber());
  return operands;
}

LogicalResult mlir::fk::checkPromotion(FusionOp fusion, TilingAttr tiling,
                                       PromotionAttr promotion,
                                       TargetAttr target) {
  SmallVector<int64_t> operands = getPromotedOperands(fusion);
  StageRange range = getStageRange(fusion, tiling, target);
  CopyEngine copy = getCopyEngine(tiling);
  bool asyncCopy = copy == CopyEngine::AsyncCopy;
  if (promotion.getOperands() == ArrayRef<int64_t>(operands) &&
      promotion.getCopy() == copy && promotion.getSwizzle() == 128 &&
      promotion.getStages() >= range.least &&
      promotion.getStages() <= range.most)
    return success();
  InFlightDiagnostic diag =
      fusion.emitOpError() << "has an unusable " << promotion << ": the "
                           << (fusion.getAttention() ? "flash"
                               : tiling.getStrategy() == KernelStrategy::Simt
                                   ? "tiled CUDA-core"
                               : asyncCopy ? "mma.sync"
                                           : "tensor-core")
                           << " kernel reads operands [";
  llvm::interleaveComma(operands, diag);
  return diag << "] by " << (asyncCopy ? "cp.async" : "TMA")
              << ", 128-byte swizzled, in " << range.least << " to "
              << range.most << " stages";
}

TilingAttr mlir::fk::getTiling(FusionOp fusion) {
  if (auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName))
    return tiling;
  return getElementOrRowTiling(fusion);
}

/// Why the wgmma kernel cannot compute `fusion`'s matmul tiled as
/// `tiling` (whose tile may come from flags, a tuning file or the
/// heuristic): its tile on its block, then its K split; or "".
static std::string whyNotTensorCoreTiling(FusionOp fusion, TilingAttr tiling) {
  MatmulOp matmul = fusion.getMatmul();
  MatmulShape shape(matmul);
  std::string bad = checkTensorCoreTile(tiling.getTile(), shape.elementBytes(),
                                        tiling.getThreads(), shape.paired);
  return bad.empty() ? whyNotSplitK(matmul, tiling.getTile()) : bad;
}

/// The tilings of `fusion`, tiled as `tiling` for its largest rows, for
/// runs of fewer rows (RowVariants.h): the heuristic's at each limit of
/// getRowVariantLimits, kept where it differs from the next larger limit's
/// and, for a matmul, is on the same kernel (whose numerics every run then
/// shares; an attention's few query rows may take the decode kernel). A
/// tile fixed by flags serves every run.
static SmallVector<RowVariant>
chooseRowVariants(FusionOp fusion, TilingAttr tiling, TargetAttr target,
                  const TilingRequests &requests) {
  SmallVector<RowVariant> variants;
  bool attention = fusion.getKind() == FusionKind::Attention;
  if (attention ? !requests.attentionTile.empty() || requests.attentionThreads
                : !requests.matmulTile.empty() || requests.matmulThreads)
    return variants;
  TilingAttr larger = tiling;
  SmallVector<int64_t> limits = getRowVariantLimits(fusion);
  for (int64_t limit : llvm::reverse(limits)) {
    FusionOp clone = cloneRowVariant(fusion, {limit, tiling, {}});
    TilingAttr chosen = chooseTiling(clone, target, requests);
    bool usable = chosen && (chosen.getStrategy() == tiling.getStrategy() ||
                             (attention && chosen.getStrategy() ==
                                               KernelStrategy::Decode));
    if (usable && chosen.getStrategy() == KernelStrategy::TensorCore)
      usable = whyNotTensorCoreTiling(clone, chosen).empty();
    clone.erase();
    if (!usable || chosen == larger)
      continue;
    variants.insert(variants.begin(), RowVariant{limit, chosen, {}});
    larger = chosen;
  }
  return variants;
}

namespace {
struct TilePass : fk::impl::FkTileBase<TilePass> {
  using FkTileBase::FkTileBase;

  void runOnOperation() override {
    FailureOr<TargetAttr> target = getTarget(getOperation(), "fk-tile");
    if (failed(target))
      return signalPassFailure();
    if (!matmulTile.empty()) {
      // The tile of the target's matmul kernel for 16-bit operands: wgmma's
      // or mma.sync's.
      std::string bad =
          target->getWgmma()
              ? checkTensorCoreTile(matmulTile, /*elementBytes=*/2,
                                    matmulThreads ? matmulThreads
                                                  : chooseTensorCoreThreads(
                                                        matmulTile))
              : checkWarpMmaTile(matmulTile);
      if (!bad.empty()) {
        getOperation().emitError() << "fk-tile: matmul-tile: " << bad;
        return signalPassFailure();
      }
    }
    if (!attentionTile.empty() &&
        (attentionTile.size() != 2 ||
         !isFlashExtent(attentionTile[0]) ||
         !isFlashExtent(attentionTile[1]))) {
      getOperation().emitError() << "fk-tile: attention-tile: expects query "
                                    "rows and key block, each 64 or 128";
      return signalPassFailure();
    }
    if (attentionThreads && attentionThreads != 128 &&
        attentionThreads != 256 && attentionThreads != 384) {
      getOperation().emitError() << "fk-tile: attention-threads: expects "
                                    "128, 256 or 384";
      return signalPassFailure();
    }
    if (attentionThreads == 3 * kThreadsPerWarpgroup && !target->getWgmma()) {
      getOperation().emitError()
          << "fk-tile: attention-threads: 384 (a producer and two consumer "
             "warpgroups) is the wgmma flash kernel's block, and "
          << target->getChip() << " has no wgmma";
      return signalPassFailure();
    }
    FailureOr<std::optional<TuningTable>> tuning =
        loadTuningTable(getOperation(), "fk-tile", tuningFile, *target);
    if (failed(tuning))
      return signalPassFailure();
    TilingRequests requests{matmulTile, matmulThreads, attentionTile,
                            attentionThreads, *tuning ? &**tuning : nullptr};
    WalkResult walk = getOperation().walk([&](FusionOp fusion) {
      if (AttentionOp attention = fusion.getAttention()) {
        std::string why = whyNoAttentionKernel(attention, *target);
        if (!why.empty()) {
          fusion.emitError() << "fk-tile: no attention kernel can compute "
                                "this attention: "
                             << why
                             << "; fk-decompose decomposes such attentions";
          return WalkResult::interrupt();
        }
      }
      std::string why;
      TilingAttr tiling = chooseTiling(fusion, *target, requests, &why);
      const MatmulTuning *tuned =
          tiling.getStrategy() == KernelStrategy::TensorCore
              ? requests.getTuned(fusion.getMatmul())
              : nullptr;
      if (tiling.getStrategy() == KernelStrategy::TensorCore) {
        // The heuristic's tile on the block asked for.
        std::string bad = whyNotTensorCoreTiling(fusion, tiling);
        if (!bad.empty()) {
          InFlightDiagnostic error = fusion.emitError() << "fk-tile: ";
          if (tuned)
            error << "tuning file '" << requests.tuning->getPath() << "': ";
          else if (!matmulTile.empty())
            error << "matmul-tile: ";
          error << bad;
          return WalkResult::interrupt();
        }
      }
      fusion->setAttr(kTilingAttrName, tiling);
      SmallVector<RowVariant> variants =
          chooseRowVariants(fusion, tiling, *target, requests);
      setRowVariants(fusion, variants);
      if (explain && !variants.empty()) {
        InFlightDiagnostic remark = fusion.emitRemark();
        remark << (fusion.getAttention() ? "attention query rows"
                                         : "matmul rows")
               << " given at run time (" << getVariantRows(fusion).str()
               << "): each run launches the kernel tiled for the fewest rows "
                  "it fits:";
        for (const RowVariant &variant : variants)
          remark << " at most " << variant.rows << " rows "
                 << variant.tiling << ";";
        remark << " more " << tiling;
      }
      if (explain && tuned)
        fusion.emitRemark() << "matmul tile from the tuning file '"
                            << requests.tuning->getPath() << "'";
      if (explain && !why.empty())
        fusion.emitRemark() << "matmul on the element-per-thread kernel, not "
                               "tensor cores: "
                            << why;
      // The tiles of a cp.async-ring kernel, and how they are copied: rows
      // that are not whole 16-byte pieces element by element, without
      // cp.async.
      auto ringTiles = [&]() -> std::string {
        std::string text = "tiles of " + std::to_string(tiling.getTile()[0]) +
                           " x " + std::to_string(tiling.getTile()[1]) +
                           ", K in steps of " +
                           std::to_string(tiling.getTile()[2]);
        if (whyNotAlignedRows(MatmulShape(fusion.getMatmul())).empty())
          return text + " through a cp.async ring";
        return text + ", its tiles copied element by element (rows not a "
                      "multiple of 16 bytes)";
      };
      if (explain && tiling.getStrategy() == KernelStrategy::Simt) {
        Type element =
            tensorType(fusion.getMatmul().getLhs()).getElementType();
        if (element.isF32())
          fusion.emitRemark()
              << "f32 matmul on the tiled f32 kernel (exact f32 FMAs, not "
                 "tensor cores): "
              << ringTiles() << ", 8 x 8 outputs a thread";
        else {
          std::string name;
          llvm::raw_string_ostream(name) << element;
          fusion.emitRemark()
              << name << " matmul on the tiled CUDA-core kernel (integer "
              << "multiply-adds that wrap around; tensor cores take no "
              << name << "): " << ringTiles() << ", 8 x 8 outputs a thread";
        }
      }
      if (explain && tiling.getStrategy() == KernelStrategy::WarpMma) {
        if (MatmulShape(fusion.getMatmul()).elementBytes() == 4) {
          InFlightDiagnostic remark = fusion.emitRemark();
          remark << "f32 matmul on TF32 tensor cores (allowed by "
                    "--allow-tf32: operands rounded to 10-bit mantissas, "
                    "sums in f32), the mma.sync kernel";
          if (target->getWgmma())
            remark << ", not wgmma (" << whyNotTensorCoreMatmul(fusion, *target)
                   << ")";
          remark << ": " << ringTiles();
        }
        else
          fusion.emitRemark()
              << "matmul on the mma.sync tensor-core kernel (sm_80 and "
                 "later), not wgmma ("
              << whyNotTensorCoreMatmul(fusion, *target)
              << "): " << ringTiles();
      }
      if (explain && tiling.getStrategy() == KernelStrategy::TensorCore &&
          MatmulShape(fusion.getMatmul()).elementBytes() == 4)
        fusion.emitRemark()
            << "f32 matmul on TF32 tensor cores (allowed by --allow-tf32: "
               "the 13 low mantissa bits of operands ignored, sums in f32), "
               "the wgmma kernel with B read K-major: tiles of "
            << tiling.getTile()[0] << " x " << tiling.getTile()[1]
            << ", K in steps of " << tiling.getTile()[2];
      if (explain && tiling.getStrategy() == KernelStrategy::TensorCore &&
          tiling.getTile().size() > 3)
        fusion.emitRemark()
            << "matmul with too few output tiles for the SMs: K split among "
            << tiling.getTile()[3]
            << " blocks per tile, whose f32 partial tiles a second kernel "
               "sums before the epilogue";
      if (explain && tiling.getStrategy() == KernelStrategy::Decode) {
        DecodeAttentionTiling decode = DecodeAttentionTiling::get(tiling);
        InFlightDiagnostic remark = fusion.emitRemark();
        remark << "attention with few query rows on the decode kernel: "
                  "blocks of "
               << decode.rows << " query rows, their " << decode.threads / 32
               << " warps splitting the keys";
        if (decode.splits > 1)
          remark << ", the keys also split among " << decode.splits
                 << " blocks whose partial results a second kernel combines";
        remark << "; online softmax in f32 registers, keys that the mask "
                  "hides from every row are not read";
      } else if (explain && tiling.getStrategy() == KernelStrategy::Flash) {
        ArrayRef<int64_t> tile = tiling.getTile();
        int64_t headDim =
            tensorType(fusion.getAttention().getQuery()).getShape().back();
        InFlightDiagnostic remark = fusion.emitRemark();
        remark << "attention in online-softmax form on the flash kernel: "
                  "blocks of "
               << tile[0] << " query rows (" << tile[0] / kFlashRowsPerWarpgroup
               << " warpgroups) walk the keys in blocks of " << tile[1]
               << " with a running max and sum; S = Q K^T and P V on wgmma, "
                  "the scores never leave the chip";
        if (FlashAttentionTiling::get(tiling, /*stages=*/1).warpSpecialized)
          remark << "; a producer warpgroup copies, and the two computing "
                    "warpgroups take turns on the tensor cores, each "
                    "block's softmax under the next block's products";
        if (tile[2] != headDim)
          remark << "; the head dim " << headDim << " computed as " << tile[2]
                 << " (TMA reads the columns past it as zeros)";
      } else if (explain &&
                 tiling.getStrategy() == KernelStrategy::WarpMmaFlash) {
        ArrayRef<int64_t> tile = tiling.getTile();
        fusion.emitRemark()
            << "attention in online-softmax form on the flash kernel's "
               "mma.sync form ("
            << whyNotWarpgroupFlash(fusion.getAttention(), *target)
            << "): blocks of " << tile[0]
            << " query rows (" << tile[0] / kMmaM
            << " warps of 16) walk the keys in blocks of " << tile[1]
            << " copied by cp.async, with a running max and sum; S = Q K^T "
               "and P V on mma.sync, the scores never leave the registers"
            << (!tensorType(fusion.getAttention().getQuery())
                       .getElementType()
                       .isF32()
                    ? ""
                : allowsTf32(fusion)
                    ? "; f32 operands rounded to TF32 (--allow-tf32)"
                    : "; each f32 product as three TF32 products (as "
                      "precise as f32)");
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
