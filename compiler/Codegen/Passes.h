//===- Passes.h - from fusions to GPU kernels -------------------*- C++ -*-===//

#ifndef FKC_CODEGEN_PASSES_H
#define FKC_CODEGEN_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fk {

#define GEN_PASS_DECL
#include "Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Codegen/Passes.h.inc"

/// The name of the unit attribute that marks the output arguments of a
/// lowered graph.
inline constexpr llvm::StringLiteral kOutputAttrName = "fk.output";
/// Sizes given at run time, in a lowered graph: the host function's
/// symbols in the order the runtime binds them (an array of names), the
/// monomials of a symbolic argument's dynamic dimensions (its tensor
/// type's encoding), and the bytes a symbolic workspace buffer needs at
/// the largest sizes (absent where a symbol has no bound: each run places
/// the buffer).
inline constexpr llvm::StringLiteral kSymbolsAttrName = "fk.symbols";
inline constexpr llvm::StringLiteral kSymbolicDimsAttrName =
    "fk.symbolic_dims";
inline constexpr llvm::StringLiteral kLargestBytesAttrName =
    "fk.largest_bytes";
/// The name of the kernel module.
inline constexpr llvm::StringLiteral kKernelModuleName = "fk_kernels";

} // namespace mlir::fk

#endif // FKC_CODEGEN_PASSES_H
