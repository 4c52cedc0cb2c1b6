//===- KernelEmission.cpp - a fusion body's value at given coordinates ---===//

#include "Codegen/KernelEmission.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fk;


FailureOr<Value> ElementEmitter::emit(Value tensor, ArrayRef<Value> coords) {
  std::vector<void *> key = {tensor.getAsOpaquePointer()};
  for (Value coord : coords)
    key.push_back(coord.getAsOpaquePointer());
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  FailureOr<Value> value = emitUncached(tensor, coords);
  if (succeeded(value))
    cache[key] = *value;
  return value;
}

Value ElementEmitter::emitIota(IotaOp iota, ArrayRef<Value> coords) {
  Type elementType = tensorType(iota.getResult()).getElementType();
  Value index = coords[iota.getDim()];
  Value asI32 = arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  if (!isa<FloatType>(elementType))
    return asI32;
  Value asFloat = arith::SIToFPOp::create(b, loc, b.getF32Type(), asI32);
  return roundToElementType(b, loc, asFloat, elementType);
}

FailureOr<Value> ElementEmitter::emitUncached(Value tensor,
                                              ArrayRef<Value> coords) {
  Type elementType = tensorType(tensor).getElementType();
  if (auto it = buffers.find(tensor); it != buffers.end())
    return load(it->second, coords, elementType);

  Operation *op = tensor.getDefiningOp();
  if (!op) {
    // An input without elements: code reading it is never executed (a loop
    // over an empty extent), yet must be built.
    if (tensorType(tensor).getNumElements() == 0)
      return buildScalarConstant(b, loc, elementType, 0.0);
    return emitError(loc) << "kernel input without a buffer";
  }

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    if (dense.isSplat())
      return buildScalarConstant(
          b, loc, elementType,
          attributeToDouble(dense.getSplatValue<Attribute>()));
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
    return load(memref, coords, elementType);
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return emitIota(iota, coords);
  if (contractionHook && isa<MatmulOp, AttentionOp>(op))
    return contractionHook(coords);
  if (reductionHook && isReduction(op))
    return reductionHook(op);
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return emit(broadcast.getOperand(),
                idx.broadcastSource(
                    coords, tensorType(broadcast.getOperand()).getShape()));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dimension i walks operand dimension perm[i].
    SmallVector<Value> source(coords.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
      source[p] = coords[i];
    return emit(transpose.getOperand(), source);
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Value linear =
        idx.linearize(coords, tensorType(reshape.getResult()).getShape());
    return emit(reshape.getOperand(),
                idx.delinearize(linear,
                                tensorType(reshape.getOperand()).getShape()));
  }
  if (op->hasTrait<OpTrait::Elementwise>()) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> value = emit(operand, coords);
      if (failed(value))
        return failure();
      operands.push_back(*value);
    }
    return buildElementwise(b, op, operands);
  }
  return op->emitOpError()
         << "cannot be computed element by element inside a kernel";
}

