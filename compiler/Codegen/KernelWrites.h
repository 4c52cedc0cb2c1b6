//===- KernelWrites.h - which buffers a kernel may write -------*- C++ -*-===//
//
// The runtime may run two launches of a graph at once where neither writes
// memory the other touches (docs/artifact.md, "CUDA graphs"). What a
// launch writes is read off its kernel's body: an argument is written where
// an op of the kernel may write memory through it or through a view of it.
// The analysis errs towards "written": it follows views and casts of an
// argument, and counts as a write any other op through which the memory
// escapes (an address taken as an integer or pointer, a memref result that
// is not a view, inline assembly) or that declares no memory effects.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_KERNELWRITES_H
#define FKC_CODEGEN_KERNELWRITES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fk {

/// The name of the gpu.launch_func attribute that lists the kernel
/// operands the launch may write (an array of i64 operand indices).
inline constexpr llvm::StringLiteral kWrittenOperandsAttrName = "fk.writes";

/// The indices of `kernel`'s arguments through which it may write device
/// memory: memrefs (buffers) and pointers (tensor map descriptors) whose
/// uses include an op that may write through them. Integer arguments are
/// never written.
SmallVector<int64_t> getWrittenArguments(gpu::GPUFuncOp kernel);

} // namespace mlir::fk

#endif // FKC_CODEGEN_KERNELWRITES_H
