//===- KernelWrites.cpp - which buffers a kernel may write ----------------===//

#include "Codegen/KernelWrites.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::fk;

static bool isMemoryReference(Type type) {
  return isa<BaseMemRefType, LLVM::LLVMPointerType,
             nvgpu::TensorMapDescriptorType>(type);
}

/// Whether `op` passes the memory `value` reaches on to its results, all of
/// them memory references (views, casts), which are followed instead.
static bool forwardsMemory(Operation *op, Value value) {
  bool forwards = false;
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    forwards = view.getViewSource() == value;
  else if (auto select = dyn_cast<LLVM::SelectOp>(op))
    // A choice among references (a matmul group's tensor map per tile).
    forwards = select.getCondition() != value;
  else
    forwards = isa<memref::CastOp, UnrealizedConversionCastOp>(op);
  return forwards && llvm::all_of(op->getResultTypes(), isMemoryReference);
}

/// Whether `op`, one of whose operands is `value` (memory reached from a
/// kernel argument) and which does not forward it, may write through it.
static bool mayWriteThrough(Operation *op, Value value) {
  // A descriptor only loads (into shared memory) and prefetches; a memref
  // operand of a TMA load is its destination.
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp>(op))
    return !isa<LLVM::LLVMPointerType, nvgpu::TensorMapDescriptorType>(
        value.getType());
  // The memory escapes where it is not followed: as an address (an integer,
  // a pointer, another memref), into inline assembly, or through an op that
  // declares no effects.
  if (isa<memref::ExtractAlignedPointerAsIndexOp, LLVM::InlineAsmOp>(op) ||
      llvm::any_of(op->getResultTypes(), isMemoryReference))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           (!e.getValue() || e.getValue() == value);
  });
}

SmallVector<int64_t> mlir::fk::getWrittenArguments(gpu::GPUFuncOp kernel) {
  SmallVector<int64_t> written;
  // The entry block's arguments, less workgroup and private attributions.
  unsigned parameters = kernel.getFunctionType().getNumInputs();
  for (BlockArgument argument : kernel.getArguments().take_front(parameters)) {
    if (!isMemoryReference(argument.getType()))
      continue;
    SmallVector<Value> worklist = {argument};
    bool writes = false;
    while (!writes && !worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (forwardsMemory(user, value)) {
          for (Value result : user->getResults())
            if (isMemoryReference(result.getType()))
              worklist.push_back(result);
          continue;
        }
        if (mayWriteThrough(user, value)) {
          writes = true;
          break;
        }
      }
    }
    if (writes)
      written.push_back(argument.getArgNumber());
  }
  return written;
}
