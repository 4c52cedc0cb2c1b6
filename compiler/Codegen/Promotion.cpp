//===- Promotion.cpp - fk-promote: shared operand tiles in shared memory --===//

#include "Codegen/Passes.h"
#include "Codegen/TensorCoreMatmul.h"
#include "Codegen/Tiling.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKPROMOTE
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

StageRange mlir::fk::getStageRange(FusionOp fusion, TilingAttr tiling,
                                   const TargetDescription &target) {
  MatmulOp matmul = fusion.getMatmul();
  ArrayRef<int64_t> tile = tiling.getTile();
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  TensorCoreTiling one{tile[0], tile[1], tile[2], /*stages=*/1};
  int64_t elementBytes = lhsType.getElementTypeBitWidth() / 8;
  int64_t stageBytes = one.getSharedBytes(elementBytes) - kRingAlignment;
  int64_t kSteps = llvm::divideCeil(lhsType.getShape().back(), tile[2]);
  StageRange range;
  range.stageBytes = stageBytes;
  // The epilogue stages the f32 accumulator tile through the ring.
  range.least = std::max<int64_t>(
      2, llvm::divideCeil(tile[0] * tile[1] * 4, stageBytes));
  range.most = (target.sharedMemoryPerBlock - kRingAlignment) / stageBytes;
  // More stages than K steps + 1 are never filled.
  range.useful = std::max(range.least, kSteps + 1);
  return range;
}

FailureOr<PromotionAttr>
mlir::fk::choosePromotion(FusionOp fusion, TilingAttr tiling,
                          const TargetDescription &target, int64_t stages) {
  if (tiling.getStrategy() != KernelStrategy::TensorCore)
    return PromotionAttr();
  StageRange range = getStageRange(fusion, tiling, target);
  if (stages == 0) {
    // Two blocks per SM, each with its ring and the static mbarriers (which
    // ptxas rounds up to 1 KiB).
    int64_t fitsTwo = (target.sharedMemoryPerSm / 2 - 2 * kRingAlignment) /
                      range.stageBytes;
    stages = std::clamp<int64_t>(fitsTwo, range.least, range.useful);
  }
  stages = std::min(stages, range.useful);
  if (stages < range.least || stages > range.most)
    return fusion.emitError()
           << "fk-promote: " << stages << " stages of " << range.stageBytes
           << " bytes do not fit: a " << tiling.getTile()[0] << "x"
           << tiling.getTile()[1] << " tile needs " << range.least << " to "
           << range.most << " on " << target.chip;
  MatmulOp matmul = fusion.getMatmul();
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
    FailureOr<TargetDescription> target =
        getTargetOrError(getOperation(), "fk-promote", chip);
    if (failed(target))
      return signalPassFailure();
    WalkResult walk = getOperation().walk([&](FusionOp fusion) {
      auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
      if (!tiling) {
        fusion.emitError() << "fk-promote: the fusion has no fk.tiling (run "
                              "fk-tile first)";
        return WalkResult::interrupt();
      }
      if (failed(checkTiling(fusion, tiling)))
        return WalkResult::interrupt();
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
