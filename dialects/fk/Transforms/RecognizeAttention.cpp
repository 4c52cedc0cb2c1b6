//===- RecognizeAttention.cpp - attention written as plain ops ------------===//
//
// Finds `softmax(scale * Q @ K^T + mask) @ V` written op by op and replaces
// it with one `fk.attention`, which later stages can compute without ever
// writing the N x N scores. The match starts at a matmul whose left operand
// is a softmax over its last (key) axis and walks up the scores:
//
//   P @ V       P: fk.softmax over the last axis, or exp(S [- max(S)]) /
//               sum(...) spelled out (reductions over the last axis, kept
//               as size-1 dims and broadcast back); casts around it
//   S           peeled layer by layer, in any order: float casts; a causal
//               mask select(j <= i [+ Nk - Nq], S, fill) of iotas with fill
//               -inf or at most -1e4 (or the hidden branch first, with
//               j > i); a boolean mask select(m, S, fill) or
//               select(m, fill, S) of any i1 tensor m computed from none of
//               Q, K, V, with such a fill (it becomes the additive mask
//               select(m, 0, -inf)); an additive mask S + M; a scale S * c, c * S or
//               S / c by a scalar constant. A scale found outside the
//               mask scales it too ((S + M) * c = c * S + c * M: the
//               attention gets the mask M * c), and outside the select its
//               fill (which must still mask once scaled)
//   Q @ Kt      Kt = transpose(K) of the last two dims, or K passed already
//               transposed; a scalar scale may multiply Q or K instead;
//               K and V may be broadcast over leading (head) dims
//
// Once the softmax is found, every failed condition is a near miss that
// `explain` reports with its reason; a plain matmul says nothing. What
// fk.attention's verifier would reject is checked before anything is built,
// so that a near miss leaves the graph as it was.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"
#include "fk/IR/FkTypeInference.h"
#include "fk/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <thread>

namespace mlir::fk {
#define GEN_PASS_DEF_FKRECOGNIZEATTENTION
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// Fills at or below this are as good as -inf for a causal mask: exp of
/// them minus any finite score an f16 can hold is 0 in f32.
static constexpr double kMaskingFill = -1e4;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static Value skipFloatCasts(Value v) {
  while (auto cast = v.getDefiningOp<CastOp>()) {
    if (!isa<FloatType>(tensorType(cast.getOperand()).getElementType()))
      break;
    v = cast.getOperand();
  }
  return v;
}

/// The value of a splat constant, if `v` is one.
static std::optional<double> getSplatValue(Value v) {
  // A broadcast of a splat is one: a constant of symbolic shape stays a
  // broadcast of its scalar.
  if (auto broadcast = v.getDefiningOp<BroadcastOp>())
    v = broadcast.getOperand();
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return attributeToDouble(dense.getSplatValue<Attribute>());
}

/// `v` without a broadcast that only adds or expands leading dims (the last
/// two kept): attention broadcasts its operands' leading dims itself.
static Value skipLeadingBroadcast(Value v) {
  auto broadcast = v.getDefiningOp<BroadcastOp>();
  if (!broadcast)
    return v;
  ArrayRef<int64_t> from = tensorType(broadcast.getOperand()).getShape(),
                    to = tensorType(v).getShape();
  if (from.size() < 2 || from.take_back(2) != to.take_back(2))
    return v;
  return broadcast.getOperand();
}

/// The operand of `reduce(x, axes=[last])` when `v` is that reduction
/// brought back to the shape of x with one value per row: reshaped to keep
/// the reduced axis as size 1 (leading unit dims aside) and broadcast along
/// it. Null otherwise; `why` says why when a reduction was found but is not
/// over the key axis or does not come back along the rows it reduced (a
/// broadcast aligns trailing dims, so [..., Nq] broadcast to [..., Nq, Nk]
/// without the reshape spreads a row's value along a column).
template <typename ReduceOp>
static Value matchRowReduction(Value v, StringRef what, std::string &why) {
  Value kept = v;
  if (auto broadcast = kept.getDefiningOp<BroadcastOp>())
    kept = broadcast.getOperand();
  Value reduced = kept;
  if (auto reshape = reduced.getDefiningOp<ReshapeOp>())
    reduced = reshape.getOperand();
  auto reduce = reduced.getDefiningOp<ReduceOp>();
  if (!reduce)
    return nullptr;
  ArrayRef<int64_t> rowShape = tensorType(reduce.getOperand()).getShape();
  int64_t last = static_cast<int64_t>(rowShape.size()) - 1;
  if (reduce.getAxes() != ArrayRef<int64_t>{last}) {
    why = llvm::formatv("the softmax reduces axes other than the key axis "
                        "({0})",
                        last)
              .str();
    return nullptr;
  }
  // Padded with leading 1s to the rank of the rows, as broadcasting reads
  // it, the kept value must be [lead..., 1]: the row's own value.
  ArrayRef<int64_t> keptShape = tensorType(kept).getShape();
  SmallVector<int64_t> rowValue(rowShape.drop_back());
  rowValue.push_back(1);
  SmallVector<int64_t> aligned;
  if (keptShape.size() <= rowShape.size()) {
    aligned.assign(rowShape.size() - keptShape.size(), 1);
    llvm::append_range(aligned, keptShape);
  }
  if (tensorType(v).getShape() != rowShape || aligned != rowValue) {
    why = llvm::formatv("the softmax's {0} over the key axis is not brought "
                        "back along the rows it reduces (kept as size 1 and "
                        "broadcast along the key axis)",
                        what)
              .str();
    return nullptr;
  }
  return reduce.getOperand();
}

namespace {
/// What a match found.
struct Attention {
  Value query, key, value, mask;
  /// K^T when the graph passes it already transposed ([..., D, Nk]).
  Value keyTransposed;
  double scale = 1.0;
  /// The scales applied after the mask was added, which scale it too:
  /// (s + m) * c is c * s + c * m.
  double maskScale = 1.0;
  /// Where the mask is added.
  std::optional<Location> maskLoc;
  bool causal = false;
  /// The causal select's fill is finite (as good as -inf alone, not with
  /// another mask: see matchScores).
  bool causalFiniteFill = false;
  /// A boolean mask select(m, S, fill) (scores kept where m holds) or
  /// select(m, fill, S) (scores hidden where m holds), m before any
  /// broadcast to the scores' shape.
  Value booleanMask;
  bool keptWhereTrue = true;
  /// The fill is finite: a row the mask hides entirely then averages the
  /// values (a softmax of equal fills), where -inf gives NaN.
  bool finiteFill = false;
  std::optional<Location> booleanMaskLoc;
};

class AttentionMatcher {
public:
  /// The scores whose softmax `probabilities` is, or null: `why` says why
  /// when it looked like a softmax but is not one over the key axis.
  Value matchSoftmax(Value probabilities);
  /// Fills `attention` from the scores; on failure `why` says why.
  LogicalResult matchScores(Value scores, Attention &attention);

  std::string why;

private:
  bool matchCausal(SelectOp select, double scaleAfter, Value &rest);
  bool matchBooleanMask(SelectOp select, Attention &attention, Value &rest);
  bool isMaskingFill(Value fill, double scaleAfter, StringRef what);
  LogicalResult matchQueryKey(MatmulOp matmul, Attention &attention);
};
} // namespace

Value AttentionMatcher::matchSoftmax(Value probabilities) {
  Value p = skipFloatCasts(probabilities);
  int64_t last = tensorType(p).getRank() - 1;
  if (auto softmax = p.getDefiningOp<SoftmaxOp>()) {
    if (softmax.getAxis() != last) {
      why = llvm::formatv("the softmax is over axis {0}, not the key axis "
                          "({1})",
                          softmax.getAxis(), last)
                .str();
      return nullptr;
    }
    return softmax.getOperand();
  }
  // exp(x) / sum(exp(x)), x = s - max(s) or s.
  auto div = p.getDefiningOp<DivOp>();
  if (!div)
    return nullptr;
  auto exp = div.getLhs().getDefiningOp<ExpOp>();
  if (!exp)
    return nullptr;
  Value summed = matchRowReduction<ReduceSumOp>(div.getRhs(), "sum", why);
  if (!summed)
    return nullptr;
  if (summed != exp.getResult()) {
    why = "the softmax divides by the sum of other values";
    return nullptr;
  }
  Value x = exp.getOperand();
  if (auto sub = x.getDefiningOp<SubOp>()) {
    Value maxed = matchRowReduction<ReduceMaxOp>(sub.getRhs(), "maximum", why);
    if (!why.empty())
      return nullptr;
    if (maxed && maxed == sub.getLhs())
      return sub.getLhs();
  }
  return x;
}

/// select(j <= i + (Nk - Nq), s, fill) with `rest` = s, or the hidden
/// branch first: select(j > i + ..., fill, s). `scaleAfter` is what the
/// scores are multiplied by after the select, which multiplies the fill too.
bool AttentionMatcher::matchCausal(SelectOp select, double scaleAfter,
                                   Value &rest) {
  Value condition = select.getCondition();
  if (auto broadcast = condition.getDefiningOp<BroadcastOp>())
    condition = broadcast.getOperand();
  auto compare = condition.getDefiningOp<CompareOp>();
  if (!compare)
    return false;
  // The diagonal's offset Nk - Nq: a size, 0 where both lengths are one
  // symbolic dimension, and none where it would be a difference of
  // symbols.
  SmallVector<Dim> scoreDims = getDims(tensorType(select.getResult()));
  const Dim &nq = scoreDims[scoreDims.size() - 2], &nk = scoreDims.back();
  std::optional<int64_t> diagonal;
  if (nq.isStatic() && nk.isStatic())
    diagonal = nk.getCoefficient() - nq.getCoefficient();
  else if (nq == nk)
    diagonal = 0;
  // Which operand is the row (query) index plus an offset, which the column.
  auto iotaDim = [](Value v) -> std::optional<int64_t> {
    if (auto iota = v.getDefiningOp<IotaOp>())
      return tensorType(v).getRank() - iota.getDim();
    return std::nullopt;
  };
  auto rowWithOffset = [&](Value v) {
    int64_t offset = 0;
    if (auto add = v.getDefiningOp<AddOp>()) {
      std::optional<double> c = getSplatValue(add.getRhs());
      if (!c)
        return false;
      offset = static_cast<int64_t>(*c);
      v = add.getLhs();
    }
    return iotaDim(v) == 2 && diagonal && offset == *diagonal;
  };
  auto isColumn = [&](Value v) { return iotaDim(v) == 1; };
  Value lhs = compare.getLhs(), rhs = compare.getRhs();
  ComparisonDirection direction = compare.getDirection();
  // Normalize to "column <dir> row".
  if (rowWithOffset(lhs) && isColumn(rhs)) {
    std::swap(lhs, rhs);
    switch (direction) {
    case ComparisonDirection::GE: direction = ComparisonDirection::LE; break;
    case ComparisonDirection::LE: direction = ComparisonDirection::GE; break;
    case ComparisonDirection::GT: direction = ComparisonDirection::LT; break;
    case ComparisonDirection::LT: direction = ComparisonDirection::GT; break;
    default: break;
    }
  }
  if (!isColumn(lhs) || !rowWithOffset(rhs))
    return false;
  Value kept, fill;
  if (direction == ComparisonDirection::LE) {
    kept = select.getOnTrue();
    fill = select.getOnFalse();
  } else if (direction == ComparisonDirection::GT) {
    kept = select.getOnFalse();
    fill = select.getOnTrue();
  } else {
    return false;
  }
  if (!isMaskingFill(fill, scaleAfter, "causal"))
    return false;
  std::optional<double> fillValue = getSplatValue(fill);
  // A finite fill is as good as -inf only where every row keeps a key. With
  // more queries than keys the first Nq - Nk rows keep none: the graph
  // averages their values, where fk.attention gives them NaN.
  // (A match has a diagonal: -diagonal rows see no key where it is
  // negative.)
  if (!std::isinf(*fillValue) && *diagonal < 0) {
    why = llvm::formatv("the causal select's fill is finite and {0} of the "
                        "{1} queries see no key (a softmax of equal fills "
                        "there, NaN in fk.attention)",
                        -*diagonal, nq.str())
              .str();
    return false;
  }
  rest = kept;
  return true;
}

/// Whether `v`, or any value it is computed from, passes `test`.
static bool anyProducer(Value v, function_ref<bool(Value)> test) {
  SmallVector<Value> worklist = {v};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    if (test(next))
      return true;
    if (Operation *op = next.getDefiningOp())
      worklist.append(op->operand_begin(), op->operand_end());
  }
  return false;
}

/// Whether `v` is computed from any of `sources`.
static bool dependsOn(Value v, ArrayRef<Value> sources) {
  return anyProducer(v, [&](Value x) { return llvm::is_contained(sources, x); });
}

static bool isComputedFromMatmul(Value v) {
  return anyProducer(v, [](Value x) {
    return static_cast<bool>(x.getDefiningOp<MatmulOp>());
  });
}

/// Whether `fill`, what a `what` select puts at a hidden score, is -inf or
/// low enough to be as good once multiplied by `scaleAfter`, the scale the
/// scores get after the select. Written so that NaN fails: a negative scale
/// turns -inf into +inf, zero turns it into NaN, and one below 1 lifts a
/// finite fill. On failure `why` says why.
bool AttentionMatcher::isMaskingFill(Value fill, double scaleAfter,
                                     StringRef what) {
  std::optional<double> fillValue = getSplatValue(fill);
  if (fillValue && *fillValue * scaleAfter <= kMaskingFill)
    return true;
  why = llvm::formatv("the {0} select's fill is not -inf or a large negative "
                      "constant (at most -1e4)",
                      what)
            .str();
  if (fillValue && scaleAfter != 1.0)
    why += llvm::formatv(" once scaled by {0:e}, the scale applied after it",
                         scaleAfter)
               .str();
  return false;
}

/// select(m, s, fill) or select(m, fill, s) with `rest` = s: the branch
/// computed from a matmul is the scores, the other a masking fill.
bool AttentionMatcher::matchBooleanMask(SelectOp select, Attention &attention,
                                        Value &rest) {
  bool scoresOnTrue = isComputedFromMatmul(select.getOnTrue());
  bool scoresOnFalse = isComputedFromMatmul(select.getOnFalse());
  if (scoresOnTrue == scoresOnFalse) {
    why = "the scores go through a select that is not a mask: both or "
          "neither of its branches are computed from a matmul";
    return false;
  }
  if (attention.booleanMask) {
    why = "the scores go through two mask selects";
    return false;
  }
  if (attention.mask) {
    why = "the scores get both an additive and a boolean mask";
    return false;
  }
  Value fill = scoresOnTrue ? select.getOnFalse() : select.getOnTrue();
  if (!isMaskingFill(fill, attention.scale, "mask"))
    return false;
  Value condition = select.getCondition();
  if (auto broadcast = condition.getDefiningOp<BroadcastOp>())
    condition = broadcast.getOperand();
  attention.booleanMask = condition;
  attention.keptWhereTrue = scoresOnTrue;
  attention.finiteFill = !std::isinf(*getSplatValue(fill));
  attention.booleanMaskLoc = select.getLoc();
  rest = scoresOnTrue ? select.getOnTrue() : select.getOnFalse();
  return true;
}


LogicalResult AttentionMatcher::matchQueryKey(MatmulOp matmul,
                                              Attention &attention) {
  // A scalar scale on Q or on K^T.
  auto peelScale = [&](Value v) -> Value {
    if (auto mul = v.getDefiningOp<MulOp>()) {
      if (std::optional<double> c = getSplatValue(mul.getRhs())) {
        attention.scale *= *c;
        return mul.getLhs();
      }
      if (std::optional<double> c = getSplatValue(mul.getLhs())) {
        attention.scale *= *c;
        return mul.getRhs();
      }
    }
    if (auto div = v.getDefiningOp<DivOp>())
      if (std::optional<double> c = getSplatValue(div.getRhs())) {
        attention.scale /= *c;
        return div.getLhs();
      }
    return v;
  };
  attention.query = peelScale(matmul.getLhs());
  Value keyTransposed = peelScale(matmul.getRhs());
  int64_t rank = tensorType(keyTransposed).getRank();
  if (auto transpose = keyTransposed.getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> swapLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swapLast[rank - 1], swapLast[rank - 2]);
    if (transpose.getPerm() == ArrayRef<int64_t>(swapLast)) {
      attention.key = peelScale(transpose.getOperand());
      return success();
    }
  }
  attention.keyTransposed = keyTransposed;
  return success();
}

LogicalResult AttentionMatcher::matchScores(Value scores, Attention &attention) {
  Value s = scores;
  while (true) {
    s = skipFloatCasts(s);
    if (auto matmul = s.getDefiningOp<MatmulOp>()) {
      // Two masks that together may hide a whole row: the graph's softmax
      // then weighs the keys with a finite fill equally, which no additive
      // mask of the attention reproduces.
      if (attention.causal && attention.booleanMask &&
          (attention.finiteFill || attention.causalFiniteFill)) {
        why = "a causal and a boolean mask with a finite fill may hide a "
              "whole row together (use -inf fills)";
        return failure();
      }
      return matchQueryKey(matmul, attention);
    }
    if (auto select = s.getDefiningOp<SelectOp>()) {
      // A causal mask of iotas becomes the attention's `causal`; any other
      // select that hides scores, an additive mask.
      Value rest;
      if (!attention.causal && matchCausal(select, attention.scale, rest)) {
        attention.causal = true;
        attention.causalFiniteFill =
            !std::isinf(*getSplatValue(select.getOnTrue() == rest
                                           ? select.getOnFalse()
                                           : select.getOnTrue()));
        s = rest;
        continue;
      }
      if (!why.empty() || !matchBooleanMask(select, attention, rest))
        return failure();
      s = rest;
      continue;
    }
    if (auto mul = s.getDefiningOp<MulOp>()) {
      std::optional<double> c = getSplatValue(mul.getRhs());
      Value rest = mul.getLhs();
      if (!c) {
        c = getSplatValue(mul.getLhs());
        rest = mul.getRhs();
      }
      if (!c) {
        why = "the scores are multiplied by a value that is not a scalar "
              "constant";
        return failure();
      }
      attention.scale *= *c;
      s = rest;
      continue;
    }
    if (auto div = s.getDefiningOp<DivOp>()) {
      std::optional<double> c = getSplatValue(div.getRhs());
      if (!c) {
        why = "the scores are divided by a value that is not a scalar "
              "constant";
        return failure();
      }
      attention.scale /= *c;
      s = div.getLhs();
      continue;
    }
    if (auto add = s.getDefiningOp<AddOp>()) {
      if (attention.mask) {
        why = "the scores get two additive masks";
        return failure();
      }
      if (attention.booleanMask) {
        why = "the scores get both an additive and a boolean mask";
        return failure();
      }
      // The mask is the side not computed from a matmul.
      Value lhs = add.getLhs(), rhs = add.getRhs();
      bool left = isComputedFromMatmul(lhs), right = isComputedFromMatmul(rhs);
      if (left == right) {
        why = "neither side of the scores' addition is a mask";
        return failure();
      }
      attention.mask = left ? rhs : lhs;
      // fk.attention broadcasts its mask as the addition did (a padding
      // mask [B, 1, 1, S] need not become [B, H, S, S] in memory).
      if (auto broadcast = attention.mask.getDefiningOp<BroadcastOp>())
        attention.mask = broadcast.getOperand();
      attention.maskScale = attention.scale;
      attention.maskLoc = add.getLoc();
      s = left ? lhs : rhs;
      continue;
    }
    why = llvm::formatv("the scores are not computed by a matmul (found {0})",
                        s.getDefiningOp() ? s.getDefiningOp()->getName()
                                                .getStringRef()
                                          : StringRef("an argument"))
              .str();
    return failure();
  }
}

namespace {
struct RecognizeAttentionPass
    : fk::impl::FkRecognizeAttentionBase<RecognizeAttentionPass> {
  using FkRecognizeAttentionBase::FkRecognizeAttentionBase;

  void runOnOperation() override {
    SmallVector<MatmulOp> candidates;
    getOperation().walk([&](MatmulOp op) { candidates.push_back(op); });
    bool changed = false;
    for (MatmulOp root : candidates)
      changed |= recognize(root);
    if (changed) {
      IRRewriter rewriter(&getContext());
      (void)runRegionDCE(rewriter, getOperation()->getRegions());
    }
  }

  bool recognize(MatmulOp root) {
    AttentionMatcher matcher;
    Value scores = matcher.matchSoftmax(root.getLhs());
    if (!scores) {
      if (!matcher.why.empty())
        remark(root, matcher.why);
      return false;
    }
    Attention attention;
    attention.value = skipLeadingBroadcast(root.getRhs());
    if (failed(matcher.matchScores(scores, attention))) {
      remark(root, matcher.why);
      return false;
    }
    attention.query = skipLeadingBroadcast(attention.query);
    if (attention.key)
      attention.key = skipLeadingBroadcast(attention.key);
    for (Value mask : {attention.mask, attention.booleanMask}) {
      if (!mask)
        continue;
      std::pair<Value, StringRef> sources[] = {
          {attention.query, "query"},
          {attention.key ? attention.key : attention.keyTransposed, "key"},
          {attention.value, "value"},
          {root.getLhs(), "scores"}};
      for (auto [source, name] : sources)
        if (dependsOn(mask, source)) {
          remark(root, "the mask depends on the " + name.str());
          return false;
        }
    }
    if (attention.mask &&
        !isa<FloatType>(tensorType(attention.mask).getElementType())) {
      remark(root, "the mask is not a float tensor");
      return false;
    }
    // The rewrite builds splats of the mask's shape (a scaled additive mask,
    // a boolean mask made additive: scalars broadcast where the shape is
    // sized at run time) and, for a finite fill, the values' mean per batch,
    // whose constants hold their elements: those shapes must be static.
    bool symbolicMask =
        attention.booleanMask && attention.finiteFill &&
        (isSymbolic(attention.booleanMask.getType()) ||
         isSymbolic(attention.value.getType()));
    if (symbolicMask) {
      remark(root, "the mask's finite fill needs constants of a shape sized "
                   "at run time (the values' mean where a row keeps no key)");
      return false;
    }
    // Everything fk.attention's verifier checks is checked before anything
    // is built, so that a near miss leaves the graph as it was.
    RankedTensorType keyType;
    if (attention.key) {
      keyType = tensorType(attention.key);
    } else {
      // K was passed transposed, [..., D, Nk]: attention takes [..., Nk, D].
      SmallVector<int64_t> shape(tensorType(attention.keyTransposed).getShape());
      std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
      keyType = tensorType(attention.keyTransposed).clone(shape);
    }
    if (std::string why = whyNotAttention(root, attention, keyType);
        !why.empty()) {
      remark(root, why);
      return false;
    }

    OpBuilder b(root);
    Location loc = root.getLoc();
    if (Value keyTransposed = attention.keyTransposed) {
      int64_t rank = keyType.getRank();
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[rank - 1], perm[rank - 2]);
      attention.key = TransposeOp::create(b, loc, keyType, keyTransposed,
                                          b.getDenseI64ArrayAttr(perm));
    }
    if (attention.mask && attention.maskScale != 1.0) {
      // (s + m) * c: the attention adds c * m to its scaled scores.
      RankedTensorType maskType = tensorType(attention.mask);
      Value factor = buildSplatTensor(b, *attention.maskLoc, maskType,
                                      attention.maskScale);
      attention.mask = MulOp::create(b, *attention.maskLoc, maskType,
                                     attention.mask, factor);
    }
    if (attention.booleanMask)
      attention.mask = buildAdditiveMask(b, attention);
    auto op = AttentionOp::create(
        b, loc, root.getType(), attention.query, attention.key,
        attention.value, attention.mask, b.getF64FloatAttr(attention.scale),
        b.getBoolAttr(attention.causal));
    Value result = op.getResult();
    if (attention.booleanMask && attention.finiteFill)
      result = averageRowsWithoutKeys(b, loc, attention, result);
    if (explain) {
      InFlightDiagnostic diag = root.emitRemark();
      diag << "attention recognized: softmax(" << attention.scale
           << " * q @ k^T";
      if (attention.booleanMask) {
        diag << " + (" << (attention.keptWhereTrue ? "" : "not ")
             << "m ? 0 : -inf)";
      } else if (attention.mask) {
        diag << " + ";
        if (attention.maskScale != 1.0)
          diag << attention.maskScale << " * ";
        diag << "mask";
      }
      diag << ")" << (attention.causal ? ", causal" : "")
           << " @ v becomes one fk.attention";
      if (attention.booleanMask && attention.finiteFill)
        diag << "; rows the mask hides entirely average v, as the finite "
                "fill makes them";
    }
    root.getResult().replaceAllUsesWith(result);
    root.erase();
    return true;
  }

  /// Why fk.attention cannot express the match (what its verifier would
  /// reject: attention C1-C8, and its operands' float types), or "".
  std::string whyNotAttention(MatmulOp root, const Attention &attention,
                              RankedTensorType keyType) {
    RankedTensorType queryType = tensorType(attention.query),
                     valueType = tensorType(attention.value);
    for (RankedTensorType type : {queryType, keyType, valueType})
      if (!isa<FloatType>(type.getElementType()))
        return "the query, key and value are not float tensors";
    std::optional<RankedTensorType> maskType;
    if (attention.mask)
      maskType = tensorType(attention.mask);
    if (attention.booleanMask)
      maskType = tensorType(attention.booleanMask)
                     .clone(queryType.getElementType());
    std::string message;
    FailureOr<RankedTensorType> type;
    {
      // Passes run on several functions at once: capture only this
      // thread's diagnostic, and let other threads' remarks through.
      std::thread::id self = std::this_thread::get_id();
      ScopedDiagnosticHandler capture(&getContext(), [&](Diagnostic &diag) {
        if (std::this_thread::get_id() != self)
          return failure();
        message = diag.str();
        return success();
      });
      type = inferAttentionType(
          [&] { return mlir::emitError(root.getLoc()); }, queryType, keyType,
          valueType, maskType, attention.scale);
    }
    if (failed(type))
      return "fk.attention cannot express it: " + message;
    if (*type != root.getType())
      return llvm::formatv("fk.attention cannot express it: its result would "
                           "be {0}, not {1}",
                           *type, root.getType())
          .str();
    return "";
  }

  /// The additive mask of a boolean one: 0 where the scores are kept,
  /// -inf where they are hidden, in the attention's dtype and the boolean
  /// mask's shape (the attention broadcasts it).
  static Value buildAdditiveMask(OpBuilder &b, const Attention &attention) {
    Type dtype = tensorType(attention.query).getElementType();
    return selectByMask(b, *attention.booleanMaskLoc, attention,
                        tensorType(attention.booleanMask).clone(dtype), 0.0,
                        -INFINITY);
  }

  /// `kept` where the boolean mask keeps a score, `hidden` where it hides
  /// it, as a tensor of `type` (the mask's shape).
  static Value selectByMask(OpBuilder &b, Location loc,
                            const Attention &attention, RankedTensorType type,
                            double kept, double hidden) {
    Value onKept = buildSplatTensor(b, loc, type, kept);
    Value onHidden = buildSplatTensor(b, loc, type, hidden);
    if (!attention.keptWhereTrue)
      std::swap(onKept, onHidden);
    return SelectOp::create(b, loc, type, attention.booleanMask, onKept,
                            onHidden);
  }

  /// `result` with the rows whose keys the boolean mask hides entirely
  /// replaced by the mean of the values: there the graph's softmax sees
  /// only the finite fill and weighs every key equally, where the
  /// attention's -inf mask gives NaN.
  static Value averageRowsWithoutKeys(OpBuilder &b, Location loc,
                                      const Attention &attention,
                                      Value result) {
    RankedTensorType resultType = tensorType(result);
    Value mask = attention.booleanMask;
    RankedTensorType maskType = tensorType(mask);
    int64_t maskRank = maskType.getRank();
    // 1 where a key is kept, 0 where hidden; its maximum over the key axis
    // says whether the row keeps any, as a [..., Nq or 1, 1] mask.
    RankedTensorType keptType = maskType.clone(b.getF32Type());
    Value kept = selectByMask(b, loc, attention, keptType, 1.0, 0.0);
    Value anyKept = kept;
    if (maskRank > 0) {
      SmallVector<int64_t> rowShape(maskType.getShape().drop_back());
      Value rowMax = ReduceMaxOp::create(
          b, loc, keptType.clone(rowShape), kept,
          b.getDenseI64ArrayAttr({maskRank - 1}));
      rowShape.push_back(1);
      anyKept = ReshapeOp::create(b, loc, keptType.clone(rowShape), rowMax);
    }
    RankedTensorType anyKeptType = tensorType(anyKept);
    Value hasKey = CompareOp::create(
        b, loc, anyKeptType.clone(b.getI1Type()), ComparisonDirection::GT,
        anyKept,
        ConstantOp::create(b, loc, anyKeptType,
                           getSplatAttribute(anyKeptType, 0.0)));
    // The mean of the values over the key axis, as [..., 1, Dv].
    Value values = attention.value;
    RankedTensorType valueType = tensorType(values);
    int64_t keyAxis = valueType.getRank() - 2;
    SmallVector<int64_t> meanShape(valueType.getShape());
    meanShape.erase(meanShape.begin() + keyAxis);
    Value mean = ReduceMeanOp::create(b, loc, valueType.clone(meanShape),
                                      values,
                                      b.getDenseI64ArrayAttr({keyAxis}));
    meanShape.insert(meanShape.begin() + keyAxis, 1);
    mean = ReshapeOp::create(b, loc, valueType.clone(meanShape), mean);
    Value hasKeyEverywhere = BroadcastOp::create(
        b, loc, resultType.clone(b.getI1Type()), hasKey);
    Value meanEverywhere = BroadcastOp::create(b, loc, resultType, mean);
    return SelectOp::create(b, loc, resultType, hasKeyEverywhere, result,
                            meanEverywhere);
  }

  void remark(MatmulOp root, StringRef why) {
    if (explain)
      root.emitRemark() << "attention not recognized: " << why;
  }
};
} // namespace
