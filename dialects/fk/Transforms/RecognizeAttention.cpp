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
//               j > i); an additive mask S + M; a scale S * c, c * S or
//               S / c by a scalar constant
//   Q @ Kt      Kt = transpose(K) of the last two dims, or K passed already
//               transposed; a scalar scale may multiply Q or K instead;
//               K and V may be broadcast over leading (head) dims
//
// Once the softmax is found, every failed condition is a near miss that
// `explain` reports with its reason; a plain matmul says nothing.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"
#include "fk/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

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

/// The operand of `reduce(x, axes=[last])` reached from `v` through the
/// reshape that keeps the axis and the broadcast back, or null.
template <typename ReduceOp>
static Value matchRowReduction(Value v, std::string &why) {
  if (auto broadcast = v.getDefiningOp<BroadcastOp>())
    v = broadcast.getOperand();
  if (auto reshape = v.getDefiningOp<ReshapeOp>())
    v = reshape.getOperand();
  auto reduce = v.getDefiningOp<ReduceOp>();
  if (!reduce)
    return nullptr;
  int64_t last = tensorType(reduce.getOperand()).getRank() - 1;
  if (reduce.getAxes() != ArrayRef<int64_t>{last}) {
    why = llvm::formatv("the softmax reduces axes other than the key axis "
                        "({0})",
                        last)
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
  bool causal = false;
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
  bool matchCausal(SelectOp select, Value &rest);
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
  Value summed = matchRowReduction<ReduceSumOp>(div.getRhs(), why);
  if (!summed)
    return nullptr;
  if (summed != exp.getResult()) {
    why = "the softmax divides by the sum of other values";
    return nullptr;
  }
  Value x = exp.getOperand();
  if (auto sub = x.getDefiningOp<SubOp>()) {
    Value maxed = matchRowReduction<ReduceMaxOp>(sub.getRhs(), why);
    if (!why.empty())
      return nullptr;
    if (maxed && maxed == sub.getLhs())
      return sub.getLhs();
  }
  return x;
}

/// select(j <= i + (Nk - Nq), s, fill) with `rest` = s, or the hidden
/// branch first: select(j > i + ..., fill, s).
bool AttentionMatcher::matchCausal(SelectOp select, Value &rest) {
  Value condition = select.getCondition();
  if (auto broadcast = condition.getDefiningOp<BroadcastOp>())
    condition = broadcast.getOperand();
  auto compare = condition.getDefiningOp<CompareOp>();
  if (!compare)
    return false;
  ArrayRef<int64_t> scoreShape = tensorType(select.getResult()).getShape();
  int64_t nq = scoreShape[scoreShape.size() - 2], nk = scoreShape.back();
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
    return iotaDim(v) == 2 && offset == nk - nq;
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
  std::optional<double> fillValue = getSplatValue(fill);
  if (!fillValue || *fillValue > kMaskingFill) {
    why = "the causal select's fill is not -inf or a large negative constant "
          "(at most -1e4)";
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
    if (auto matmul = s.getDefiningOp<MatmulOp>())
      return matchQueryKey(matmul, attention);
    if (auto select = s.getDefiningOp<SelectOp>()) {
      Value rest;
      if (attention.causal || !matchCausal(select, rest)) {
        if (why.empty())
          why = "the scores go through a select that is not a causal mask "
                "of iotas";
        return failure();
      }
      attention.causal = true;
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
      // The mask is the side not computed from a matmul.
      Value lhs = add.getLhs(), rhs = add.getRhs();
      auto reachesMatmul = [](Value v) {
        return anyProducer(v, [](Value x) {
          return static_cast<bool>(x.getDefiningOp<MatmulOp>());
        });
      };
      bool left = reachesMatmul(lhs), right = reachesMatmul(rhs);
      if (left == right) {
        why = "neither side of the scores' addition is a mask";
        return failure();
      }
      attention.mask = left ? rhs : lhs;
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
    if (attention.mask &&
        dependsOn(attention.mask, {attention.query, attention.value,
                                   root.getLhs()})) {
      remark(root, "the mask depends on the query, the value or the scores");
      return false;
    }
    OpBuilder b(root);
    Location loc = root.getLoc();
    if (Value keyTransposed = attention.keyTransposed) {
      // K was passed transposed, [..., D, Nk]: attention takes [..., Nk, D].
      int64_t rank = tensorType(keyTransposed).getRank();
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[rank - 1], perm[rank - 2]);
      SmallVector<int64_t> shape(tensorType(keyTransposed).getShape());
      std::swap(shape[rank - 1], shape[rank - 2]);
      attention.key = TransposeOp::create(
          b, loc, tensorType(keyTransposed).clone(shape), keyTransposed,
          b.getDenseI64ArrayAttr(perm));
    }
    attention.key = skipLeadingBroadcast(attention.key);
    if (attention.mask && !isa<FloatType>(tensorType(attention.mask).getElementType())) {
      remark(root, "the mask is not a float tensor");
      return false;
    }
    auto op = AttentionOp::create(
        b, loc, root.getType(), attention.query, attention.key,
        attention.value, attention.mask, b.getF64FloatAttr(attention.scale),
        b.getBoolAttr(attention.causal));
    if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
      // The diagnostics above came from the verifier; keep the graph.
      op.erase();
      return false;
    }
    if (explain)
      root.emitRemark() << "attention recognized: softmax(" << attention.scale
                        << " * q @ k^T" << (attention.mask ? " + mask" : "")
                        << ")" << (attention.causal ? ", causal" : "")
                        << " @ v becomes one fk.attention";
    root.getResult().replaceAllUsesWith(op.getResult());
    root.erase();
    return true;
  }

  void remark(MatmulOp root, StringRef why) {
    if (explain)
      root.emitRemark() << "attention not recognized: " << why;
  }
};
} // namespace
