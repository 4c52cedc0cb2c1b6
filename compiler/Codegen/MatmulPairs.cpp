//===- MatmulPairs.cpp - fk-pair-matmuls: two products, one kernel --------===//
//
// A SwiGLU MLP computes silu(x @ wg) * (x @ wu). fk-fuse gives it two
// kernels: the gate product alone, which writes g, and the up product whose
// epilogue reads g back. Where both run on the wgmma kernel, this pass makes
// them one kernel that computes both products side by side: a tile holds
// tileN / 2 columns of each (its B tile is wg's columns, then wu's), so
// each A tile is read once for both, and the epilogue combines the two
// accumulators without g ever reaching device memory (TensorCoreMatmul.cpp).
//
// Two matmul fusions pair when
//  - the first's one result is read by the second only, in its epilogue;
//  - their matmuls have one left operand and one result type, and read
//    their right operands in one layout (both transpose(w), or both as
//    stored);
//  - each would run on the wgmma kernel without splitting K (a product too
//    small to fill the GPU splits K instead, which a pair cannot);
//  - no kernel between them writes a parameter in place (the first's reads
//    move to the second's place).
//
//===----------------------------------------------------------------------===//

#include "Codegen/MatmulShape.h"
#include "Codegen/MergedMatmuls.h"
#include "Codegen/Passes.h"
#include "Codegen/TensorCoreMatmul.h"
#include "fk/Analysis/Descriptions.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkTarget.h"
#include "fk/Transforms/FusionBuilder.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKPAIRMATMULS
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// Why the pair `pair` would leave SMs idle, or "". Below a wave of tiles,
/// the two products as kernels of their own have twice the blocks, which a
/// replay runs at once: a decode step's or a short prompt's projections
/// are faster apart.
static std::string whyNotEnoughTiles(FusionOp pair, TargetAttr target) {
  MatmulShape shape(pair.getMatmul());
  SmallVector<int64_t> tile = chooseTensorCoreTile(pair.getMatmul(), target);
  int64_t tiles = shape.tiles(tile[0], tile[1]);
  if (tiles >= target.getSmCount())
    return "";
  return llvm::formatv("the pair's {0} tiles of {1} x {2} would leave SMs "
                       "idle (the GPU has {3}); apart, the products have "
                       "twice the blocks",
                       tiles, tile[0], tile[1], target.getSmCount())
      .str();
}

/// Why `first` cannot pair with `second`, which reads its result, or "".
static std::string whyNotPair(FusionOp first, FusionOp second,
                              TargetAttr target) {
  MatmulOp a = first.getMatmul(), b = second.getMatmul();
  if (first.getNumResults() != 1 ||
      llvm::any_of(first.getResult(0).getUsers(),
                   [&](Operation *user) { return user != second; }))
    return "its result is read by other kernels too";
  for (FusionOp fusion : {first, second})
    if (std::string why = whyNotMergeableMatmul(fusion, target); !why.empty())
      return describeMatmul(fusion.getMatmul()) + ": " + why;
  if (a.getType() != b.getType())
    return "the matmuls' results differ in type";
  // fk.fusion C3 (the kernel's checks of the built pair follow).
  if (a.getRhs().getType() != b.getRhs().getType())
    return "the matmuls' right operands differ in type (batch dims)";
  // The first's result must reach the second's outputs through elementwise
  // ops of the matmul's shape only: the epilogue reads it at the output
  // element, as it reads the second matmul.
  Value result = first.getResult(0);
  for (auto [input, arg] :
       llvm::zip(second.getInputs(), second.getBody().front().getArguments()))
    if (input == result &&
        findNonElementwiseUse(arg, b.getType().getShape(),
                              [](Operation *op) { return !isa<YieldOp>(op); }))
      return "the second kernel reads its result other than elementwise "
             "(an epilogue reads it at the output element)";
  // The first's reads move to the second's place.
  return whyNotMovableReads({first, second});
}

namespace {
struct PairMatmulsPass : fk::impl::FkPairMatmulsBase<PairMatmulsPass> {
  using FkPairMatmulsBase::FkPairMatmulsBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    TargetAttr target = getMergeTarget(fn);
    if (!target)
      return;
    SmallVector<FusionOp> matmuls;
    for (auto fusion : fn.getBody().front().getOps<FusionOp>())
      if (fusion.getKind() == FusionKind::Matmul)
        matmuls.push_back(fusion);
    int64_t pairs = 0;
    for (FusionOp second : matmuls) {
      // (Null where the second computes its left operand.)
      Value lhs = getFusionOuterValue(second, second.getMatmul().getLhs());
      for (Value input : second.getInputs()) {
        // Candidates: a matmul kernel whose result the second reads, of
        // the second's left operand.
        auto first = input.getDefiningOp<FusionOp>();
        if (!first || first.getKind() != FusionKind::Matmul || !lhs ||
            getFusionOuterValue(first, first.getMatmul().getLhs()) != lhs)
          continue;
        auto missed = [&](StringRef why) {
          if (explain)
            second.emitRemark()
                << "the kernel of " << describeOp(second.getRoot())
                << " does not compute " << describeMatmul(first.getMatmul())
                << " beside its matmul (a pair): " << why;
        };
        if (std::string why = whyNotPair(first, second, target);
            !why.empty()) {
          missed(why);
          continue;
        }
        // One fusion computing the first's body, then the second's, at the
        // second's place; then what the wgmma kernel says of it.
        OpBuilder builder(second);
        FusionOp pair = mergeFusions(builder, second.getLoc(),
                                     FusionKind::Matmul, first, second,
                                     /*yieldFirst=*/false);
        pair->setDiscardableAttrs(second->getDiscardableAttrDictionary());
        std::string why = whyNotTensorCoreMatmul(pair, target);
        if (why.empty())
          why = whyNotEnoughTiles(pair, target);
        if (!why.empty()) {
          pair.erase();
          missed(why);
          continue;
        }
        if (explain) {
          MatmulOp matmul = first.getMatmul();
          int64_t lhs = getTensorBytes(getFusionOuterValue(first, matmul.getLhs())),
                  result = getTensorBytes(first.getResult(0));
          second.emitRemark() << llvm::formatv(
              "{0} computed beside {1} in one kernel (a matmul pair: the "
              "tiles hold columns of both products): saves {2} of device "
              "memory traffic (the left operand read once, {3}, and the "
              "write and read of {4}){5}",
              describeMatmul(matmul), describeMatmul(second.getMatmul()),
              formatBytes(lhs + 2 * result), formatBytes(lhs),
              formatBytes(result), describeSymbolUnits(first));
        }
        second.replaceAllUsesWith(pair.getResults());
        second.erase();
        first.erase();
        ++pairs;
        break;
      }
    }
    if (explain && pairs)
      remarkMergedMatmuls(fn, pairs, "pair");
  }
};
} // namespace
