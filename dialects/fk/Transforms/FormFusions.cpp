//===- FormFusions.cpp - one fusion per computing op ----------------------===//
//
// The simplest kernel plan: every op runs as a kernel of its own. Splat
// constants are not kernels; they are cloned into the fusions that use them.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkInout.h"
#include "fk/IR/FkOps.h"
#include "fk/Transforms/FusionBuilder.h"
#include "fk/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKFORMFUSIONS
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

bool mlir::fk::isSplatConstant(Operation *op) {
  auto constant = dyn_cast_or_null<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

static bool isSplatConstantValue(Value value) {
  return isSplatConstant(value.getDefiningOp());
}

static FusionKind kindOf(Operation *op) {
  if (isa<MatmulOp>(op))
    return FusionKind::Matmul;
  if (isa<AttentionOp>(op))
    return FusionKind::Attention;
  if (isReduction(op))
    return FusionKind::Reduction;
  return FusionKind::Loop;
}

FusionOp mlir::fk::buildFusion(OpBuilder &b, Location loc, FusionKind kind,
                               ArrayRef<Operation *> ops, ValueRange results) {
  // The inputs: values used by `ops` that are defined elsewhere, except
  // splat constants, which are cloned in.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> splats;
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  auto addUse = [&](Value v) {
    if (v.getDefiningOp() && inside.contains(v.getDefiningOp()))
      return;
    if (isSplatConstantValue(v))
      splats.insert(v.getDefiningOp());
    else
      inputs.insert(v);
  };
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      addUse(operand);
  for (Value result : results)
    addUse(result);

  auto fusion = FusionOp::create(b, loc, TypeRange(ValueRange(results)), kind,
                                 inputs.getArrayRef());
  Block *body = b.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  OpBuilder inner = OpBuilder::atBlockBegin(body);
  for (Operation *splat : splats)
    inner.clone(*splat, mapping);
  for (Operation *op : ops)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  YieldOp::create(inner, loc, yielded);
  return fusion;
}

FusionOp mlir::fk::mergeFusions(OpBuilder &b, Location loc, FusionKind kind,
                                FusionOp first, FusionOp second,
                                bool yieldFirst) {
  SmallVector<Value> inputs(first.getInputs());
  for (Value input : second.getInputs())
    if (input.getDefiningOp() != first && !llvm::is_contained(inputs, input))
      inputs.push_back(input);
  SmallVector<Type> types;
  if (yieldFirst)
    llvm::append_range(types, first.getResultTypes());
  llvm::append_range(types, second.getResultTypes());
  auto fusion = FusionOp::create(b, loc, types, kind, inputs);
  Block *body = b.createBlock(&fusion.getBody());
  // Outer values (the inputs, then `first`'s results) to the body's.
  IRMapping outer;
  for (Value input : inputs)
    outer.map(input, body->addArgument(input.getType(), input.getLoc()));
  SmallVector<Value> yielded;
  for (FusionOp part : {first, second}) {
    IRMapping mapping;
    for (auto [arg, input] :
         llvm::zip(part.getBody().getArguments(), part.getInputs()))
      mapping.map(arg, outer.lookup(input));
    for (Operation &op : part.getBody().front().without_terminator())
      b.clone(op, mapping);
    auto values = cast<YieldOp>(part.getBody().front().getTerminator())
                      .getValues();
    for (auto [result, value] : llvm::zip(part.getResults(), values)) {
      Value inner = mapping.lookup(value);
      if (part == first)
        outer.map(result, inner);
      if (part == second || yieldFirst)
        yielded.push_back(inner);
    }
  }
  YieldOp::create(b, loc, yielded);
  return fusion;
}

/// Whether no fusion after `writer` reads `parameter` (its old value).
static bool noLaterReader(FusionOp writer, BlockArgument parameter) {
  for (Operation *later = writer->getNextNode(); later;
       later = later->getNextNode())
    if (auto fusion = dyn_cast<FusionOp>(later))
      if (llvm::is_contained(fusion.getInputs(), Value(parameter)))
        return false;
  return true;
}

/// Whether every result of loop fusion `writer` is `update_slice(p, ...)`
/// of an inout parameter `p` it reads nowhere else, returned as p's new
/// value, with windows of one shape, and no later fusion reads any such p:
/// then its kernel need only write the windows into the parameters'
/// buffers. (A decode step's key and value updates share a kernel.)
static bool writesWindowsOnly(FusionOp writer, func::FuncOp fn) {
  if (writer.getKind() != FusionKind::Loop)
    return false;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  Block &body = writer.getBody().front();
  std::optional<ArrayRef<int64_t>> window;
  for (auto [index, yielded] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    auto update = yielded.getDefiningOp<UpdateSliceOp>();
    auto dest = update ? dyn_cast<BlockArgument>(update.getDest())
                       : BlockArgument();
    if (!dest || dest.getOwner() != &body || !dest.hasOneUse())
      return false;
    auto parameter =
        dyn_cast<BlockArgument>(writer.getInputs()[dest.getArgNumber()]);
    if (!parameter || parameter.getOwner() != &fn.getBody().front() ||
        llvm::count(writer.getInputs(), Value(parameter)) != 1 ||
        !noLaterReader(writer, parameter))
      return false;
    // The result is returned as the parameter's new value.
    Value result = writer.getResult(index);
    bool returnedAsUpdate = llvm::any_of(ret->getOpOperands(), [&](OpOperand &o) {
      return o.get() == result &&
             getUpdatedParameter(fn, o.getOperandNumber()) ==
                 parameter.getArgNumber();
    });
    if (!returnedAsUpdate)
      return false;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(update.getUpdate().getType()).getShape();
    if (window && *window != shape)
      return false;
    window = shape;
  }
  return window.has_value();
}

/// Whether the fusion writing the new value of inout parameter `parameter`
/// can write it into the parameter's buffer: it reads the parameter, if at
/// all, only at the coordinates it writes (through elementwise ops), and no
/// later fusion reads the old value.
static bool canWriteInPlace(FusionOp writer, BlockArgument parameter) {
  if (!noLaterReader(writer, parameter))
    return false;
  for (auto [input, argument] :
       llvm::zip(writer.getInputs(), writer.getBody().getArguments())) {
    if (input != parameter)
      continue;
    SmallVector<Value> worklist = {argument};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (isa<YieldOp>(user))
          continue;
        if (!isa<ScalarElementwiseOpInterface>(user))
          return false;
        llvm::append_range(worklist, user->getResults());
      }
    }
  }
  return true;
}

/// Makes sure the new value of every inout parameter can be written into
/// the parameter's own buffer (the runtime passes one buffer for both): an
/// update_slice of the parameter writes only its window there
/// (fk.window_in_place), and a fusion that cannot write in place
/// (canWriteInPlace) writes a temporary, which a copy fusion, last of all,
/// writes into the parameter.
static void copyUnsafeInoutUpdates(func::FuncOp fn) {
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  OpBuilder b(fn.getContext());
  for (OpOperand &operand : ret->getOpOperands()) {
    std::optional<unsigned> parameter =
        getUpdatedParameter(fn, operand.getOperandNumber());
    auto writer = operand.get().getDefiningOp<FusionOp>();
    if (!parameter || !writer)
      continue;
    BlockArgument argument = fn.getArgument(*parameter);
    if (writer->hasAttr(kWindowInPlaceAttrName))
      continue;
    if (writesWindowsOnly(writer, fn)) {
      writer->setAttr(kWindowInPlaceAttrName, b.getUnitAttr());
      continue;
    }
    if (canWriteInPlace(writer, argument))
      continue;
    b.setInsertionPoint(ret);
    FusionOp copy = buildFusion(b, operand.get().getLoc(), FusionKind::Loop,
                                {}, operand.get());
    operand.set(copy.getResult(0));
  }
}

void mlir::fk::formCopyFusions(func::FuncOp fn) {
  Block &block = fn.getBody().front();
  OpBuilder b(fn.getContext());
  // Every result must be written by a kernel of its own: copy arguments,
  // splat constants and values returned twice.
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  llvm::SmallPtrSet<Value, 8> returned;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    bool written = value.getDefiningOp<FusionOp>() != nullptr;
    if (written && returned.insert(value).second)
      continue;
    b.setInsertionPoint(ret);
    FusionOp copy =
        buildFusion(b, value.getLoc(), FusionKind::Loop, {}, value);
    operand.set(copy.getResult(0));
  }
  copyUnsafeInoutUpdates(fn);

}

void mlir::fk::formContractionOperandFills(func::FuncOp fn) {
  OpBuilder b(fn.getContext());
  DenseMap<Value, Value> filled;
  for (Operation &op : fn.getBody().front()) {
    if (!isa<MatmulOp, AttentionOp>(op))
      continue;
    for (OpOperand &operand : op.getOpOperands()) {
      Value value = operand.get();
      if (!isSplatConstantValue(value))
        continue;
      Value &fill = filled[value];
      if (!fill) {
        b.setInsertionPointAfter(value.getDefiningOp());
        fill = buildFusion(b, value.getLoc(), FusionKind::Loop, {}, value)
                   .getResult(0);
      }
      operand.set(fill);
    }
  }
}

namespace {
struct FormFusionsPass : fk::impl::FkFormFusionsBase<FormFusionsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // A declaration has no graph to wrap.
    if (fn.isExternal())
      return;
    Block &block = fn.getBody().front();
    OpBuilder b(&getContext());

    formContractionOperandFills(fn);

    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<FusionOp, func::ReturnOp>(op) ||
          (isa<ConstantOp>(op) && isSplatConstantValue(op.getResult(0))))
        continue;
      b.setInsertionPoint(&op);
      FusionOp fusion = buildFusion(b, op.getLoc(), kindOf(&op), {&op},
                                    op.getResults());
      op.replaceAllUsesWith(fusion.getResults());
      op.erase();
    }

    formCopyFusions(fn);

    for (Operation &op : llvm::make_early_inc_range(block))
      if (isa<ConstantOp>(op) && op.use_empty())
        op.erase();
  }
};
} // namespace
