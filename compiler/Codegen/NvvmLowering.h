//===- NvvmLowering.h - kernels to NVVM and PTX -----------------*- C++ -*-===//
//
// The last steps of the compiler use upstream MLIR: the kernel module is
// converted to the LLVM and NVVM dialects, then LLVM's NVPTX backend turns it
// into PTX (`gpu-module-to-binary` with format `isa`) for the chip of the
// module's `fk.target`, linking CUDA's libdevice for the math functions.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_NVVMLOWERING_H
#define FKC_CODEGEN_NVVMLOWERING_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include <string>

namespace mlir::fk {

/// How the PTX is generated (what for is the module's `fk.target`).
struct PtxOptions {
  /// The CUDA toolkit holding nvvm/libdevice/libdevice.10.bc, which the
  /// math functions are linked from; empty: see findCudaToolkit.
  std::string cudaPath;
  /// LLVM optimization level of the kernels (0-3).
  unsigned optLevel = 3;
};

/// The PTX ISA version to emit for `chip`, as an LLVM feature ("+ptx80").
std::string getPtxFeatures(llvm::StringRef chip);

/// The first of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda that holds
/// libdevice, or "" if none does (kernels that need no math function still
/// compile; the artifact writer reports those that do).
std::string findCudaToolkit();

/// The path of libdevice in the toolkit at `cudaPath`.
std::string getLibdevicePath(llvm::StringRef cudaPath);

/// Converts the kernel module to the LLVM and NVVM dialects, for the
/// module's target.
void addNvvmLoweringPasses(OpPassManager &pm, const PtxOptions &ptx);

/// Replaces the kernel module by a `gpu.binary` holding its PTX.
void addPtxEmissionPasses(OpPassManager &pm, const PtxOptions &ptx);

/// Registers the dialects, interfaces and translations these passes need.
void registerNvvmLoweringDependencies(DialectRegistry &registry);

} // namespace mlir::fk

#endif // FKC_CODEGEN_NVVMLOWERING_H
