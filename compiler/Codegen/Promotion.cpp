//===- Promotion.cpp - fk-promote: shared operand tiles in shared memory --===//

#include "Codegen/AttentionShape.h"
#include "Codegen/FlashAttention.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/Passes.h"
#include "Codegen/RowVariants.h"
#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/Tuning.h"
#include "Codegen/Tiling.h"
#include "Codegen/SimtMatmul.h"
#include "Codegen/WarpMmaMatmul.h"
#include "fk/IR/FkTarget.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKPROMOTE
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// The flash kernel's ring holds a K and a V block per stage, after the Q
/// tile; the epilogue stages the f32 output tile through all of it.
static StageRange getFlashStageRange(FusionOp fusion, TilingAttr tiling,
                                     TargetAttr target) {
  // Sizes per stage: the stage count is what is being chosen.
  FlashAttentionTiling flash = FlashAttentionTiling::get(tiling, /*stages=*/1);
  auto queryType =
      cast<RankedTensorType>(fusion.getAttention().getQuery().getType());
  int64_t elementBytes = queryType.getElementTypeBitWidth() / 8;
  // (Keys given at run time count as their bound, or kUnboundedSizeGuess.)
  int64_t keys = AttentionShape(fusion.getAttention()).keys;
  StageRange range;
  range.stageBytes = flash.getStageBytes(elementBytes);
  // Double buffering, and room for the output tile over Q and the ring.
  range.least = std::max<int64_t>(
      2, llvm::divideCeil(flash.getOutputTileBytes() -
                              flash.getQueryBytes(elementBytes),
                          range.stageBytes));
  range.most = (target.getSharedMemoryPerBlock() - kRingAlignment -
                flash.getQueryBytes(elementBytes)) /
               range.stageBytes;
  range.useful =
      std::max<int64_t>(range.least, llvm::divideCeil(keys, flash.keyBlock));
  return range;
}

/// The ring of the cp.async matmul kernels (RingMatmul.h: mma.sync, tiled
/// f32) holds an A and a B tile per stage of `stageBytes`, K in steps of
/// `tileK`; their epilogue's f32 tile reuses the ring, or more shared
/// memory when larger.
static StageRange getRingMatmulStageRange(FusionOp fusion, int64_t stageBytes,
                                          int64_t tileK, TargetAttr target) {
  int64_t k = cast<RankedTensorType>(fusion.getMatmul().getLhs().getType())
                  .getShape()
                  .back();
  StageRange range;
  range.stageBytes = stageBytes;
  range.least = 2;
  range.most =
      (target.getSharedMemoryPerBlock() - kRingAlignment) / range.stageBytes;
  // More stages than K steps + 1 are never filled.
  range.useful =
      std::max<int64_t>(range.least, llvm::divideCeil(k, tileK) + 1);
  return range;
}

StageRange mlir::fk::getStageRange(FusionOp fusion, TilingAttr tiling,
                                   TargetAttr target) {
  if (isFlashKernel(tiling))
    return getFlashStageRange(fusion, tiling, target);
  if (tiling.getStrategy() == KernelStrategy::WarpMma) {
    WarpMmaTiling one = WarpMmaTiling::get(tiling, /*stages=*/1);
    return getRingMatmulStageRange(
        fusion,
        one.getStageBytes(MatmulShape(fusion.getMatmul()).elementBytes()),
        one.tileK, target);
  }
  if (tiling.getStrategy() == KernelStrategy::Simt) {
    SimtTiling one = SimtTiling::get(
        tiling, /*stages=*/1, MatmulShape(fusion.getMatmul()).elementBytes());
    return getRingMatmulStageRange(fusion, one.getStageBytes(), one.tileK,
                                   target);
  }
  MatmulOp matmul = fusion.getMatmul();
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  TensorCoreTiling one = TensorCoreTiling::get(tiling, /*stages=*/1);
  int64_t elementBytes = lhsType.getElementTypeBitWidth() / 8;
  int64_t stageBytes = one.getStageBytes(elementBytes);
  // The alignment and the warp-specialized kernel's epilogue tile.
  int64_t fixedBytes = one.getSharedBytes(elementBytes) - stageBytes;
  // The K steps of one split.
  int64_t kSteps =
      llvm::divideCeil(lhsType.getShape().back(), one.tileK) / one.splits;
  StageRange range;
  range.stageBytes = stageBytes;
  // The one-warpgroup kernel's epilogue stages the f32 accumulator tile
  // through the ring.
  range.least = std::max<int64_t>(
      2, one.isWarpSpecialized()
             ? 0
             : llvm::divideCeil(one.tileM * one.tileN * 4, stageBytes));
  range.most = (target.getSharedMemoryPerBlock() - fixedBytes) / stageBytes;
  // More stages than K steps + 1 are never filled.
  range.useful = std::max(range.least, kSteps + 1);
  return range;
}

/// Waves of three blocks per SM from which the tensor-core kernel's rings
/// are sized for three blocks per SM instead of two (choosePromotion).
static constexpr int64_t kWavesForThreeBlocks = 4;
/// The tensor-core kernel's ring depth for TF32 operands (choosePromotion).
static constexpr int64_t kTf32TensorCoreStages = 4;

/// The wgmma kernel's ring depth: rings for two blocks per SM, each with its
/// ring and the static mbarriers (which ptxas rounds up to 1 KiB); for three
/// where the tiles fill at least kWavesForThreeBlocks waves of three blocks
/// per SM, so that blocks hide each other's epilogues and the last wave's
/// idle SMs cost little. Measured on an H100 (fkc-run, 3 against 2 stages
/// of 32 KiB, that is two against three blocks): 4096^3 0.216 / 0.230 ms
/// (2.6 waves of three), 8192^3 1.795 / 1.709 ms (10.3 waves), GPT-2's LM
/// head 2048 x 768 x 50257 0.428 / 0.398 ms (15.9 waves). TF32 operands take
/// kTf32TensorCoreStages: wgmma's K of 8 takes twice the instructions per
/// byte of a 16-bit K step, and a deeper ring in one block per SM measured
/// faster (nn.Linear 4096^3: 0.464 / 0.436 / 0.438 / 0.467 ms with 3 / 4 /
/// 5 / 6 stages).
static int64_t chooseTensorCoreStages(FusionOp fusion, TilingAttr tiling,
                                      TargetAttr target,
                                      const StageRange &range) {
  MatmulShape shape(fusion.getMatmul());
  if (shape.elementBytes() == 4)
    return std::clamp<int64_t>(kTf32TensorCoreStages, range.least,
                               range.useful);
  // The warp-specialized kernel is one block per SM (its consumers' 384
  // threads of accumulators fill the registers): the deepest ring.
  if (TensorCoreTiling::get(tiling, 1).isWarpSpecialized())
    return std::clamp<int64_t>(range.most, range.least, range.useful);
  auto stagesForBlocks = [&](int64_t blocks) {
    return (target.getSharedMemoryPerSm() / blocks - 2 * kRingAlignment) /
           range.stageBytes;
  };
  int64_t tiles = shape.tiles(tiling.getTile()[0], tiling.getTile()[1]);
  int64_t blocks = stagesForBlocks(3) >= range.least &&
                           tiles >= kWavesForThreeBlocks * 3 *
                                        target.getSmCount()
                       ? 3
                       : 2;
  return std::clamp<int64_t>(stagesForBlocks(blocks), range.least,
                             range.useful);
}

FailureOr<PromotionAttr>
mlir::fk::choosePromotion(FusionOp fusion, TilingAttr tiling,
                          TargetAttr target, int64_t stages) {
  if (failed(checkTiling(fusion, tiling, target)))
    return failure();
  bool flash = isFlashKernel(tiling);
  bool warpMma = tiling.getStrategy() == KernelStrategy::WarpMma;
  bool simt = tiling.getStrategy() == KernelStrategy::Simt;
  if (!readsPromotedOperands(tiling))
    return PromotionAttr();
  StageRange range = getStageRange(fusion, tiling, target);
  if (stages == 0 && simt) {
    stages = std::clamp<int64_t>(kSimtStages, range.least, range.most);
  } else if (stages == 0 && warpMma) {
    // Four stages: three K tiles in flight while the warps read one, as
    // CUTLASS's sm_80 kernels of 128 x 128 x 32 tiles.
    stages = std::clamp<int64_t>(kWarpMmaStages, range.least, range.most);
  } else if (stages == 0 && flash) {
    // Double buffering, as FlashAttention-3: one block fills while the
    // other is read; deeper rings cost blocks per SM.
    stages = range.least;
  } else if (stages == 0) {
    stages = chooseTensorCoreStages(fusion, tiling, target, range);
  }
  stages = std::min(stages, range.useful);
  if (stages < range.least || stages > range.most)
    return fusion.emitError()
           << "fk-promote: " << stages << " stages of " << range.stageBytes
           << " bytes do not fit: a " << tiling.getTile()[0] << "x"
           << tiling.getTile()[1] << " tile needs " << range.least << " to "
           << range.most << " on " << target.getChip();
  return PromotionAttr::get(fusion.getContext(), getPromotedOperands(fusion),
                            getCopyEngine(tiling),
                            stages, /*swizzle=*/128);
}

namespace {
struct PromotePass : fk::impl::FkPromoteBase<PromotePass> {
  using FkPromoteBase::FkPromoteBase;

  void runOnOperation() override {
    FailureOr<TargetAttr> target = getTarget(getOperation(), "fk-promote");
    if (failed(target))
      return signalPassFailure();
    FailureOr<std::optional<TuningTable>> tuning =
        loadTuningTable(getOperation(), "fk-promote", tuningFile, *target);
    if (failed(tuning))
      return signalPassFailure();
    WalkResult walk = getOperation().walk([&](FusionOp fusion) {
      auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
      if (!tiling) {
        fusion.emitError() << "fk-promote: the fusion has no fk.tiling (run "
                              "fk-tile first)";
        return WalkResult::interrupt();
      }
      // A tuning file's ring depth, where fk-tile took its tiling.
      int64_t depth = stages;
      // (choosePromotion checks the tiling; a fusion without a matmul has
      // no tuning entry.)
      if (!depth && *tuning && fusion.getMatmul() &&
          tiling.getStrategy() == KernelStrategy::TensorCore) {
        const MatmulTuning *tuned =
            (*tuning)->lookup(MatmulShape(fusion.getMatmul()));
        if (tuned && tiling.getTile() == ArrayRef<int64_t>(tuned->tile) &&
            tiling.getThreads() == tuned->threads)
          depth = tuned->stages;
      }
      FailureOr<PromotionAttr> promotion =
          choosePromotion(fusion, tiling, *target, depth);
      if (failed(promotion))
        return WalkResult::interrupt();
      if (*promotion)
        fusion->setAttr(kPromotionAttrName, *promotion);
      if (explain && *promotion &&
          tiling.getStrategy() == KernelStrategy::TensorCore)
        fusion.emitRemark() << describeTensorCoreKernel(
            fusion, TensorCoreTiling::get(tiling, promotion->getStages()),
            *target);
      // Each row variant's kernel promotes as its tiling asks, at its rows.
      FailureOr<SmallVector<RowVariant>> variants = getRowVariants(fusion);
      if (failed(variants))
        return WalkResult::interrupt();
      for (RowVariant &variant : *variants) {
        FusionOp clone = cloneRowVariant(fusion, variant);
        FailureOr<PromotionAttr> chosen =
            choosePromotion(clone, variant.tiling, *target, stages);
        clone.erase();
        if (failed(chosen))
          return WalkResult::interrupt();
        variant.promotion = *chosen;
      }
      setRowVariants(fusion, *variants);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
