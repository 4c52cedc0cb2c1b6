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
  // What the softmax sees at a hidden score must be -inf or low enough to
  // be as good. Written so that NaN fails, and a scale after the select
  // counts: a negative one turns -inf into +inf, zero turns it into NaN, and
  // one below 1 lifts a finite fill.
  std::optional<double> fillValue = getSplatValue(fill);
  if (!fillValue || !(*fillValue * scaleAfter <= kMaskingFill)) {
    why = "the causal select's fill is not -inf or a large negative constant "
          "(at most -1e4)";
    if (fillValue && scaleAfter != 1.0)
      why += llvm::formatv(" once scaled by {0:e}, the scale applied after it",
                           scaleAfter)
                 .str();
    return false;
  }
  // A finite fill is as good as -inf only where every row keeps a key. With
  // more queries than keys the first Nq - Nk rows keep none: the graph
  // averages their values, where fk.attention gives them NaN.
  if (!std::isinf(*fillValue) && nq > nk) {
    why = llvm::formatv("the causal select's fill is finite and {0} of the "
                        "{1} queries see no key (a softmax of equal fills "
                        "there, NaN in fk.attention)",
                        nq - nk, nq)
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
      if (attention.causal ||
          !matchCausal(select, attention.scale, rest)) {
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
    if (attention.mask) {
      std::pair<Value, StringRef> sources[] = {
          {attention.query, "query"},
          {attention.key ? attention.key : attention.keyTransposed, "key"},
          {attention.value, "value"},
          {root.getLhs(), "scores"}};
      for (auto [source, name] : sources)
        if (dependsOn(attention.mask, source)) {
          remark(root, "the mask depends on the " + name.str());
          return false;
        }
      if (!isa<FloatType>(tensorType(attention.mask).getElementType())) {
        remark(root, "the mask is not a float tensor");
        return false;
      }
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
      Value factor = ConstantOp::create(
          b, *attention.maskLoc, maskType,
          DenseElementsAttr::get(
              maskType, doubleToAttribute(maskType.getElementType(),
                                          attention.maskScale)));
      attention.mask = MulOp::create(b, *attention.maskLoc, maskType,
                                     attention.mask, factor);
    }
    auto op = AttentionOp::create(
        b, loc, root.getType(), attention.query, attention.key,
        attention.value, attention.mask, b.getF64FloatAttr(attention.scale),
        b.getBoolAttr(attention.causal));
    if (explain) {
      InFlightDiagnostic diag = root.emitRemark();
      diag << "attention recognized: softmax(" << attention.scale
           << " * q @ k^T";
      if (attention.mask) {
        diag << " + ";
        if (attention.maskScale != 1.0)
          diag << attention.maskScale << " * ";
        diag << "mask";
      }
      diag << ")" << (attention.causal ? ", causal" : "")
           << " @ v becomes one fk.attention";
    }
    root.getResult().replaceAllUsesWith(op.getResult());
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
    // Over no keys the spelled-out graph gives 0 (a product over an empty
    // axis), where fk.attention gives a query that sees no key NaN.
    if (keyType.getRank() >= 2 && keyType.getDimSize(keyType.getRank() - 2) == 0)
      return "there are no keys: the graph's products give 0 where "
             "fk.attention gives NaN";
    std::optional<RankedTensorType> maskType;
    if (attention.mask)
      maskType = tensorType(attention.mask);
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

  void remark(MatmulOp root, StringRef why) {
    if (explain)
      root.emitRemark() << "attention not recognized: " << why;
  }
};
} // namespace
