//===- MatmulGroups.cpp - fk-group-matmuls: products of one input, one kernel ===//
//
// A layer's query, key and value projections are three matmuls of one left
// operand, x @ wq, x @ wk and x @ wv, each with its own consumers. fk-fuse
// gives them three kernels; CUDA graph replays run them at once, but each
// still has its own partial last wave of tiles and its own launch. Where
// all of them run on the wgmma kernel, this pass makes them one kernel, a
// *group*: its column tiles are the first product's, then the second's,
// ..., each tile holds one product's columns (its B tile read through that
// product's tensor map) and runs that product's epilogue into its results
// (TensorCoreMatmul.cpp). One persistent grid then walks every product's
// tiles.
//
// Matmul fusions of one left operand group when
//  - each would run on the wgmma kernel alone with K unsplit (a decode
//    step's products split K to fill the GPU, which a group does not), its
//    rows known when compiled;
//  - their matmuls have one result element type, one K and batch shape of
//    their right operands, read in one layout (all transpose(w), or all as
//    stored);
//  - none reads another's result, and no kernel before the last reads the
//    result of an earlier one (the group runs at the last one's place);
//  - no kernel between the first and the last writes a parameter in place;
//  - the group's tile divides each product's columns (no tile holds
//    columns of two products, nor idle columns past one product's end).
//
//===----------------------------------------------------------------------===//

#include "Codegen/MatmulShape.h"
#include "Codegen/MergedMatmuls.h"
#include "Codegen/Passes.h"
#include "Codegen/TensorCoreMatmul.h"
#include "fk/Analysis/Descriptions.h"
#include "fk/IR/FkTarget.h"
#include "fk/Transforms/FusionBuilder.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKGROUPMATMULS
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// Why `fusion` cannot join a group, whatever the others are, or "".
static std::string whyNotGroupable(FusionOp fusion, TargetAttr target) {
  if (std::string why = whyNotMergeableMatmul(fusion, target); !why.empty())
    return why;
  if (MatmulShape(fusion.getMatmul()).hasRuntimeRows())
    return "its rows are given at run time (the row variants of a few rows "
           "split K, which a group does not)";
  return "";
}

/// Why `fusion` (after `members` in program order) cannot join them, or "".
static std::string whyNotJoin(ArrayRef<FusionOp> members, FusionOp fusion) {
  FusionOp firstMember = members.front();
  MatmulOp first = firstMember.getMatmul(), matmul = fusion.getMatmul();
  if (getElementTypeOrSelf(first.getType()) !=
      getElementTypeOrSelf(matmul.getType()))
    return "the matmuls' results differ in element type";
  if (bool(getKMajorRhs(first)) != bool(getKMajorRhs(matmul)))
    return "one matmul reads its right operand as transpose(w), another as "
           "stored";
  ArrayRef<int64_t> firstRhs = tensorType(first.getRhs()).getShape(),
                    rhs = tensorType(matmul.getRhs()).getShape();
  if (firstRhs.drop_back() != rhs.drop_back())
    return "the matmuls' right operands differ in K or batch dims";
  for (FusionOp member : members)
    for (Operation *user : member->getUsers()) {
      if (user == fusion)
        return "it reads the result of " + describeMatmul(member.getMatmul());
      if (user->getBlock() == fusion->getBlock() &&
          user->isBeforeInBlock(fusion))
        return "a kernel before it reads the result of " +
               describeMatmul(member.getMatmul()) +
               " (the group runs at the last matmul's place)";
    }
  SmallVector<FusionOp> all(members);
  all.push_back(fusion);
  return whyNotMovableReads(all);
}

/// Why the wgmma kernel would not compute `group` as its members do, or "".
static std::string whyNotGroupKernel(FusionOp group, TargetAttr target) {
  if (std::string why = whyNotTensorCoreMatmul(group, target); !why.empty())
    return why;
  SmallVector<int64_t> tile = chooseTensorCoreTile(group.getMatmul(), target);
  for (MatmulOp product : group.getMatmuls())
    if (int64_t n = MatmulShape(product).n; n % tile[1])
      return llvm::formatv("its tiles of {0} columns do not divide the {1} "
                           "columns of {2}",
                           tile[1], n, describeMatmul(product))
          .str();
  return "";
}

namespace {
struct GroupMatmulsPass : fk::impl::FkGroupMatmulsBase<GroupMatmulsPass> {
  using FkGroupMatmulsBase::FkGroupMatmulsBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    TargetAttr target = getMergeTarget(fn);
    if (!target)
      return;
    // Single-matmul kernels by their left operand, in program order.
    llvm::MapVector<Value, SmallVector<FusionOp>> byLhs;
    for (auto fusion : fn.getBody().front().getOps<FusionOp>())
      if (fusion.getKind() == FusionKind::Matmul &&
          fusion.getMatmuls().size() == 1)
        if (Value lhs =
                getFusionOuterValue(fusion, fusion.getMatmul().getLhs()))
          byLhs[lhs].push_back(fusion);
    int64_t groups = 0;
    for (auto &[lhs, fusions] : byLhs) {
      if (fusions.size() < 2)
        continue;
      auto missed = [&](FusionOp fusion, StringRef why) {
        if (explain)
          fusion.emitRemark()
              << describeMatmul(fusion.getMatmul())
              << " is not computed with the other matmuls of its left "
                 "operand in one kernel (a matmul group): "
              << why;
      };
      SmallVector<FusionOp> members;
      for (FusionOp fusion : fusions) {
        std::string why = whyNotGroupable(fusion, target);
        if (why.empty() && !members.empty())
          why = whyNotJoin(members, fusion);
        if (!why.empty()) {
          missed(fusion, why);
          continue;
        }
        members.push_back(fusion);
      }
      if (members.size() < 2)
        continue;
      if (succeeded(formGroup(members, target)))
        ++groups;
    }
    if (explain && groups)
      remarkMergedMatmuls(fn, groups, "group");
  }

  /// Replaces `members` by one group fusion at the last one's place, where
  /// the wgmma kernel computes it as they would be.
  LogicalResult formGroup(ArrayRef<FusionOp> members, TargetAttr target) {
    FusionOp last = members.back();
    OpBuilder builder(last);
    FusionOp group = members.front();
    for (FusionOp member : members.drop_front()) {
      // (mergeFusions leaves the builder in the body it built.)
      builder.setInsertionPoint(last);
      FusionOp merged = mergeFusions(builder, last.getLoc(), FusionKind::Matmul,
                                     group, member, /*yieldFirst=*/true);
      if (group != members.front())
        group.erase();
      group = merged;
    }
    group->setDiscardableAttrs(last->getDiscardableAttrDictionary());
    std::string names;
    for (auto [i, member] : llvm::enumerate(members))
      names += (i == 0 ? "" : i + 1 == members.size() ? " and " : ", ") +
               describeMatmul(FusionOp(member).getMatmul());
    if (std::string why = whyNotGroupKernel(group, target);
        !why.empty()) {
      group.erase();
      if (explain)
        last.emitRemark() << names
                          << " are not computed in one kernel (a matmul "
                             "group): "
                          << why;
      return failure();
    }
    if (explain) {
      SmallVector<int64_t> tile =
          chooseTensorCoreTile(group.getMatmul(), target);
      last.emitRemark() << llvm::formatv(
          "{0} computed in one kernel (a matmul group: each tile holds one "
          "product's columns): one launch instead of {1}, one grid over "
          "their {2} tiles of {3} x {4}",
          names, members.size(),
          MatmulShape(group.getMatmul()).tiles(tile[0], tile[1]), tile[0],
          tile[1]);
    }
    unsigned result = 0;
    for (FusionOp member : members)
      for (Value value : member->getResults())
        value.replaceAllUsesWith(group.getResult(result++));
    for (FusionOp member : members)
      member.erase();
    return success();
  }
};
} // namespace
