//===- KernelWrites.cpp - which buffers a kernel may write ----------------===//

#include "Codegen/KernelWrites.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::fk;

/// Whether `op`, one of whose operands is `value` (memory reached from a
/// kernel argument), may write through it.
static bool mayWriteThrough(Operation *op, Value value) {
  // A descriptor only loads (into shared memory) and prefetches.
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp>(op))
    return llvm::any_of(op->getOperands(), [&](Value operand) {
      return operand == value && !isa<LLVM::LLVMPointerType,
                                      nvgpu::TensorMapDescriptorType>(
                                     value.getType());
    });
  // The address as an integer: whatever uses it is out of sight.
  if (isa<memref::ExtractAlignedPointerAsIndexOp>(op))
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

/// Whether `op` passes the memory `value` reaches on to its results (views,
/// casts), which are followed instead of counting the op as a write.
static bool forwardsMemory(Operation *op, Value value) {
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    return view.getViewSource() == value;
  return isa<memref::CastOp, UnrealizedConversionCastOp>(op);
}

static bool isMemoryReference(Type type) {
  return isa<BaseMemRefType, LLVM::LLVMPointerType,
             nvgpu::TensorMapDescriptorType>(type);
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
