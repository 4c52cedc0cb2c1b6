//===- Promotion.cpp - fk-promote: shared operand tiles in shared memory --===//

#include "Codegen/Passes.h"
#include "Codegen/Tiling.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKPROMOTE
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// Bytes of shared memory each block's ring is aligned within.
static constexpr int64_t kRingAlignment = 1024;

FailureOr<PromotionAttr>
mlir::fk::choosePromotion(FusionOp fusion, TilingAttr tiling,
                          const TargetDescription &target, int64_t stages) {
  if (tiling.getStrategy() != KernelStrategy::TensorCore)
    return PromotionAttr();
  MatmulOp matmul = fusion.getMatmul();
  ArrayRef<int64_t> tile = tiling.getTile();
  int64_t m = tile[0], n = tile[1], k = tile[2];
  int64_t elementBytes =
      cast<RankedTensorType>(matmul.getLhs().getType()).getElementTypeBitWidth() / 8;
  int64_t stageBytes = (m + n) * k * elementBytes;
  int64_t depth = cast<RankedTensorType>(matmul.getLhs().getType()).getShape().back();
  int64_t kSteps = (depth + k - 1) / k;
  // The epilogue stages the f32 accumulator tile through the ring.
  int64_t minStages = std::max<int64_t>(2, llvm::divideCeil(m * n * 4, stageBytes));
  int64_t fitsAlone = (target.sharedMemoryPerBlock - kRingAlignment) / stageBytes;
  if (stages == 0) {
    // Two blocks per SM, each with its ring and the static mbarriers (which
    // ptxas rounds up to 1 KiB); more stages than K steps are never filled.
    int64_t fitsTwo =
        (target.sharedMemoryPerSm / 2 - 2 * kRingAlignment) / stageBytes;
    stages = std::clamp<int64_t>(fitsTwo, minStages, std::max(minStages, kSteps + 1));
  }
  if (stages < minStages || stages > fitsAlone)
    return fusion.emitError()
           << "fk-promote: " << stages << " stages of " << stageBytes
           << " bytes do not fit: a " << m << "x" << n << " tile needs "
           << minStages << " to " << fitsAlone << " on " << target.chip;
  auto inputIndex = [&](Value operand) {
    return static_cast<int64_t>(cast<BlockArgument>(operand).getArgNumber());
  };
  return PromotionAttr::get(
      fusion.getContext(),
      {inputIndex(matmul.getLhs()), inputIndex(matmul.getRhs())},
      CopyEngine::Tma, stages, /*swizzle=*/128);
}

namespace {
struct PromotePass : fk::impl::FkPromoteBase<PromotePass> {
  using FkPromoteBase::FkPromoteBase;

  void runOnOperation() override {
    std::optional<TargetDescription> target = getTargetDescription(chip);
    if (!target) {
      getOperation().emitError() << "fk-promote: unknown chip '" << chip << "'";
      return signalPassFailure();
    }
    WalkResult walk = getOperation().walk([&](FusionOp fusion) {
      auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
      if (!tiling) {
        fusion.emitError() << "fk-promote: the fusion has no fk.tiling (run "
                              "fk-tile first)";
        return WalkResult::interrupt();
      }
      FailureOr<PromotionAttr> promotion =
          choosePromotion(fusion, tiling, *target, stages);
      if (failed(promotion))
        return WalkResult::interrupt();
      if (*promotion)
        fusion->setAttr(kPromotionAttrName, *promotion);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
