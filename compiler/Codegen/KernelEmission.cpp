//===- KernelEmission.cpp - a fusion body's value at given coordinates ---===//

#include "Codegen/KernelEmission.h"
#include "fk/IR/FkGatherSemantics.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/IR/SymbolTable.h"
#include <memory>

using namespace mlir;
using namespace mlir::fk;


namespace {
/// One value being emitted: the element of `tensor` at `coords`. A shape op
/// forwards to the element of its operand at other coordinates; an
/// elementwise op waits for the elements of its operands; a gather first
/// waits for its index element (`indexed`), then forwards.
struct PendingElement {
  Value tensor;
  SmallVector<Value> coords;
  bool forwards = false;
  Operation *elementwise = nullptr;
  SmallVector<Value> operands;
  std::unique_ptr<ElementStep> indexed;
};
} // namespace

static std::vector<void *> cacheKey(Value tensor, ArrayRef<Value> coords) {
  std::vector<void *> key = {tensor.getAsOpaquePointer()};
  for (Value coord : coords)
    key.push_back(coord.getAsOpaquePointer());
  return key;
}

// A fusion may chain many thousands of ops, so the walk keeps its own stack
// rather than recursing once per op. It visits operands in program order,
// depth first, as a recursive walk would, so the IR it builds is the same.
FailureOr<Value> ElementEmitter::emit(Value tensor, ArrayRef<Value> coords) {
  SmallVector<PendingElement> stack;
  std::optional<Value> finished; // the value of the element just popped
  auto push = [&](Value t, ArrayRef<Value> c) {
    PendingElement element;
    element.tensor = t;
    element.coords.assign(c.begin(), c.end());
    stack.push_back(std::move(element));
  };
  auto finish = [&](Value value) {
    PendingElement &top = stack.back();
    cache[cacheKey(top.tensor, top.coords)] = value;
    finished = value;
    stack.pop_back();
  };

  push(tensor, coords);
  while (!stack.empty()) {
    PendingElement &top = stack.back();
    if (finished) {
      Value value = *finished;
      finished.reset();
      if (top.forwards) {
        finish(value);
        continue;
      }
      if (top.indexed) {
        // The index element is in: forward to the element it selects.
        ElementStep step = std::move(*top.indexed);
        top.indexed.reset();
        Value &coordinate = gatherCoordinates[{value, step.indexedSize}];
        if (!coordinate)
          coordinate = buildGatherCoordinate(b, loc, value, step.indexedSize);
        step.sourceCoords[step.indexedDim] = coordinate;
        top.forwards = true;
        push(step.source, step.sourceCoords);
        continue;
      }
      top.operands.push_back(value);
    } else if (!top.forwards && !top.elementwise && !top.indexed) {
      // First visit: a cached or leaf value, or what the element needs.
      if (auto it = cache.find(cacheKey(top.tensor, top.coords));
          it != cache.end()) {
        finish(it->second);
        continue;
      }
      FailureOr<ElementStep> step = emitStep(top.tensor, top.coords);
      if (failed(step))
        return failure();
      if (step->value) {
        finish(step->value);
        continue;
      }
      if (step->elementwise) {
        top.elementwise = step->elementwise;
      } else if (step->indexSource) {
        Value index = step->indexSource;
        SmallVector<Value> indexCoords = step->indexCoords;
        top.indexed = std::make_unique<ElementStep>(std::move(*step));
        push(index, indexCoords);
        continue;
      } else {
        top.forwards = true;
        Value source = step->source;
        SmallVector<Value> sourceCoords = std::move(step->sourceCoords);
        push(source, sourceCoords);
        continue;
      }
    }
    // An elementwise op: its next operand, or the op once all are in.
    Operation *op = stack.back().elementwise;
    size_t done = stack.back().operands.size();
    if (done < op->getNumOperands()) {
      SmallVector<Value> sameCoords = stack.back().coords;
      push(op->getOperand(done), sameCoords);
      continue;
    }
    FailureOr<Value> value = buildElementwise(b, op, stack.back().operands);
    if (failed(value))
      return failure();
    finish(*value);
  }
  return *finished;
}

Value ElementEmitter::emitIota(IotaOp iota, ArrayRef<Value> coords) {
  Type elementType = tensorType(iota.getResult()).getElementType();
  Value index = coords[iota.getDim()];
  Type integerType = isa<FloatType>(elementType) ? b.getI32Type() : elementType;
  Value asInteger = arith::IndexCastOp::create(b, loc, integerType, index);
  if (!isa<FloatType>(elementType))
    return asInteger;
  Value asFloat = arith::SIToFPOp::create(b, loc, b.getF32Type(), asInteger);
  return roundToElementType(b, loc, asFloat, elementType);
}

FailureOr<ElementStep> ElementEmitter::emitStep(Value tensor,
                                                ArrayRef<Value> coords) {
  Type elementType = tensorType(tensor).getElementType();
  if (auto it = buffers.find(tensor); it != buffers.end())
    return ElementStep::leaf(load(it->second, coords, elementType));

  Operation *op = tensor.getDefiningOp();
  if (!op) {
    // An input without elements: code reading it is never executed (a loop
    // over an empty extent), yet must be built.
    if (tensorType(tensor).getNumElements() == 0)
      return ElementStep::leaf(buildScalarConstant(b, loc, elementType, 0.0));
    return emitError(loc) << "kernel input without a buffer";
  }

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    if (dense.isSplat())
      return ElementStep::leaf(buildScalarConstant(
          b, loc, elementType,
          attributeToDouble(dense.getSplatValue<Attribute>())));
    DenseElementsAttr stored = dense;
    if (elementType.isSignlessInteger(1))
      stored = dense.mapValues(b.getI8Type(), [](const APInt &bit) {
        return APInt(8, bit.getZExtValue());
      });
    auto memrefType =
        MemRefType::get(tensorType(tensor).getShape(), stored.getElementType());
    // One global per distinct constant of the module, however many
    // elements or kernels read it.
    memref::GlobalOp global;
    for (auto existing : kernels.getOps<memref::GlobalOp>())
      if (existing.getConstant() && existing.getType() == memrefType &&
          existing.getInitialValueAttr() == stored) {
        global = existing;
        break;
      }
    if (!global) {
      // Created detached: inserting it into the symbol table then renames
      // it if another constant took the name.
      OpBuilder detached(b.getContext());
      global = memref::GlobalOp::create(
          detached, loc, "fk_constant", b.getStringAttr("private"),
          memrefType, stored, /*constant=*/true, /*alignment=*/IntegerAttr());
      SymbolTable(kernels).insert(global, kernels.getBody()->begin());
    }
    Value memref =
        memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
    return ElementStep::leaf(load(memref, coords, elementType));
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return ElementStep::leaf(emitIota(iota, coords));
  if (contractionHook && isa<MatmulOp, AttentionOp>(op))
    return ElementStep::leaf(contractionHook(coords));
  if (reductionHook && isReduction(op))
    return ElementStep::leaf(reductionHook(op));
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return ElementStep::forward(
        broadcast.getOperand(),
        idx.broadcastSource(coords,
                            tensorType(broadcast.getOperand()).getShape()));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dimension i walks operand dimension perm[i].
    SmallVector<Value> source(coords.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
      source[p] = coords[i];
    return ElementStep::forward(transpose.getOperand(), source);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // [a..., i..., b...] reads table[a..., index(indices[i...]), b...].
    int64_t axis = gather.getAxis();
    int64_t indexRank = tensorType(gather.getIndices()).getRank();
    ArrayRef<Value> all(coords);
    SmallVector<Value> source(all.take_front(axis));
    source.push_back(Value()); // the gathered coordinate, once known
    llvm::append_range(source, all.drop_front(axis + indexRank));
    return ElementStep::indexed(
        gather.getTable(), source, axis,
        tensorType(gather.getTable()).getDimSize(axis), gather.getIndices(),
        all.slice(axis, indexRank));
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Value linear =
        idx.linearize(coords, tensorType(reshape.getResult()).getShape());
    return ElementStep::forward(
        reshape.getOperand(),
        idx.delinearize(linear, tensorType(reshape.getOperand()).getShape()));
  }
  if (isa<ScalarElementwiseOpInterface>(op))
    return ElementStep::elementwiseOf(op);
  return op->emitOpError()
         << "cannot be computed element by element inside a kernel";
}

