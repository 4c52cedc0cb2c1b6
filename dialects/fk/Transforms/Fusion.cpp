//===- Fusion.cpp - grouping ops into kernels -----------------------------===//
//
// Decides which ops run together in one kernel, XLA-style: walking the graph
// from its results back to its inputs, each op is offered to the kernel of
// its consumers; then loop kernels that share an input and a result shape
// (siblings) merge. It joins when that saves device-memory traffic and nothing
// vetoes it; every decision, made or refused, has a reason, which
// `--explain-fusion` prints as a remark at the op.
//
// The cost model counts bytes of device memory: a value computed by one
// kernel and used by another is written once and read once; fused, it stays
// in registers. Vetoes:
//  - a matmul or an attention joins its consumer kernel only as the start
//    of an elementwise epilogue (bias, activation, residual, scaling,
//    casts) of its shape, which for an attention may end in a head merge
//    (reshape(transpose(o, perm = [0, 2, 1, 3])), stored permuted); what
//    computes its operands stays out (the tensor-core and flash kernels
//    read operands from device memory through TMA), but for a transpose of
//    a matmul's right operand's last two dimensions (x @ transpose(w)) and
//    the head splits of an attention's query, key and value
//    (transpose(reshape(p), perm = [0, 2, 1, 3])), which the kernels read
//    in place, and a kernel has one matmul or attention;
//  - a value used by several kernels is not recomputed in each, unless it
//    is pure index arithmetic (broadcast, reshape, transpose, slice,
//    dynamic_slice, iota) or a cast, which cost no arithmetic worth saving;
//  - a value that a fusion already in the input reads is a kernel of its
//    own (that fusion takes no more ops, and reads it from memory);
//  - a reduction fuses with its consumers only over the trailing axes of
//    the consumers' rows (a "row"), when the row fits on chip, and all
//    reductions of a kernel must share the row space;
//  - a reduced value reaches the row only through unit-dimension reshapes,
//    broadcasts along the row and elementwise ops (so each row only ever
//    needs its own reductions);
//  - a value that is also a graph result must have a shape the kernel
//    writes (the shape of the kernel's result, or in a row kernel, of its
//    rows or reduced rows).
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkNumerics.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkTarget.h"
#include "fk/Analysis/Descriptions.h"
#include "fk/Analysis/RowSpace.h"
#include "fk/Transforms/FusionBuilder.h"
#include "fk/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKFUSE
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Whether `user`, consuming a value derived from a reduction over `space`,
/// keeps it aligned with the rows: a value of the reduced shape (up to unit
/// dimensions) is still one value per row; a broadcast to the row shape
/// from such a value spreads it along its own row.
static bool keepsRowsAligned(Operation *user, const RowSpace &space) {
  if (user->hasTrait<OpTrait::Elementwise>())
    return true;
  // Compared as dimensions: [S, T] to [T, S] keeps the shape's dynamic
  // positions but moves elements between rows.
  if (auto reshape = dyn_cast<ReshapeOp>(user))
    return equalUpToUnitDims(getDims(tensorType(reshape.getOperand())),
                             getDims(tensorType(reshape.getResult())));
  if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
    // [lead..., 1, ...] -> [lead..., row...]: the operand must have the
    // row's rank, its leading dims, and unit row dims.
    SmallVector<Dim> from = getDims(tensorType(broadcast.getOperand()));
    if (from.size() != space.shape.size() ||
        !space.isRowType(tensorType(broadcast.getResult())))
      return false;
    SmallVector<Dim> leading = space.leadingDims();
    for (auto [i, dim] : llvm::enumerate(from))
      if (static_cast<int64_t>(i) < space.leadingRank ? dim != leading[i]
                                                      : dim != Dim(1))
        return false;
    return true;
  }
  return false;
}

/// The first op of `members` that uses the reduction `reduction`, directly
/// or through other members, in a way that could move a row's reduced value
/// to another row; null if there is none. A row kernel computes a reduction
/// once per row and hands its value to every use, so every path from the
/// reduction to the kernel's results may only hold elementwise ops,
/// unit-dimension reshapes, broadcasts along the row and reductions of the
/// same rows. (A transpose of row-shaped values would mix rows.)
static Operation *
findMisalignedUse(Operation *reduction, const RowSpace &space,
                  const llvm::SetVector<Operation *> &members) {
  SmallVector<Operation *> worklist = {reduction};
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      // Another kernel reads the value from memory, row by row as written.
      if (!members.contains(user) || !seen.insert(user).second)
        continue;
      bool aligned = keepsRowsAligned(user, space);
      if (isReduction(user)) {
        std::optional<RowSpace> other = getRowSpace(user);
        aligned = other && *other == space;
      }
      if (!aligned)
        return user;
      worklist.push_back(user);
    }
  }
  return nullptr;
}

namespace {
/// A kernel being formed: its ops and what it yields.
struct Group {
  /// The op that started the group: a consumer of every other member.
  Operation *root = nullptr;
  llvm::SetVector<Operation *> ops;
  /// Members whose result is also a graph result.
  SmallVector<Operation *> extraOutputs;
  /// The row space of its reductions, if any.
  std::optional<RowSpace> rows;
  bool hasReduction = false;
  /// Its matmul or attention, if any (the tensor-core or flash kernel).
  Operation *contraction = nullptr;
};

/// The ops that a kernel is built around and that take only an elementwise
/// epilogue: matmul and attention.
static bool isContraction(Operation *op) {
  return isa<MatmulOp, AttentionOp>(op);
}

class FusionPlanner {
public:
  FusionPlanner(func::FuncOp fn, bool explain) : fn(fn), explain(explain) {}

  void run();

private:
  void offer(Operation *producer);
  /// Why `producer` cannot join `group` (as its single consumer kernel), or
  /// "" if it can.
  std::string vetoJoin(Operation *producer, Group &group, bool returned);
  void join(Operation *producer, Group &group, bool returned);
  void materialize();
  /// Gives TF32 matmuls on wgmma their right operand K-major (see the
  /// definition).
  void transposeTf32RightOperands();
  void remark(Operation *op, const Twine &message) {
    if (explain)
      op->emitRemark(message);
  }

  func::FuncOp fn;
  bool explain;
  std::vector<std::unique_ptr<Group>> groups;
  /// The groups each op belongs to (several for duplicated index ops).
  DenseMap<Operation *, SmallVector<Group *, 1>> groupsOf;
  DenseSet<Operation *> returnedOps;
};
} // namespace

/// Whether `contraction` reads the value of `producer` in the layout of
/// `producer`'s operand, so that `producer` joins its kernel as no work: a
/// matmul's right operand given as a transpose of its last two dimensions
/// (the tensor-core kernel reads it K-major; other kernels index through
/// it), and an attention's query, key or value given as a head split
/// (`transpose(perm = [0, 2, 1, 3])` of [B, T, H, D], or of grouped heads
/// [B, T, G, J, D] by `perm = [0, 2, 3, 1, 4]`: getHeadSplitDims; the
/// flash kernel reads [B, H, T, D] tiles through a tensor map over the
/// operand's layout).
static bool isReadInPlace(Operation *producer, Operation *contraction) {
  auto transpose = dyn_cast<TransposeOp>(producer);
  if (!transpose)
    return false;
  Value value = transpose.getResult();
  if (auto matmul = dyn_cast<MatmulOp>(contraction))
    return matmul.getRhs() == value && matmul.getLhs() != value &&
           swapsLastTwoDims(transpose);
  auto attention = dyn_cast<AttentionOp>(contraction);
  return attention &&
         llvm::is_contained(ValueRange{attention.getQuery(), attention.getKey(),
                                       attention.getValue()},
                            value) &&
         attention.getMask() != value && getHeadSplitDims(transpose);
}

/// Whether `producer`, a member-to-be of `group`, is read in place by the
/// group's contraction: a transpose (isReadInPlace), or a link of a head
/// split each of whose uses in the group is the next link: a reshape that
/// only splits the last dim under the transpose ([B, T, H * D] ->
/// [B, T, H, D], the same bytes), the transpose, and a reshape over it
/// that regroups the batch dims (grouped-query [B, H, T, D] ->
/// [B, G, J, T, D], the same bytes), read by the attention.
static bool isReadInPlaceIn(Operation *producer,
                            const llvm::SetVector<Operation *> &members,
                            Operation *contraction) {
  if (isReadInPlace(producer, contraction))
    return true;
  auto attention = dyn_cast<AttentionOp>(contraction);
  if (!attention)
    return false;
  auto usedOnlyBy = [&](llvm::function_ref<bool(Operation *)> isNext) {
    bool used = false;
    for (Operation *user : producer->getUsers()) {
      if (!members.contains(user))
        continue;
      if (!isNext(user))
        return false;
      used = true;
    }
    return used;
  };
  if (auto transpose = dyn_cast<TransposeOp>(producer))
    return getHeadSplitDims(transpose) && usedOnlyBy([&](Operation *user) {
             auto regroup = dyn_cast<ReshapeOp>(user);
             return regroup && regroupsBatchDims(regroup) &&
                    isReadInPlaceIn(regroup, members, contraction);
           });
  auto reshape = dyn_cast<ReshapeOp>(producer);
  if (!reshape)
    return false;
  if (splitsLastDim(reshape))
    return usedOnlyBy([&](Operation *user) {
      auto split = dyn_cast<TransposeOp>(user);
      return split && isHeadSplitReshape(reshape, split) &&
             isReadInPlaceIn(user, members, contraction);
    });
  // A regroup of a head split, read as the query, key or value.
  Value value = reshape.getResult();
  auto split = reshape.getOperand().getDefiningOp<TransposeOp>();
  return regroupsBatchDims(reshape) && split && getHeadSplitDims(split) &&
         value != attention.getMask() &&
         usedOnlyBy([&](Operation *user) { return user == contraction; });
}

/// The head merge a kernel with root `root` would store an attention's
/// epilogue through: `root` is `transpose(perm = [0, 2, 1, 3])` of an
/// attention-shaped [B, H, T, D] value (or of a reshape regrouping its
/// batch dims, or `perm = [0, 3, 1, 2, 4]` of grouped heads:
/// getHeadMergeDims), or a reshape of it merging the heads and the last dim
/// ([B, T, H * D]), with its ops members. Returns the op that reads the
/// attention-shaped value (the transpose or the regrouping reshape), or
/// null.
static Operation *getHeadMerge(Operation *root,
                               const llvm::SetVector<Operation *> &members,
                               AttentionOp attention) {
  TransposeOp transpose;
  Value source = getHeadMergeSource(root->getResult(0), &transpose);
  if (!source || source.getType() != attention.getType() ||
      !members.contains(transpose))
    return nullptr;
  Operation *first = transpose;
  if (transpose.getOperand() != source)
    first = transpose.getOperand().getDefiningOp();
  return members.contains(first) ? first : nullptr;
}

static bool isCheapToDuplicate(Operation *op) {
  return isa<BroadcastOp, ReshapeOp, TransposeOp, SliceOp, DynamicSliceOp,
             IotaOp, CastOp>(op);
}

/// The most ops one kernel holds. LLVM's NVPTX backend takes time
/// superlinear in the length of a kernel's arithmetic chain (about 1 s for
/// 3,000 chained adds, 17 s for 16,000), so longer chains are cut into
/// kernels of this many ops, at the cost of one write and read per cut.
static constexpr size_t kMaxKernelOps = 1024;

std::string FusionPlanner::vetoJoin(Operation *producer, Group &group,
                                    bool returned) {
  Operation *root = group.root;
  if (group.ops.size() >= kMaxKernelOps)
    return llvm::formatv("the consumer kernel holds {0} ops, the most a "
                         "kernel takes (compile time grows faster than its "
                         "length)",
                         group.ops.size())
        .str();
  if (isContraction(producer)) {
    StringRef name = producer->getName().stripDialect();
    if (group.contraction)
      return llvm::formatv("the consumer kernel has a {0} already",
                           group.contraction->getName().stripDialect())
          .str();
    if (group.hasReduction)
      return llvm::formatv("the consumer kernel reduces; a {0}'s epilogue "
                           "is elementwise",
                           name)
          .str();
    // An attention's epilogue may end in a head merge, which the kernel
    // stores through.
    Operation *merge = nullptr;
    if (auto attention = dyn_cast<AttentionOp>(producer))
      merge = getHeadMerge(root, group.ops, attention);
    if (!merge && tensorType(producer->getResult(0)).getShape() !=
                      tensorType(root->getResult(0)).getShape())
      return llvm::formatv("the consumer kernel's result is not of the "
                           "{0}'s shape",
                           name)
          .str();
    // (The walk ends at the head merge the kernel stores through.)
    if (Operation *user = findNonElementwiseUse(
            producer->getResult(0),
            tensorType(producer->getResult(0)).getShape(),
            [&](Operation *op) { return group.ops.contains(op); }, merge))
      return llvm::formatv("its use by {0} is not elementwise (an epilogue "
                           "runs at the {1}'s output elements)",
                           describeOp(user), name)
          .str();
  } else if (group.contraction && isReduction(producer)) {
    return llvm::formatv("the consumer kernel has a {0}, whose epilogue is "
                         "elementwise",
                         group.contraction->getName().stripDialect())
        .str();
  } else if (group.contraction &&
             llvm::is_contained(producer->getUsers(), group.contraction)) {
    if (!isReadInPlaceIn(producer, group.ops, group.contraction))
      return llvm::formatv("it is an operand of the consumer kernel's {0}, "
                           "which the kernel reads from device memory (TMA)",
                           group.contraction->getName().stripDialect())
          .str();
  } else if (group.contraction &&
             llvm::any_of(producer->getUsers(), [&](Operation *user) {
               return group.ops.contains(user) &&
                      isReadInPlaceIn(user, group.ops, group.contraction);
             }) &&
             !isReadInPlaceIn(producer, group.ops, group.contraction)) {
    return llvm::formatv("the consumer kernel's {0} reads it through a "
                         "{1}, from device memory (TMA)",
                         group.contraction->getName().stripDialect(),
                         isa<AttentionOp>(group.contraction)
                             ? "head split"
                             : "transpose")
        .str();
  }
  if (isReduction(producer)) {
    std::optional<RowSpace> space = getRowSpace(producer);
    if (!space)
      return "it reduces axes that are not the trailing axes of its operand "
             "(not a row)";
    if (std::string why = space->whyNotOnChip(); !why.empty())
      return why;
    if (group.hasReduction && !group.rows)
      return "the consumer kernel's reduction is not over rows";
    if (group.rows && !(*group.rows == *space))
      return "the consumer kernel reduces rows of another shape";
    if (Operation *user = findMisalignedUse(producer, *space, group.ops))
      return llvm::formatv("its use by {0} does not keep the rows aligned",
                           describeOp(user))
          .str();
    // The kernel writes rows or reduced rows.
    RankedTensorType out = tensorType(root->getResult(0));
    if (!group.rows && !space->isRowType(out) && !space->isReducedType(out))
      return "the consumer kernel's result is neither a row nor a reduced "
             "row of it";
  }
  if (returned) {
    // Only row kernels write several results.
    if (group.hasReduction && !group.rows)
      return "it is also a graph result, and the consumer kernel's "
             "reduction writes one result only";
    RankedTensorType type = tensorType(producer->getResult(0));
    bool written = getDims(type) == getDims(tensorType(root->getResult(0)));
    if (group.rows)
      written = group.rows->isRowType(type) || group.rows->isReducedType(type);
    if (!written)
      return "it is also a graph result, of a shape the consumer kernel does "
             "not write";
  }
  return "";
}

void FusionPlanner::join(Operation *producer, Group &group, bool returned) {
  group.ops.insert(producer);
  if (isContraction(producer))
    group.contraction = producer;
  groupsOf[producer].push_back(&group);
  if (isReduction(producer) && !group.rows)
    group.rows = getRowSpace(producer);
  group.hasReduction |= isReduction(producer);
  if (returned)
    group.extraOutputs.push_back(producer);
}

void FusionPlanner::offer(Operation *producer) {
  bool returned = returnedOps.contains(producer);
  // Wherever it runs, a gather reads only the slices its indices select.
  if (isa<GatherOp>(producer))
    remark(producer, describeGatherReads(producer));
  llvm::SetVector<Group *> consumers;
  for (Operation *user : producer->getUsers())
    for (Group *group : groupsOf.lookup(user))
      consumers.insert(group);
  int64_t bytes = getTensorBytes(producer->getResult(0));
  auto keep = [&](const Twine &why) {
    auto group = std::make_unique<Group>();
    group->root = producer;
    group->ops.insert(producer);
    if (isContraction(producer))
      group->contraction = producer;
    group->hasReduction = isReduction(producer);
    // A row kernel (which reduces the rows and computes around them) only
    // takes rows it keeps on chip.
    if (group->hasReduction)
      if (std::optional<RowSpace> space = getRowSpace(producer);
          space && space->whyNotOnChip().empty())
        group->rows = space;
    groupsOf[producer].push_back(group.get());
    groups.push_back(std::move(group));
    if (!why.isTriviallyEmpty())
      remark(producer, describeOp(producer) + " kept as a kernel of its own: " +
                           why);
  };

  // A fusion already in the input is a consumer kernel that takes no more
  // ops, so the value must be in device memory for it. The value is then
  // computed once, by a kernel of its own, and every consumer kernel reads
  // it: fusing it into the other consumers would compute it twice (an
  // arithmetic value used by several kernels is not fused). It cannot be an
  // extra output of another consumer kernel instead, as a graph result can:
  // that kernel may come after the fusion in the input, or read what it
  // computes.
  llvm::SmallPtrSet<Operation *, 2> formedConsumers;
  for (Operation *user : producer->getUsers())
    if (isa<FusionOp>(user))
      formedConsumers.insert(user);
  if (!formedConsumers.empty()) {
    keep(llvm::formatv("it has {0} consumer kernels, {1} of them fusions "
                       "formed before this pass, which take no more ops",
                       consumers.size() + formedConsumers.size(),
                       formedConsumers.size()));
    return;
  }
  if (consumers.empty()) {
    keep("");
    return;
  }
  if (consumers.size() > 1 && !isCheapToDuplicate(producer)) {
    keep(llvm::formatv("it has {0} consumer kernels; fusing would compute it "
                       "{0} times",
                       consumers.size()));
    return;
  }
  if (consumers.size() > 1 && returned) {
    keep("it is a graph result used by several kernels");
    return;
  }
  for (Group *group : consumers) {
    std::string veto = vetoJoin(producer, *group, returned);
    if (!veto.empty()) {
      keep(veto);
      return;
    }
  }
  // A slicing op costs no traffic in the kernel: say what it reads.
  std::string indexing = describeIndexing(producer);
  if (!indexing.empty())
    indexing = "; in the kernel it " + indexing;
  for (Group *group : consumers) {
    // How the flash kernel reads a head split, or writes a head merge.
    std::string layout;
    if (group->contraction && isa<AttentionOp>(group->contraction) &&
        isReadInPlaceIn(producer, group->ops, group->contraction))
      layout = "; the flash kernel reads its operand in place (head split: "
               "its tiles are rows of the [B, T, H, D] layout)";
    if (auto attention = dyn_cast<AttentionOp>(producer);
        attention && getHeadMerge(group->root, group->ops, attention))
      layout = "; the kernel stores its epilogue through the head merge "
               "(out[b, t, h, d])";
    join(producer, *group, returned);
    remark(producer,
           llvm::formatv("{0} fused into the kernel of {1}: saves {2} of "
                         "device memory traffic (a write and a read of "
                         "{3}{6}){4}{5}",
                         describeOp(producer), describeOp(group->root),
                         formatBytes(2 * bytes), formatBytes(bytes),
                         indexing, layout, describeSymbolUnits(producer)));
  }
  if (consumers.size() > 1)
    remark(producer, llvm::formatv("duplicated into {0} kernels: it is index "
                                   "arithmetic or a cast",
                                   consumers.size()));
}

/// The bytes a kernel reads of its input `arg`: all of it, once, unless
/// only gathers read it as their table, which read their slices.
static int64_t readBytes(BlockArgument arg) {
  int64_t bytes = getTensorBytes(arg), gathered = 0;
  for (Operation *user : arg.getUsers()) {
    auto gather = dyn_cast<GatherOp>(user);
    if (!gather || gather.getIndices() == arg)
      return bytes;
    gathered += getGatherTableReadBytes(gather);
  }
  return std::min(bytes, gathered);
}

/// The device memory a kernel of `fusion` moves: its inputs read once (a
/// gather's table only where it gathers), its results written once.
static int64_t kernelTraffic(FusionOp fusion) {
  int64_t bytes = 0;
  for (BlockArgument arg : fusion.getBody().front().getArguments())
    bytes += arg.use_empty() ? getTensorBytes(arg) : readBytes(arg);
  for (Value v : fusion.getResults())
    bytes += getTensorBytes(v);
  return bytes;
}

void FusionPlanner::materialize() {
  Block &block = fn.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;
  OpBuilder b(fn.getContext());
  // Groups were created consumers first; build them in program order.
  for (auto &group : llvm::reverse(groups)) {
    SmallVector<Operation *> ops(group->ops.begin(), group->ops.end());
    llvm::sort(ops, [&](Operation *x, Operation *y) {
      return position[x] < position[y];
    });
    SmallVector<Value> results = {group->root->getResult(0)};
    for (Operation *extra : group->extraOutputs)
      results.push_back(extra->getResult(0));
    FusionKind kind = FusionKind::Loop;
    if (group->contraction)
      kind = isa<MatmulOp>(group->contraction) ? FusionKind::Matmul
                                               : FusionKind::Attention;
    else if (group->hasReduction)
      kind = FusionKind::Reduction;
    b.setInsertionPoint(group->root);
    FusionOp fusion = buildFusion(b, group->root->getLoc(), kind, ops, results);
    for (auto [value, replacement] : llvm::zip(results, fusion.getResults()))
      value.replaceUsesWithIf(replacement, [&](OpOperand &use) {
        return use.getOwner()->getBlock() == &block &&
               !llvm::is_contained(ops, use.getOwner());
      });
  }
}

/// Sibling fusion: two loop kernels that read a common input and write
/// results of one shape become one kernel with both results, which reads
/// the common input once. The later kernel moves up to the earlier one, so
/// its inputs must all be available there.
static void fuseSiblings(func::FuncOp fn, bool explain) {
  Block &block = fn.getBody().front();
  bool merged = true;
  while (merged) {
    merged = false;
    SmallVector<FusionOp> loops;
    for (auto fusion : block.getOps<FusionOp>())
      if (fusion.getKind() == FusionKind::Loop)
        loops.push_back(fusion);
    for (size_t i = 0; i < loops.size() && !merged; ++i) {
      for (size_t j = i + 1; j < loops.size() && !merged; ++j) {
        FusionOp first = loops[i], second = loops[j];
        if (first.getResult(0).getType() != second.getResult(0).getType())
          continue;
        int64_t shared = 0;
        bool available = true;
        for (auto [input, arg] : llvm::zip(
                 second.getInputs(), second.getBody().front().getArguments())) {
          // What the second kernel no longer reads. A table only gathers
          // read is not counted: the kernels may read different slices.
          if (llvm::is_contained(first.getInputs(), input) &&
              (arg.use_empty() || readBytes(arg) == getTensorBytes(arg)))
            shared += getTensorBytes(input);
          Operation *def = input.getDefiningOp();
          if (def && !def->isBeforeInBlock(first))
            available = false;
        }
        if (shared == 0 || !available)
          continue;
        // One kernel computing both bodies.
        OpBuilder b(first);
        FusionOp fusion = mergeFusions(b, first.getLoc(), FusionKind::Loop,
                                       first, second, /*yieldFirst=*/true);
        if (explain)
          second.emitRemark()
              << "sibling kernels of " << describeOp(first.getRoot())
              << " and " << describeOp(second.getRoot())
              << " merged: saves " << formatBytes(shared)
              << " of device memory traffic (their common inputs read once)";
        unsigned n = first.getNumResults();
        first.replaceAllUsesWith(fusion.getResults().take_front(n));
        second.replaceAllUsesWith(fusion.getResults().drop_front(n));
        first.erase();
        second.erase();
        merged = true;
      }
    }
  }
}

/// Products with at most this many rows keep B as stored on the mma.sync
/// kernel rather than pay a transposing copy of B (a decode step's).
static constexpr int64_t kMinRowsForTransposedTf32Operand = 128;

/// wgmma takes TF32 operands K-major only: where the module allows TF32 and
/// the target has wgmma, an f32 matmul whose right operand B [..., K, N] is
/// read as stored (not transpose(w) of a [..., N, K] w, which the kernel
/// reads K-major in place) gets B transposed by a kernel of its own,
/// transpose(transpose(B)), whose outer transpose the wgmma kernel reads in
/// place. The copy costs a read and a write of B; products of few rows, and
/// rows TMA cannot describe (K not a multiple of 4), stay on the mma.sync
/// kernel, which reads B as stored.
void FusionPlanner::transposeTf32RightOperands() {
  auto module = fn->getParentOfType<ModuleOp>();
  auto target = module ? module->getAttrOfType<TargetAttr>(kTargetAttrName)
                       : TargetAttr();
  if (!target || !target.getWgmma() || !allowsTf32(fn))
    return;
  fn.walk([&](MatmulOp matmul) {
    auto lhsType = tensorType(matmul.getLhs());
    Value rhs = matmul.getRhs();
    auto rhsType = tensorType(rhs);
    if (!lhsType.getElementType().isF32())
      return;
    if (auto transpose = rhs.getDefiningOp<TransposeOp>();
        transpose && swapsLastTwoDims(transpose))
      return;
    // Sizes given at run time that the tiled kernels do not read: the
    // element-per-thread kernel reads any layout.
    if (!whyNotTiledAtRuntimeSizes(matmul).empty())
      return;
    int64_t rank = rhsType.getRank();
    int64_t k = rhsType.getDimSize(rank - 2);
    // Rows given at run time count as many.
    RankedTensorType resultType = tensorType(matmul.getResult());
    int64_t rows = isSymbolic(resultType)
                       ? kMinRowsForTransposedTf32Operand
                       : resultType.getNumElements() /
                             rhsType.getDimSize(rank - 1);
    if (k % 4 || rows < kMinRowsForTransposedTf32Operand)
      return;
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 2], perm[rank - 1]);
    SmallVector<int64_t> shape(rhsType.getShape());
    std::swap(shape[rank - 2], shape[rank - 1]);
    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    Value kMajor = TransposeOp::create(
        b, loc, RankedTensorType::get(shape, rhsType.getElementType()), rhs,
        perm);
    Value readBack = TransposeOp::create(b, loc, rhsType, kMajor, perm);
    matmul.getRhsMutable().assign(readBack);
    remark(kMajor.getDefiningOp(),
           "the right operand of an f32 matmul on TF32 wgmma, transposed by "
           "a kernel of its own: wgmma takes TF32 operands K-major only");
  });
}

void FusionPlanner::run() {
  Block &block = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  for (Value v : ret.getOperands())
    if (Operation *op = v.getDefiningOp())
      returnedOps.insert(op);
  formContractionOperandFills(fn);
  transposeTf32RightOperands();
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    if (!isSplatConstant(&op) && !isa<FusionOp>(op))
      ops.push_back(&op);
  int64_t unfusedTraffic = 0;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!operand.getDefiningOp() || !isSplatConstant(operand.getDefiningOp()))
        unfusedTraffic += isa<GatherOp>(op) && operand == op->getOperand(0)
                              ? getGatherTableReadBytes(op)
                              : getTensorBytes(operand);
    unfusedTraffic += getTensorBytes(op->getResult(0));
  }
  for (Operation *op : llvm::reverse(ops))
    offer(op);
  materialize();
  fuseSiblings(fn, explain);
  formCopyFusions(fn);
  // Everything not in a fusion is now unused.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (!isa<FusionOp, func::ReturnOp>(op) && op.use_empty())
      op.erase();

  int64_t traffic = 0, kernels = 0;
  for (auto fusion : block.getOps<FusionOp>()) {
    traffic += kernelTraffic(fusion);
    ++kernels;
  }
  remark(fn, llvm::formatv("graph '{0}': {1} ops in {2} kernels; predicted "
                           "device memory traffic {3} ({4} with a kernel "
                           "per op){5}",
                           fn.getSymName(), ops.size(), kernels,
                           formatBytes(traffic), formatBytes(unfusedTraffic),
                           describeSymbolUnits(fn)));
}

namespace {
struct FusePass : fk::impl::FkFuseBase<FusePass> {
  using FkFuseBase::FkFuseBase;
  void runOnOperation() override {
    // A declaration has no graph to fuse.
    if (getOperation().isExternal())
      return;
    FusionPlanner(getOperation(), explain).run();
  }
};
} // namespace
