//===- Tiling.h - how a fusion's kernel divides its work -------*- C++ -*-===//
//
// The heuristics of fk-tile and fk-promote for the module's target
// (fk/IR/FkTarget.h), and the checks that a tiling and promotion, chosen or
// written by hand, are ones the kernel builders can build.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TILING_H
#define FKC_CODEGEN_TILING_H

#include "fk/IR/FkOps.h"

#include <string>

namespace mlir::fk {

class TuningTable;
struct MatmulTuning;

/// What the user fixed of fk-tile's choices: `matmulTile` (M, N, K),
/// `matmulThreads` (the wgmma kernel's block) and `attentionTile` (query
/// rows, key block), which fk-tile checks once for the whole function,
/// replace the heuristic's choices when not empty (not 0); then a tuning
/// file's entry (Tuning.h) replaces them for the wgmma matmuls of its shape.
struct TilingRequests {
  ArrayRef<int64_t> matmulTile;
  int64_t matmulThreads = 0;
  ArrayRef<int64_t> attentionTile;
  int64_t attentionThreads = 0;
  const TuningTable *tuning = nullptr;

  /// The tuning file's entry for `matmul`'s shape, or null (also when
  /// `matmulTile` or `matmulThreads` fix the tile).
  const MatmulTuning *getTuned(MatmulOp matmul) const;
};

/// The tiling fk-tile gives `fusion` on `target`, as `requests` ask. When a
/// matmul stays off the tensor cores, `whyNotTensorCores` (if given) says
/// why.
TilingAttr chooseTiling(FusionOp fusion, TargetAttr target,
                        const TilingRequests &requests = {},
                        std::string *whyNotTensorCores = nullptr);

/// The promotion fk-promote gives a fusion tiled as `tiling`, or null when
/// nothing is worth promoting; `stages` (if not 0) fixes the ring depth.
/// The tiling is checked first (checkTiling, whose errors it reports).
FailureOr<PromotionAttr> choosePromotion(FusionOp fusion, TilingAttr tiling,
                                         TargetAttr target,
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
                         TargetAttr target);

/// Whether `tiling` asks for a kernel that reads its operands through a
/// promoted shared-memory ring (tensor_core, mma_sync, simt, flash,
/// flash_mma_sync): one that only some targets run, and that is built of
/// NVGPU ops.
bool readsPromotedOperands(TilingAttr tiling);

/// How the kernel of a `tiling` that readsPromotedOperands copies its
/// operand tiles: TMA for the wgmma kernels, cp.async for the others.
CopyEngine getCopyEngine(TilingAttr tiling);

/// Whether `tiling` asks for the flash-attention kernel, in its wgmma
/// (flash) or mma.sync (flash_mma_sync) form.
bool isFlashKernel(TilingAttr tiling);

/// Whether a kernel can be built for `fusion` as `tiling` and `promotion`
/// say (they may come from IR written by hand) on `target`, which only
/// tensor-core kernels read (it may be null for others); emits an error if
/// not.
LogicalResult checkTiling(FusionOp fusion, TilingAttr tiling,
                          TargetAttr target, PromotionAttr promotion = {},
                          bool needPromotion = false);

/// The fusion inputs a tensor-core or flash kernel reads by TMA: the
/// operands of its matmul or attention.
SmallVector<int64_t> getPromotedOperands(FusionOp fusion);

/// Whether `promotion` is what the tensor-core or flash kernel of `fusion`
/// tiled as `tiling` takes on `target`; emits an error if not.
LogicalResult checkPromotion(FusionOp fusion, TilingAttr tiling,
                             PromotionAttr promotion, TargetAttr target);

/// The tiling of `fusion`: its fk.tiling, else, for loop, reduction and
/// matmul fusions, the heuristic's on a target without tensor cores (the
/// kernels every target runs); null for an attention fusion without one.
TilingAttr getTiling(FusionOp fusion);

/// The most threads of a row kernel that reads rows of a length given at
/// run time in loops (isLoopedRowFusion).
inline constexpr int64_t kRuntimeRowThreads = 256;

/// Threads of a row kernel whose rows hold `runs` runs of adjacent elements
/// of `width` elements each: about 8 elements per thread, whole warps.
int64_t getRowKernelThreads(int64_t runs, int64_t width);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TILING_H
