//===- NvvmLowering.h - kernels to NVVM and PTX -----------------*- C++ -*-===//
//
// The last steps of the compiler use upstream MLIR: the kernel module is
// converted to the LLVM and NVVM dialects, then LLVM's NVPTX backend turns it
// into PTX (`gpu-module-to-binary` with format `isa`), linking CUDA's
// libdevice for the math functions.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_NVVMLOWERING_H
#define FKC_CODEGEN_NVVMLOWERING_H

#include "Codegen/TargetDescription.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include <string>

namespace mlir::fk {

/// What the PTX is generated for.
struct TargetOptions {
  /// The GPU architecture: `sm_` then its compute capability, with an `a`
  /// suffix for architecture-specific features (sm_90a).
  std::string chip = "sm_90a";
  /// The CUDA toolkit holding nvvm/libdevice/libdevice.10.bc, which the
  /// math functions are linked from; empty: see findCudaToolkit.
  std::string cudaPath;
  /// LLVM optimization level of the kernels (0-3).
  unsigned optLevel = 3;
};

/// Whether `chip` is supported; otherwise sets `message` to why not.
bool isSupportedChip(llvm::StringRef chip, std::string &message);

/// The PTX ISA version to emit for `chip`, as an LLVM feature ("+ptx80").
std::string getPtxFeatures(llvm::StringRef chip);

/// The first of $CUDA_HOME, $CUDA_PATH and /usr/local/cuda that holds
/// libdevice, or "" if none does (kernels that need no math function still
/// compile; the artifact writer reports those that do).
std::string findCudaToolkit();

/// The path of libdevice in the toolkit at `cudaPath`.
std::string getLibdevicePath(llvm::StringRef cudaPath);

/// Converts the kernel module to the LLVM and NVVM dialects.
void addNvvmLoweringPasses(OpPassManager &pm, const TargetOptions &target);

/// Replaces the kernel module by a `gpu.binary` holding its PTX.
void addPtxEmissionPasses(OpPassManager &pm, const TargetOptions &target);

/// Registers the dialects, interfaces and translations these passes need.
void registerNvvmLoweringDependencies(DialectRegistry &registry);

} // namespace mlir::fk

#endif // FKC_CODEGEN_NVVMLOWERING_H
