//===- DecomposeCompositeOps.cpp - composite ops as primitive ops ---------===//
//
// softmax, layernorm, rmsnorm, attention, argmax and argmin become the
// reductions, matmuls and elementwise ops of their definitions, so that the
// kernel builders only know three shapes of work (loop, reduction, matmul);
// an attention the flash kernel computes may stay whole. f16/bf16
// composites compute in f32 inside, as their reference semantics do.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTarget.h"
#include "fk/IR/FkTypeInference.h"
#include "fk/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"
#include <limits>

namespace mlir::fk {
#define GEN_PASS_DEF_FKDECOMPOSECOMPOSITEOPS
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

namespace {
/// Builds primitive fk ops in front of the composite op being decomposed, at
/// its location.
class Composer {
public:
  explicit Composer(Operation *op) : b(op), loc(op->getLoc()), op(op) {}

  static RankedTensorType typeOf(Value v) {
    return llvm::cast<RankedTensorType>(v.getType());
  }

  Value cast(Value v, Type elementType) {
    RankedTensorType type = typeOf(v);
    if (type.getElementType() == elementType)
      return v;
    return CastOp::create(b, loc, type.clone(elementType), v);
  }

  Value splat(RankedTensorType type, double value) {
    return buildSplatTensor(b, loc, type, value);
  }

  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(b, loc, lhs.getType(), lhs, rhs);
  }
  template <typename OpTy> Value unary(Value v) {
    return OpTy::create(b, loc, v.getType(), v);
  }

  Value broadcast(Value v, RankedTensorType type) {
    if (typeOf(v) == type)
      return v;
    return BroadcastOp::create(b, loc, type, v);
  }

  /// `v` reshaped to `dims` (symbolic ones included).
  Value reshape(Value v, ArrayRef<Dim> dims) {
    RankedTensorType type = getTensorType(dims, typeOf(v).getElementType());
    if (typeOf(v) == type)
      return v;
    return ReshapeOp::create(b, loc, type, v);
  }

  /// `OpTy` over `axis` of `v`, broadcast back to the shape of `v`.
  template <typename OpTy> Value reduceAlong(Value v, int64_t axis) {
    RankedTensorType type = typeOf(v);
    SmallVector<Dim> reducedDims = getDims(type), keptDims = getDims(type);
    reducedDims.erase(reducedDims.begin() + axis);
    keptDims[axis] = Dim(1);
    Value reduced =
        OpTy::create(b, loc, getTensorType(reducedDims, type.getElementType()),
                     v, b.getDenseI64ArrayAttr({axis}));
    return broadcast(reshape(reduced, keptDims), type);
  }

  /// A vector of the length of `axis` of `type`, broadcast along that axis.
  Value broadcastAlong(Value vector, RankedTensorType type, int64_t axis) {
    SmallVector<Dim> dims(type.getRank() - axis, Dim(1));
    dims[0] = getDim(type, axis);
    return broadcast(reshape(vector, dims), type);
  }

  /// softmax of an f32 `x` along `axis`.
  Value softmax(Value x, int64_t axis) {
    Value shifted = binary<SubOp>(x, reduceAlong<ReduceMaxOp>(x, axis));
    Value exps = unary<ExpOp>(shifted);
    return binary<DivOp>(exps, reduceAlong<ReduceSumOp>(exps, axis));
  }

  /// `lhs @ rhs` with the type the matmul rules give.
  Value matmul(Value lhs, Value rhs) {
    FailureOr<RankedTensorType> type = inferMatmulType(
        [&] { return op->emitOpError(); }, typeOf(lhs), typeOf(rhs));
    assert(succeeded(type) && "operands of a verified op");
    return MatmulOp::create(b, loc, *type, lhs, rhs);
  }

  OpBuilder b;
  Location loc;
  Operation *op;
};
} // namespace

static Value decompose(SoftmaxOp op) {
  Composer c(op);
  Type elementType = Composer::typeOf(op.getOperand()).getElementType();
  Value x = c.cast(op.getOperand(), c.b.getF32Type());
  return c.cast(c.softmax(x, op.getAxis()), elementType);
}

static Value decompose(LayerNormOp op) {
  Composer c(op);
  Type f32 = c.b.getF32Type();
  int64_t axis = op.getAxis();
  Value x = c.cast(op.getOperand(), f32);
  RankedTensorType type = Composer::typeOf(x);
  Value centered = c.binary<SubOp>(x, c.reduceAlong<ReduceMeanOp>(x, axis));
  Value variance = c.reduceAlong<ReduceMeanOp>(
      c.binary<MulOp>(centered, centered), axis);
  Value inverse = c.unary<RsqrtOp>(c.binary<AddOp>(
      variance, c.splat(type, op.getEps().convertToDouble())));
  Value gamma = c.broadcastAlong(c.cast(op.getGamma(), f32), type, axis);
  Value beta = c.broadcastAlong(c.cast(op.getBeta(), f32), type, axis);
  Value y = c.binary<AddOp>(
      c.binary<MulOp>(c.binary<MulOp>(centered, inverse), gamma), beta);
  return c.cast(y, Composer::typeOf(op.getOperand()).getElementType());
}

static Value decompose(RmsNormOp op) {
  Composer c(op);
  Type f32 = c.b.getF32Type();
  Value x = c.cast(op.getOperand(), f32);
  RankedTensorType type = Composer::typeOf(x);
  int64_t axis = type.getRank() - 1;
  Value meanSquare = c.reduceAlong<ReduceMeanOp>(c.binary<MulOp>(x, x), axis);
  Value inverse = c.unary<RsqrtOp>(c.binary<AddOp>(
      meanSquare, c.splat(type, op.getEps().convertToDouble())));
  Value gamma = c.broadcastAlong(c.cast(op.getGamma(), f32), type, axis);
  Value y = c.binary<MulOp>(c.binary<MulOp>(x, inverse), gamma);
  return c.cast(y, Composer::typeOf(op.getOperand()).getElementType());
}

static Value decompose(AttentionOp op) {
  Composer c(op);
  Type f32 = c.b.getF32Type();
  Value q = c.cast(op.getQuery(), f32), k = c.cast(op.getKey(), f32),
        v = c.cast(op.getValue(), f32);

  RankedTensorType kType = Composer::typeOf(k);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, kType.getRank()));
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  FailureOr<RankedTensorType> kTransposedType = inferTransposeType(
      [&] { return op.emitOpError(); }, kType, perm);
  assert(succeeded(kTransposedType) && "a valid permutation");
  Value kTransposed = TransposeOp::create(c.b, c.loc, *kTransposedType, k,
                                          c.b.getDenseI64ArrayAttr(perm));

  Value scores = c.matmul(q, kTransposed);
  scores = c.binary<MulOp>(
      scores, c.splat(Composer::typeOf(scores), op.getScale().convertToDouble()));
  if (Value mask = op.getMask()) {
    // The mask may add batch dimensions to the scores.
    FailureOr<SmallVector<Dim>> shape = inferBroadcastShape(
        [&] { return op.emitOpError(); }, getDims(Composer::typeOf(scores)),
        getDims(Composer::typeOf(mask)));
    assert(succeeded(shape) && "a verified mask broadcasts to the scores");
    RankedTensorType type = getTensorType(*shape, f32);
    scores = c.binary<AddOp>(c.broadcast(scores, type),
                             c.broadcast(c.cast(mask, f32), type));
  }
  RankedTensorType scoresType = Composer::typeOf(scores);
  if (op.getCausal()) {
    // Query i sees keys j <= i + nk - nq; the others get -inf added, as in
    // the reference semantics (so a NaN score stays NaN). Lengths given at
    // run time are equal (getCausalOffset).
    Dim nq = getDim(scoresType, scoresType.getRank() - 2),
        nk = getDim(scoresType, scoresType.getRank() - 1);
    auto indexType = getTensorType({nq, nk}, c.b.getI32Type());
    Value rows = IotaOp::create(c.b, c.loc, indexType, 0);
    Value columns = IotaOp::create(c.b, c.loc, indexType, 1);
    Value lastVisible = c.binary<AddOp>(
        rows, c.splat(indexType, static_cast<double>(*getCausalOffset(op))));
    Value hidden = CompareOp::create(
        c.b, c.loc, indexType.clone(c.b.getI1Type()),
        ComparisonDirectionAttr::get(c.b.getContext(), ComparisonDirection::GT),
        columns, lastVisible);
    auto planeType = getTensorType({nq, nk}, f32);
    Value penalty = SelectOp::create(
        c.b, c.loc, planeType, hidden,
        c.splat(planeType, -std::numeric_limits<double>::infinity()),
        c.splat(planeType, 0.0));
    scores = c.binary<AddOp>(scores, c.broadcast(penalty, scoresType));
  }
  Value probabilities = c.softmax(scores, scoresType.getRank() - 1);
  Value out = c.matmul(probabilities, v);
  auto resultType = llvm::cast<RankedTensorType>(op.getType());
  return c.cast(c.broadcast(out, resultType.clone(f32)),
                resultType.getElementType());
}

/// The first index along the axis of the row's extreme, or of its first NaN
/// (NaN counts as the extreme): with m the row's max (min), which is NaN
/// exactly when the row holds one, the least index where x == m or x is
/// NaN. Two reductions of the same rows, which one row kernel computes.
template <typename ReduceOpTy, typename ArgReduceOpTy>
static Value decomposeArgReduce(ArgReduceOpTy op) {
  Composer c(op);
  Value x = op.getOperand();
  int64_t axis = op.getAxis();
  RankedTensorType type = Composer::typeOf(x);
  auto direction = [&](ComparisonDirection d) {
    return ComparisonDirectionAttr::get(c.b.getContext(), d);
  };
  auto boolType = type.clone(c.b.getI1Type());
  Value hit = CompareOp::create(c.b, c.loc, boolType,
                                direction(ComparisonDirection::EQ), x,
                                c.reduceAlong<ReduceOpTy>(x, axis));
  if (isa<FloatType>(type.getElementType())) {
    Value isNaN = CompareOp::create(c.b, c.loc, boolType,
                                    direction(ComparisonDirection::NE), x, x);
    hit = SelectOp::create(c.b, c.loc, boolType, isNaN, isNaN, hit);
  }
  auto indexType = type.clone(c.b.getI32Type());
  // Past every index: the axis's size, or i32's largest where it is sized
  // at run time (at least 1 then: fk-check-runtime-sizes).
  int64_t past = type.isDynamicDim(axis) ? std::numeric_limits<int32_t>::max()
                                         : type.getDimSize(axis);
  Value candidates = SelectOp::create(
      c.b, c.loc, indexType, hit, IotaOp::create(c.b, c.loc, indexType, axis),
      c.splat(indexType, static_cast<double>(past)));
  return ReduceMinOp::create(c.b, c.loc, op.getType(), candidates,
                             c.b.getDenseI64ArrayAttr({axis}));
}

static Value decompose(ArgMaxOp op) {
  return decomposeArgReduce<ReduceMaxOp>(op);
}
static Value decompose(ArgMinOp op) {
  return decomposeArgReduce<ReduceMinOp>(op);
}

namespace {
struct DecomposeCompositeOpsPass
    : fk::impl::FkDecomposeCompositeOpsBase<DecomposeCompositeOpsPass> {
  using FkDecomposeCompositeOpsBase::FkDecomposeCompositeOpsBase;

  void runOnOperation() override {
    SmallVector<Operation *> composites;
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        FailureOr<TargetAttr> target = getTarget(op, "fk-decompose");
        if (failed(target))
          return WalkResult::interrupt();
        std::string why = everyAttention
                              ? std::string("every attention is decomposed")
                              : whyNoAttentionKernel(attention, *target);
        if (why.empty())
          return WalkResult::advance();
        // Its naive kernels (matmuls, a softmax) read sizes given at run
        // time, but a causal mask over lengths of different symbolic sizes
        // would need their difference.
        if (std::string naive = whyNotDecomposedAtRuntimeSizes(attention);
            !naive.empty()) {
          emitNeedsSizesError(op, "no attention kernel computes this "
                                  "attention (" +
                                      why + "), and " + naive);
          return WalkResult::interrupt();
        }
        if (explain && !everyAttention)
          op->emitRemark() << "attention decomposed into its naive kernels, "
                              "not the flash kernel: "
                           << why;
      }
      if (isa<SoftmaxOp, LayerNormOp, RmsNormOp, AttentionOp, ArgMaxOp,
              ArgMinOp>(op))
        composites.push_back(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (Operation *op : composites) {
      Value replacement =
          llvm::TypeSwitch<Operation *, Value>(op)
              .Case<SoftmaxOp, LayerNormOp, RmsNormOp, AttentionOp, ArgMaxOp,
                    ArgMinOp>(
                  [](auto composite) { return decompose(composite); });
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  }
};
} // namespace
