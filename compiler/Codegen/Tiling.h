//===- Tiling.h - how a fusion's kernel divides its work -------*- C++ -*-===//
//
// The heuristics of fk-tile and fk-promote, which the kernel builders also
// use for fusions that come without a tiling (IR given to fk-lower-to-gpu
// directly).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TILING_H
#define FKC_CODEGEN_TILING_H

#include "Codegen/TargetDescription.h"
#include "fk/IR/FkOps.h"

#include <string>

namespace mlir::fk {


/// The description of `chip` for pass `pass`, or an error at `op`.
FailureOr<TargetDescription> getTargetOrError(Operation *op, StringRef pass,
                                              StringRef chip);

/// The tiling fk-tile gives `fusion` on `target`; `matmulTile` (M, N, K)
/// and `attentionTile` (query rows, key block), which fk-tile checks once
/// for the whole function, replace the heuristic's tiles when not empty.
/// When a matmul stays off the tensor cores, `whyNotTensorCores` (if given)
/// says why.
TilingAttr chooseTiling(FusionOp fusion, const TargetDescription &target,
                        ArrayRef<int64_t> matmulTile = {},
                        std::string *whyNotTensorCores = nullptr,
                        ArrayRef<int64_t> attentionTile = {});

/// The promotion fk-promote gives a fusion tiled as `tiling`, or null when
/// nothing is worth promoting; `stages` (if not 0) fixes the ring depth.
FailureOr<PromotionAttr> choosePromotion(FusionOp fusion, TilingAttr tiling,
                                         const TargetDescription &target,
                                         int64_t stages = 0);

/// The depths a tensor-core fusion's shared-memory ring may have.
struct StageRange {
  int64_t stageBytes = 0;
  /// At least `least` (double buffering, and room for the accumulator
  /// tile), at most `most` (what a block may hold); beyond `useful` stages
  /// are never filled.
  int64_t least = 0, most = 0, useful = 0;
};
StageRange getStageRange(FusionOp fusion, TilingAttr tiling,
                         const TargetDescription &target);

/// Whether a kernel can be built for `fusion` as `tiling` and `promotion`
/// say (they may come from IR written by hand); emits an error if not.
LogicalResult checkTiling(FusionOp fusion, TilingAttr tiling,
                          PromotionAttr promotion = {},
                          bool needPromotion = false);

/// The fusion inputs a tensor-core or flash kernel reads by TMA: the
/// operands of its matmul or attention.
SmallVector<int64_t> getPromotedOperands(FusionOp fusion);

/// Whether `promotion` is what the tensor-core or flash kernel of `fusion`
/// tiled as `tiling` takes; emits an error if not.
LogicalResult checkPromotion(FusionOp fusion, TilingAttr tiling,
                             PromotionAttr promotion);

/// The tiling of `fusion`: its fk.tiling, else the heuristic's for a
/// target without tensor cores.
TilingAttr getTiling(FusionOp fusion);

/// Threads of a row kernel whose rows hold `runs` runs of adjacent elements
/// of `width` elements each: about 8 elements per thread, whole warps.
int64_t getRowKernelThreads(int64_t runs, int64_t width);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TILING_H
