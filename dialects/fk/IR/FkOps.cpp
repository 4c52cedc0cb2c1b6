//===- FkOps.cpp - verifiers and custom syntax of fk ops ------------------===//
//
// Verifiers delegate to the rules of FkTypeInference.cpp and compare the
// inferred type with the one the op carries. The `// op Cn` tags name the
// constraints of docs/language.md; test/Dialect/invalid.mlir has a case,
// `@op_cn`, for each. Constraints the ODS traits and type constraints of
// FkOps.td check (e.g. matmul C6) have no code here.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkTypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fk;

/// Checks that the op's result type equals the inferred one.
static LogicalResult verifyResultType(Operation *op,
                                      FailureOr<RankedTensorType> inferred) {
  if (failed(inferred))
    return failure();
  Type actual = op->getResult(0).getType();
  if (actual != *inferred)
    return op->emitOpError() << "result type " << actual
                             << " differs from the inferred " << *inferred;
  return success();
}

#define EMIT_OP_ERROR [&]() { return emitOpError(); }

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  ElementsAttr value;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseAttribute(value))
    return failure();
  result.getOrAddProperties<Properties>().value = value;
  result.addTypes(value.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << ' ';
  printer.printAttribute(getValue());
}

LogicalResult ConstantOp::verify() {
  // constant C1
  if (getValue().getType() != getType())
    return emitOpError() << "value type " << getValue().getType()
                         << " differs from the result type " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  // iota C1
  return verifyAxis(EMIT_OP_ERROR, "dim", getDim(), type.getRank());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReduceOp>
static LogicalResult verifyReduceOp(ReduceOp op) {
  // reduce C1, C2, C3 (in inferReduceType), C4 (the result type)
  return verifyResultType(
      op, inferReduceType([&]() { return op.emitOpError(); },
                          cast<RankedTensorType>(op.getOperand().getType()),
                          op.getAxes()));
}

LogicalResult ReduceSumOp::verify() { return verifyReduceOp(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduceOp(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReduceOp(*this); }
LogicalResult ReduceMeanOp::verify() { return verifyReduceOp(*this); }

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  // reshape C1, C2
  return verifyReshape(EMIT_OP_ERROR,
                       cast<RankedTensorType>(getOperand().getType()),
                       cast<RankedTensorType>(getType()));
}

LogicalResult TransposeOp::verify() {
  // transpose C1, C2 (in inferTransposeType), C3 (the result type)
  return verifyResultType(
      *this, inferTransposeType(EMIT_OP_ERROR,
                                cast<RankedTensorType>(getOperand().getType()),
                                getPerm()));
}

LogicalResult BroadcastOp::verify() {
  auto from = cast<RankedTensorType>(getOperand().getType());
  auto to = cast<RankedTensorType>(getType());
  // broadcast C3
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "broadcast cannot change the dtype: "
                         << from.getElementType() << " vs "
                         << to.getElementType();
  // broadcast C1, C2
  return verifyBroadcastTo(EMIT_OP_ERROR, getDims(from), getDims(to));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  // gather C2, C3 (in inferGatherType), C4 (the result type)
  return verifyResultType(
      *this, inferGatherType(EMIT_OP_ERROR,
                             cast<RankedTensorType>(getTable().getType()),
                             cast<RankedTensorType>(getIndices().getType()),
                             getAxis()));
}

template <typename ArgReduceOp>
static LogicalResult verifyArgReduceOp(ArgReduceOp op) {
  // argmax C2, C3 (in inferArgReduceType), C4 (the result type)
  return verifyResultType(
      op, inferArgReduceType([&]() { return op.emitOpError(); },
                             cast<RankedTensorType>(op.getOperand().getType()),
                             op.getAxis()));
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduceOp(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduceOp(*this); }

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  // slice C1-C3
  return verifySlice(EMIT_OP_ERROR,
                     cast<RankedTensorType>(getOperand().getType()),
                     getStart(), getStep(), cast<RankedTensorType>(getType()),
                     getDimLowerBounds(*this));
}

LogicalResult ConcatOp::verify() {
  SmallVector<RankedTensorType> types;
  for (Value input : getInputs())
    types.push_back(cast<RankedTensorType>(input.getType()));
  // concat C1-C4 (in inferConcatType), C5 (the result type)
  return verifyResultType(*this,
                          inferConcatType(EMIT_OP_ERROR, types, getAxis()));
}

LogicalResult PadOp::verify() {
  auto type = cast<RankedTensorType>(getOperand().getType());
  // pad C1, C2 (in inferPadType), C3 (the result type)
  if (failed(verifyResultType(
          *this, inferPadType(EMIT_OP_ERROR, type, getLow(), getHigh()))))
    return failure();
  // pad C4
  return verifyPadValue(EMIT_OP_ERROR, getValue().convertToDouble(),
                        type.getElementType());
}

LogicalResult DynamicSliceOp::verify() {
  // dynamic_slice C1-C4
  return verifyWindow(EMIT_OP_ERROR, "result",
                      cast<RankedTensorType>(getOperand().getType()),
                      cast<RankedTensorType>(getType()), getStaticStart(),
                      getStart().size(), getDimBounds(*this));
}

LogicalResult UpdateSliceOp::verify() {
  // update_slice C1-C4
  return verifyWindow(EMIT_OP_ERROR, "update",
                      cast<RankedTensorType>(getDest().getType()),
                      cast<RankedTensorType>(getUpdate().getType()),
                      getStaticStart(), getStart().size(),
                      getDimBounds(*this));
}

//===----------------------------------------------------------------------===//
// Compound ops
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  // matmul C1-C4 (in inferMatmulType), C5 (the result type)
  return verifyResultType(
      *this, inferMatmulType(EMIT_OP_ERROR,
                             cast<RankedTensorType>(getLhs().getType()),
                             cast<RankedTensorType>(getRhs().getType())));
}

LogicalResult SoftmaxOp::verify() {
  // softmax C1
  return verifyAxis(EMIT_OP_ERROR, "axis", getAxis(),
                    cast<RankedTensorType>(getType()).getRank());
}

LogicalResult LayerNormOp::verify() {
  auto type = cast<RankedTensorType>(getOperand().getType());
  // layernorm C1, C2, C3, C4
  if (failed(verifyAxis(EMIT_OP_ERROR, "axis", getAxis(), type.getRank())) ||
      failed(verifyNormParameter(EMIT_OP_ERROR, "gamma", type, getAxis(),
                                 cast<RankedTensorType>(getGamma().getType()))) ||
      failed(verifyNormParameter(EMIT_OP_ERROR, "beta", type, getAxis(),
                                 cast<RankedTensorType>(getBeta().getType()))))
    return failure();
  return verifyEpsilon(EMIT_OP_ERROR, getEps().convertToDouble());
}

LogicalResult RmsNormOp::verify() {
  auto type = cast<RankedTensorType>(getOperand().getType());
  // rmsnorm C1
  if (type.getRank() < 1)
    return emitOpError() << "expects an operand of rank >= 1";
  // rmsnorm C2, C3
  if (failed(verifyNormParameter(EMIT_OP_ERROR, "gamma", type,
                                 type.getRank() - 1,
                                 cast<RankedTensorType>(getGamma().getType()))))
    return failure();
  return verifyEpsilon(EMIT_OP_ERROR, getEps().convertToDouble());
}

LogicalResult AttentionOp::verify() {
  std::optional<RankedTensorType> mask;
  if (getMask())
    mask = cast<RankedTensorType>(getMask().getType());
  // attention C1-C7 (in inferAttentionType), C8 (the result type)
  return verifyResultType(
      *this, inferAttentionType(EMIT_OP_ERROR,
                                cast<RankedTensorType>(getQuery().getType()),
                                cast<RankedTensorType>(getKey().getType()),
                                cast<RankedTensorType>(getValue().getType()),
                                mask, getScale().convertToDouble()));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Ops a loop kernel computes element by element: each result element
/// depends on operand elements at positions computed from its own.
bool mlir::fk::isLoopOp(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<ConstantOp, IotaOp, BroadcastOp, TransposeOp, ReshapeOp, GatherOp,
             SliceOp, ConcatOp, PadOp, DynamicSliceOp, UpdateSliceOp>(op);
}

bool mlir::fk::isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceMeanOp>(op);
}

Operation *FusionOp::getRoot() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().empty())
    return nullptr;
  return yield.getValues().front().getDefiningOp();
}

AttentionOp FusionOp::getAttention() {
  if (getKind() != FusionKind::Attention)
    return nullptr;
  for (Operation &op : getBody().front())
    if (auto attention = dyn_cast<AttentionOp>(op))
      return attention;
  return nullptr;
}

MatmulOp FusionOp::getMatmul() {
  if (getKind() != FusionKind::Matmul)
    return nullptr;
  for (Operation &op : getBody().front())
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return matmul;
  return nullptr;
}

SmallVector<MatmulOp, 4> FusionOp::getMatmuls() {
  SmallVector<MatmulOp, 4> matmuls;
  if (getKind() == FusionKind::Matmul)
    for (Operation &op : getBody().front())
      if (auto matmul = dyn_cast<MatmulOp>(op))
        matmuls.push_back(matmul);
  return matmuls;
}

/// The matmuls of the body that `value` is computed from (through other
/// matmuls too).
static SmallVector<MatmulOp> getMatmulsReadBy(Value value) {
  SmallVector<MatmulOp> matmuls;
  SmallVector<Value> work = {value};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmuls.push_back(matmul);
    llvm::append_range(work, op->getOperands());
  }
  return matmuls;
}

MatmulOp FusionOp::getResultMatmul(unsigned result) {
  if (getKind() != FusionKind::Matmul)
    return nullptr;
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  SmallVector<MatmulOp> read = getMatmulsReadBy(yield.getValues()[result]);
  return read.size() == 1 ? read.front() : nullptr;
}

bool FusionOp::isMatmulGroup() {
  if (getMatmuls().size() < 2)
    return false;
  for (unsigned i = 0; i < getNumResults(); ++i)
    if (!getResultMatmul(i))
      return false;
  return true;
}

MatmulOp FusionOp::getPairedMatmul() {
  SmallVector<MatmulOp, 4> matmuls = getMatmuls();
  if (matmuls.size() != 2 || isMatmulGroup())
    return nullptr;
  return matmuls.back();
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError() << "expects its body to end with 'fk.yield'";
  // fusion C1
  if (body.getArgumentTypes() != getInputs().getTypes())
    return emitOpError() << "expects the body's arguments to have the types "
                            "of the inputs";
  auto yield = cast<YieldOp>(body.getTerminator());
  // fusion C2
  if (getNumResults() == 0)
    return emitOpError() << "expects at least one result";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "expects the body to yield the result types";
  // fusion C3: the kind matches the body. Loop: loop ops only. Reduction:
  // loop ops and at least one reduction. Matmul: one matmul with loop ops
  // before it (prologue) and after it (epilogue), every result of the
  // matmul's shape (the kernel writes each result at the matmul's output
  // coordinates); or a pair of matmuls of one left operand, one right
  // operand type and one result type, which one kernel computes side by
  // side; or a group of matmuls of one left operand, each result computed
  // from one of them. Attention: the same with one attention reading fusion inputs
  // directly.
  int64_t reductions = 0, matmuls = 0, attentions = 0;
  for (Operation &op : body.without_terminator()) {
    if (isLoopOp(&op))
      continue;
    bool reduces = isReduction(&op);
    reductions += reduces;
    matmuls += isa<MatmulOp>(op);
    attentions += isa<AttentionOp>(op);
    bool allowed = (getKind() == FusionKind::Reduction && reduces) ||
                   (getKind() == FusionKind::Matmul && isa<MatmulOp>(op)) ||
                   (getKind() == FusionKind::Attention && isa<AttentionOp>(op));
    if (!allowed)
      return emitOpError() << "of kind '" << stringifyFusionKind(getKind())
                           << "' cannot hold '" << op.getName() << "'";
  }
  if (getKind() == FusionKind::Reduction && reductions == 0)
    return emitOpError() << "of kind 'reduction' holds no reduction";
  if (getKind() == FusionKind::Matmul && isMatmulGroup()) {
    // A group: each result reads one of the matmuls, which share the left
    // operand and the result element type; the kernel computes each
    // product's tiles and their results.
    MatmulOp first = getMatmul();
    for (MatmulOp matmul : getMatmuls())
      if (matmul.getLhs() != first.getLhs() ||
          getElementTypeOrSelf(matmul.getType()) !=
              getElementTypeOrSelf(first.getType()))
        return emitOpError() << "of kind 'matmul' groups matmuls of one left "
                                "operand and one result element type only";
    for (unsigned i = 0; i < getNumResults(); ++i)
      if (cast<RankedTensorType>(getResult(i).getType()).getShape() !=
          cast<RankedTensorType>(getResultMatmul(i).getType()).getShape())
        return emitOpError() << "of kind 'matmul' must yield results of the "
                                "shape of the matmul each reads";
  } else if (getKind() == FusionKind::Matmul) {
    if (matmuls != 1 && matmuls != 2)
      return emitOpError() << "of kind 'matmul' needs one matmul, a pair, or "
                              "a group whose results each read one matmul, "
                              "not "
                           << matmuls << " matmuls";
    if (MatmulOp paired = getPairedMatmul();
        paired && (paired.getLhs() != getMatmul().getLhs() ||
                   paired.getType() != getMatmul().getType() ||
                   paired.getRhs().getType() != getMatmul().getRhs().getType()))
      return emitOpError() << "of kind 'matmul' pairs matmuls of one left "
                              "operand, one right operand type and one "
                              "result type only";
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(getMatmul().getType()).getShape();
    for (Type type : getResultTypes())
      if (cast<RankedTensorType>(type).getShape() != shape)
        return emitOpError() << "of kind 'matmul' must yield results of its "
                                "matmul's shape";
  }
  if (getKind() == FusionKind::Attention) {
    if (attentions != 1)
      return emitOpError() << "of kind 'attention' needs exactly one "
                              "attention, not "
                           << attentions;
    AttentionOp attention = getAttention();
    // A query, key or value may be a head split of a fusion input, which
    // the kernel reads in the input's layout.
    for (Value operand : attention->getOperands()) {
      Value input = operand == attention.getMask()
                        ? operand
                        : getAttentionOperandInput(operand);
      if (!isa<BlockArgument>(input))
        return emitOpError() << "of kind 'attention' must pass fusion inputs "
                                "(or head splits of them) to its attention "
                                "(the kernel reads them from device memory)";
    }
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(attention.getType()).getShape();
    for (Value result : yield.getValues()) {
      // A head merge is stored at the permuted coordinates.
      Value source = getHeadMergeSource(result);
      if (cast<RankedTensorType>(result.getType()).getShape() != shape &&
          (!source ||
           cast<RankedTensorType>(source.getType()).getShape() != shape))
        return emitOpError() << "of kind 'attention' must yield results of "
                                "its attention's shape (or head merges of "
                                "them)";
    }
  }
  return success();
}

#define GET_OP_CLASSES
#include "fk/IR/FkOps.cpp.inc"

//===----------------------------------------------------------------------===//
// TensorMapOp
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  size_t rank = getDims().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "expects 1 to 5 dims, not " << rank;
  if (getStrides().size() != rank - 1 || getBox().size() != rank)
    return emitOpError() << "expects " << rank - 1 << " strides and " << rank
                         << " box extents";
  if (llvm::any_of(getStrides(), [](int64_t s) {
        return s != ShapedType::kDynamic && (s <= 0 || s % 16);
      }))
    return emitOpError() << "expects strides that are positive multiples of "
                            "16 bytes";
  if (llvm::any_of(getBox(), [](int64_t b) { return b < 1 || b > 256; }))
    return emitOpError() << "expects box extents in [1, 256]";
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitOpError() << "expects a swizzle of 0, 32, 64 or 128 bytes";
  // The rules the runtime checks when it loads the artifact
  // (docs/artifact.md), checked here so that a bad map never gets there.
  auto type = cast<MemRefType>(getBuffer().getType());
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (static_cast<int64_t>(getDynamicDims().size()) !=
      llvm::count(getDims(), ShapedType::kDynamic))
    return emitOpError() << "expects one value per dynamic extent";
  if (static_cast<int64_t>(getDynamicStrides().size()) !=
      llvm::count(getStrides(), ShapedType::kDynamic))
    return emitOpError() << "expects one value per dynamic stride";
  if (llvm::any_of(getDims(), [](int64_t d) {
        return d != ShapedType::kDynamic && (d < 1 || d > (int64_t(1) << 32));
      }))
    return emitOpError() << "expects dims in [1, 2^32]";
  int64_t rowBytes = getBox()[0] * elementBytes;
  if (rowBytes % 16 || (swizzle != 0 && rowBytes > swizzle))
    return emitOpError() << "expects a box row of a multiple of 16 bytes, at "
                            "most the swizzle";
  // Extents or a buffer sized at run time: the runtime checks the reach of
  // each run.
  if (!getDynamicDims().empty() || !getDynamicStrides().empty() ||
      !type.hasStaticShape())
    return success();
  int64_t reach = getDims()[0] * elementBytes;
  for (auto [dim, stride] : llvm::zip(getDims().drop_front(), getStrides()))
    reach += (dim - 1) * stride;
  int64_t bufferBytes = type.getNumElements() * elementBytes;
  if (reach > bufferBytes)
    return emitOpError() << "addresses " << reach << " bytes of a buffer of "
                         << bufferBytes;
  return success();
}
