//===- FkKernelLimits.cpp - what fkc's kernels can compute ----------------===//

#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkSymbolicShape.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fk;

std::string mlir::fk::whyNoWarpgroupKernels(TargetAttr target) {
  if (!target.getWgmma())
    return "target " + target.getChip().str() + " has no wgmma";
  if (!target.getTma())
    return "target " + target.getChip().str() + " has no TMA";
  return "";
}

Operation *
mlir::fk::findNonElementwiseUse(Value value, ArrayRef<int64_t> shape,
                                function_ref<bool(Operation *)> isMember,
                                Operation *end) {
  SmallVector<Operation *> worklist(value.getUsers());
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op == end || !isMember(op) || !seen.insert(op).second)
      continue;
    if (!op->hasTrait<OpTrait::Elementwise>() ||
        cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
            shape)
      return op;
    worklist.append(op->getUsers().begin(), op->getUsers().end());
  }
  return nullptr;
}

bool mlir::fk::swapsLastTwoDims(TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

/// The k of a permutation that keeps every dim but the run [p, p + k] (and
/// the last), which it rotates: `rowsLast` moves dim p to p + k = rank - 2
/// and dims p + 1 .. p + k down by one (a head split), else the inverse
/// (a head merge). 0 when `perm` is no such rotation.
static int64_t getRotatedHeadDims(ArrayRef<int64_t> perm, bool rowsLast) {
  int64_t rank = perm.size();
  if (rank < 3 || perm[rank - 1] != rank - 1)
    return 0;
  int64_t p = 0;
  while (p < rank - 2 && perm[p] == p)
    ++p;
  int64_t k = rank - 2 - p;
  if (k < 1)
    return 0;
  for (int64_t i = p; i < rank - 1; ++i) {
    int64_t from = rowsLast ? (i == rank - 2 ? p : i + 1)
                            : (i == p ? rank - 2 : i - 1);
    if (perm[i] != from)
      return 0;
  }
  return k;
}

int64_t mlir::fk::getHeadSplitDims(TransposeOp transpose) {
  return getRotatedHeadDims(transpose.getPerm(), /*rowsLast=*/true);
}

int64_t mlir::fk::getHeadMergeDims(TransposeOp transpose) {
  return getRotatedHeadDims(transpose.getPerm(), /*rowsLast=*/false);
}

/// Whether `to` is `from` with its last dim split in `parts` >= 2 dims.
static bool isLastDimSplit(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                           int64_t parts) {
  if (parts < 2 || from.empty() ||
      to.size() != from.size() - 1 + static_cast<size_t>(parts) ||
      from.drop_back() != to.drop_back(parts))
    return false;
  int64_t product = 1;
  for (int64_t dim : to.take_back(parts))
    product *= dim;
  return product == from.back();
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

bool mlir::fk::splitsLastDim(ReshapeOp reshape) {
  ArrayRef<int64_t> from = shapeOf(reshape.getOperand()),
                    to = shapeOf(reshape.getResult());
  return to.size() > from.size() &&
         isLastDimSplit(from, to, to.size() - from.size() + 1);
}

bool mlir::fk::isHeadSplitReshape(ReshapeOp reshape, TransposeOp split) {
  int64_t heads = getHeadSplitDims(split);
  return heads && reshape.getResult() == split.getOperand() &&
         isLastDimSplit(shapeOf(reshape.getOperand()),
                        shapeOf(reshape.getResult()), heads + 1);
}

bool mlir::fk::regroupsBatchDims(ReshapeOp reshape) {
  ArrayRef<int64_t> from = shapeOf(reshape.getOperand()),
                    to = shapeOf(reshape.getResult());
  return from.size() >= 3 && to.size() >= 3 &&
         from.take_back(2) == to.take_back(2);
}

Value mlir::fk::getHeadSplitInput(Value operand, TransposeOp *split) {
  if (auto regroup = operand.getDefiningOp<ReshapeOp>();
      regroup && regroupsBatchDims(regroup))
    operand = regroup.getOperand();
  auto transpose = operand.getDefiningOp<TransposeOp>();
  if (!transpose || !getHeadSplitDims(transpose))
    return nullptr;
  if (split)
    *split = transpose;
  Value heads = transpose.getOperand();
  if (auto reshape = heads.getDefiningOp<ReshapeOp>();
      reshape && isHeadSplitReshape(reshape, transpose))
    return reshape.getOperand();
  return heads;
}

Value mlir::fk::getAttentionOperandInput(Value operand) {
  if (Value input = getHeadSplitInput(operand))
    return input;
  if (auto regroup = operand.getDefiningOp<ReshapeOp>();
      regroup && regroupsBatchDims(regroup))
    return regroup.getOperand();
  return operand;
}

Value mlir::fk::getHeadMergeSource(Value result, TransposeOp *merge) {
  auto reshape = result.getDefiningOp<ReshapeOp>();
  if (reshape)
    result = reshape.getOperand();
  auto transpose = result.getDefiningOp<TransposeOp>();
  int64_t heads = transpose ? getHeadMergeDims(transpose) : 0;
  // [..., T, H1, ..., Hk, D] -> [..., T, H1 * ... * Hk * D]: the inverse of
  // a split.
  if (!heads || (reshape && !isLastDimSplit(shapeOf(reshape.getResult()),
                                            shapeOf(reshape.getOperand()),
                                            heads + 1)))
    return nullptr;
  if (merge)
    *merge = transpose;
  Value source = transpose.getOperand();
  if (auto regroup = source.getDefiningOp<ReshapeOp>();
      regroup && regroupsBatchDims(regroup))
    return regroup.getOperand();
  return source;
}

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// What both attention kernels need: one element type, some queries and
/// keys, indices and grid y in range. (Constant operands are written to
/// device memory by kernels of their own: fk-form-fusions.)
static std::string whyNotAttentionKernel(AttentionOp attention) {
  RankedTensorType query = typeOf(attention.getQuery()),
                   key = typeOf(attention.getKey()),
                   value = typeOf(attention.getValue()),
                   result = typeOf(attention.getResult());
  Type element = query.getElementType();
  if (key.getElementType() != element || value.getElementType() != element ||
      result.getElementType() != element)
    return "query, key, value and result differ in element type";
  int64_t queries = query.getShape()[query.getRank() - 2];
  int64_t keys = key.getShape()[key.getRank() - 2];
  // (A length given at run time is checked per run against
  // kMaxAttentionLength; at 0 the flash kernel reads no key block.)
  if (queries == 0 || keys == 0)
    return "it has no queries or no keys";
  if (queries > kMaxAttentionLength || keys > kMaxAttentionLength)
    return "2^31 or more queries or keys";
  // A symbolic batch count is checked per run by the runtime (the grid's
  // y).
  if (!isSymbolic(result) &&
      ShapedType::getNumElements(result.getShape().drop_back(2)) > 65535)
    return "more than 65535 batches (the grid's y)";
  return "";
}

bool mlir::fk::flashReadsKeys(AttentionOp attention) {
  auto rows = [](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    return getDim(type, type.getRank() - 2);
  };
  Dim keys = rows(attention.getKey());
  return keys.isStatic() || keys == rows(attention.getQuery()) ||
         getSmallestSize(keys, getDimLowerBounds(attention)) >= 1;
}

std::string mlir::fk::whyNotWarpgroupFlash(AttentionOp attention,
                                           TargetAttr target) {
  std::string why = whyNoWarpgroupKernels(target);
  if (!why.empty())
    return why;
  if (typeOf(attention.getQuery()).getElementType().isF32())
    return "the operands are f32 (the wgmma form takes 16-bit ones)";
  int64_t headDim = typeOf(attention.getQuery()).getShape().back();
  if (!getWarpgroupFlashHeadDim(headDim))
    return "the head dim is " + std::to_string(headDim) +
           " (the wgmma form takes 64 and 128, and 96 and 112 padded to 128)";
  return "";
}

int64_t mlir::fk::getWarpgroupFlashHeadDim(int64_t headDim) {
  // Padding costs the padded columns' products: 96 computes at 75% of
  // 128's rate, which measured faster than the mma.sync form (H100, B4 H16
  // N4096: docs/attention.md); smaller head dims would waste more.
  switch (headDim) {
  case 64:
  case 128:
    return headDim;
  case 96:
  case 112:
    return 128;
  default:
    return 0;
  }
}

std::string mlir::fk::whyNotFlashAttention(AttentionOp attention,
                                           TargetAttr target) {
  // wgmma where the target has it, else mma.sync m16n8k16 and cp.async
  // (sm_80 and later).
  if (!whyNoWarpgroupKernels(target).empty() &&
      target.getComputeCapability() < 80)
    return "target " + target.getChip().str() +
           " has neither wgmma nor mma.sync m16n8k16 (sm_80)";
  RankedTensorType query = typeOf(attention.getQuery()),
                   key = typeOf(attention.getKey()),
                   value = typeOf(attention.getValue());
  // f32 on the mma.sync form's TF32 (three products each unless the module
  // allows TF32: fk/IR/FkNumerics.h).
  Type element = query.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return "the operands are not f16, bf16 or f32";
  std::string why = whyNotAttentionKernel(attention);
  if (!why.empty())
    return why;
  // Head dims 64 and 128 on wgmma; on mma.sync any multiple of 16 (its K
  // step and two 8-column output tiles) whose smallest tile fits.
  int64_t headDim = query.getShape().back();
  if (headDim % 16 != 0 || headDim > 256)
    return "the head dim is " + std::to_string(headDim) +
           ", not a multiple of 16 up to 256 (mma.sync's K step)";
  if (key.getShape().back() != headDim || value.getShape().back() != headDim)
    return "the value head dim differs from the query's";
  Dim keyRows = getDim(key, key.getRank() - 2);
  if (!flashReadsKeys(attention))
    return "its " + keyRows.str() +
           " keys are given at run time, not as many as its query rows, and "
           "may be 0 (a lower bound keeps them from it: where 1 <= " +
           keyRows.str() + ")";
  if (!whyNotWarpgroupFlash(attention, target).empty() &&
      getFlashSharedBytes(kFlashRowsPerWarpgroup, 64, headDim,
                          element.getIntOrFloatBitWidth() / 8) >
          target.getSharedMemoryPerBlock())
    return "the head dim is " + std::to_string(headDim) +
           ": the smallest tile (64 query rows, two blocks of 64 keys) does "
           "not fit the " +
           std::to_string(target.getSharedMemoryPerBlock()) +
           " bytes of shared memory a block has on " + target.getChip().str();
  return "";
}

std::string mlir::fk::whyNotDecodeAttention(AttentionOp attention) {
  RankedTensorType query = typeOf(attention.getQuery()),
                   value = typeOf(attention.getValue());
  Type element = query.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return "the operands are not f16, bf16 or f32";
  std::string why = whyNotAttentionKernel(attention);
  if (!why.empty())
    return why;
  // Its keys may be given at run time, and its query rows where the fusion
  // is a row variant's copy for runs of few rows (fk.row_limit: the kernel
  // serves runs of at most that many).
  int64_t queries = query.getShape()[query.getRank() - 2];
  if (query.isDynamicDim(query.getRank() - 2)) {
    auto fusion = attention->getParentOfType<FusionOp>();
    auto limit = fusion ? fusion->getAttrOfType<IntegerAttr>(kRowLimitAttrName)
                        : IntegerAttr();
    if (!limit)
      return "its query rows are sized at run time";
    queries = limit.getInt();
  }
  if (queries > kDecodeMaxQueries)
    return std::to_string(queries) + " query rows, more than the " +
           std::to_string(kDecodeMaxQueries) + " of the decode kernel";
  if (query.getShape().back() > kDecodeMaxHeadDim ||
      value.getShape().back() > kDecodeMaxHeadDim)
    return "a head dim over " + std::to_string(kDecodeMaxHeadDim);
  return "";
}

bool mlir::fk::usesDecodeAttention(AttentionOp attention) {
  return whyNotDecodeAttention(attention).empty();
}

std::string mlir::fk::whyNoAttentionKernel(AttentionOp attention,
                                           TargetAttr target) {
  // Sizes given at run time that the kernels do not read: its naive
  // kernels read every size.
  if (std::string why = whyNotRuntimeSizedAttention(attention); !why.empty())
    return why;
  std::string flash = whyNotFlashAttention(attention, target);
  if (flash.empty() || usesDecodeAttention(attention))
    return "";
  return flash + "; and not the decode kernel: " +
         whyNotDecodeAttention(attention);
}

std::optional<int64_t> mlir::fk::getCausalOffset(AttentionOp attention) {
  auto rows = [](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    return getDim(type, type.getRank() - 2);
  };
  Dim nq = rows(attention.getQuery()), nk = rows(attention.getKey());
  if (nq == nk)
    return 0;
  if (nq.isStatic() && nk.isStatic())
    return nk.getCoefficient() - nq.getCoefficient();
  return std::nullopt;
}

std::string mlir::fk::whyNotDecomposedAtRuntimeSizes(AttentionOp attention) {
  if (!attention.getCausal() || getCausalOffset(attention))
    return "";
  return "its naive kernels' causal mask needs the difference of its "
         "lengths when compiled";
}

std::string mlir::fk::whyNotTiledAtRuntimeSizes(MatmulOp matmul) {
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  if (!isSymbolic(lhs) && !isSymbolic(rhs))
    return "";
  const char *supported =
      ", and the tiled kernels read only a left operand's rows at run time "
      "([..., M, K] with K static, times [K, N] of static sizes)";
  if (lhs.isDynamicDim(lhs.getRank() - 1))
    return "it contracts a dimension of size " +
           getDim(lhs, lhs.getRank() - 1).str() + " given at run time" +
           supported;
  if (isSymbolic(rhs) || rhs.getRank() != 2)
    return "its right operand has shape " + formatShape(getDims(rhs)) +
           supported;
  return "";
}

/// The attention kernels read their batch at run time: a grid of one
/// block row per batch, the operands' batch offsets from the run's sizes.
/// The flash kernel reads its query rows and keys at run time too (a
/// causal prefill of S tokens), the decode kernel its keys (a decode step
/// over the run's cache), and both a mask input's strides (a padding mask
/// [B, 1, 1, S]). Head dims are fixed when compiled. No size needs a
/// bound: the runtime fails a run of more than 65535 batches (the grid's
/// y) or of lengths past kMaxAttentionLength (the launch's limits).
std::string mlir::fk::whyNotRuntimeSizedAttention(AttentionOp attention) {
  if (llvm::none_of(attention->getOperandTypes(), isSymbolic))
    return "";
  const char *supported =
      ", and attention kernels read at run time only their batch "
      "dimensions, the flash kernel its query rows and keys, and the decode "
      "kernel its keys (head dims of static sizes)";
  for (Value operand : {attention.getQuery(), attention.getKey(),
                        attention.getValue()}) {
    auto type = cast<RankedTensorType>(operand.getType());
    const char *name = operand == attention.getQuery() ? "query"
                       : operand == attention.getKey() ? "key"
                                                       : "value";
    if (type.isDynamicDim(type.getRank() - 1))
      return "this attention's " + std::string(name) + " has shape " +
             formatShape(getDims(type)) + supported;
    // A head split read in place keeps its head count in the kernels'
    // address arithmetic.
    TransposeOp split;
    if (getHeadSplitInput(operand, &split)) {
      auto heads = cast<RankedTensorType>(split.getType());
      for (int64_t d = heads.getRank() - 2 - getHeadSplitDims(split);
           d < heads.getRank() - 2; ++d)
        if (heads.isDynamicDim(d))
          return "this attention's " + std::string(name) +
                 " is a head split of " + getDim(heads, d).str() +
                 " heads, and the kernels read a head split's head count "
                 "when compiled";
    }
  }
  // Keys sized at run time are those the flash kernel reads
  // (flashReadsKeys), or those of a decode kernel's few static query rows;
  // a run with queries but no keys gives zeros, as the unfused graph's
  // empty product does.
  auto rows = [](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    return getDim(type, type.getRank() - 2);
  };
  Dim keys = rows(attention.getKey());
  if (!flashReadsKeys(attention) && !usesDecodeAttention(attention))
    return "this attention has " + rows(attention.getQuery()).str() +
           " query rows and " + keys.str() + " keys" + supported +
           ", keys given at run time as many as the query rows, over at "
           "most " +
           std::to_string(kDecodeMaxQueries) +
           " query rows of static size, or at least one in every run (where "
           "1 <= " + keys.str() + ")";
  // A batch count given at run time is the kernels' grid y, which the
  // runtime checks per run against CUDA's 65535.
  return "";
}

/// The symbols of `op`'s operand and result types, in order of first
/// appearance.
static SmallVector<std::string> getOpSymbols(Operation *op) {
  SmallVector<std::string> symbols;
  for (Type type : op->getOperandTypes())
    collectSymbols(type, symbols);
  for (Type type : op->getResultTypes())
    collectSymbols(type, symbols);
  return symbols;
}

InFlightDiagnostic mlir::fk::emitNeedsSizesError(Operation *op,
                                                  StringRef why) {
  SmallVector<std::string> symbols = getOpSymbols(op);
  return op->emitError() << "the sizes of " << llvm::join(symbols, ", ")
                         << " are left to run time, but " << why
                         << "; give them sizes (--bind "
                         << formatBindHint(symbols) << ")";
}

/// "S, which may be 0" where dimension `axis` of `type` is symbolic and
/// the lower bounds of the graph holding `op` let it be 0; "" otherwise.
static std::string whyMayBeEmpty(Operation *op, RankedTensorType type,
                                 int64_t axis) {
  if (!type.isDynamicDim(axis))
    return "";
  Dim dim = getDim(type, axis);
  if (getSmallestSize(dim, getDimLowerBounds(op)) != 0)
    return "";
  return dim.str() + ", which may be 0";
}

/// " (give its symbols lower bounds: where 1 <= B, 1 <= S)": the symbols
/// of dimension `axis` of `type` that may be 0.
static std::string formatLowerBoundHint(RankedTensorType type, int64_t axis,
                                        Operation *op) {
  DictionaryAttr lowerBounds = getDimLowerBounds(op);
  SmallVector<std::string> bounds;
  Dim dim = getDim(type, axis);
  for (const std::string &symbol : dim.getSymbols())
    if (getSmallestSize(Dim::symbol(symbol), lowerBounds) == 0 &&
        !llvm::is_contained(bounds, "1 <= " + symbol))
      bounds.push_back("1 <= " + symbol);
  return " (give its symbols lower bounds: where " + llvm::join(bounds, ", ") +
         ")";
}

std::string mlir::fk::whyNotRuntimeSized(Operation *op) {
  if (getOpSymbols(op).empty())
    return "";
  // Matmuls of any sizes given at run time: the tiled kernels read their
  // rows, the element-per-thread kernel every size
  // (whyNotTiledAtRuntimeSizes).
  if (isa<MatmulOp>(op))
    return "";
  // An attention whose sizes its kernels do not read is decomposed into
  // naive kernels that read every size, but for a causal mask over lengths
  // whose difference is not known when compiled.
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    std::string why = whyNotRuntimeSizedAttention(attention);
    std::string naive = whyNotDecomposedAtRuntimeSizes(attention);
    return why.empty() || naive.empty() ? "" : why + "; and " + naive;
  }
  // Reductions read a reduced axis sized at run time; an argmax or argmin
  // has no first index of an empty one, and a gather clamps its indices
  // into the run's axis, which must hold an element.
  if (isa<ArgMaxOp, ArgMinOp>(op)) {
    auto type = cast<RankedTensorType>(op->getOperand(0).getType());
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    if (axis < 0)
      axis += type.getRank();
    if (std::string why = whyMayBeEmpty(op, type, axis); !why.empty())
      return "this op finds the first index along an axis of size " + why +
             ", where there is none" + formatLowerBoundHint(type, axis, op);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    auto table = cast<RankedTensorType>(gather.getTable().getType());
    if (std::string why = whyMayBeEmpty(op, table, gather.getAxis());
        !why.empty())
      return "this gather reads along an axis of size " + why +
             ", where no index selects an element" +
             formatLowerBoundHint(table, gather.getAxis(), op);
  }
  return "";
}
