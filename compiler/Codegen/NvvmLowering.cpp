//===- NvvmLowering.cpp - kernels to NVVM and PTX -------------------------===//
//
// The one file that includes the upstream conversion passes' header (it is
// large and slow to compile).
//
//===----------------------------------------------------------------------===//

#include "Codegen/NvvmLowering.h"
#include "Codegen/Passes.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

namespace mlir::fk {
#define GEN_PASS_DEF_FKATTACHNVVMTARGET
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

std::string mlir::fk::getPtxFeatures(llvm::StringRef chip) {
  // The oldest PTX ISA that knows the architecture: 8.0 covers up to sm_90a.
  if (chip.starts_with("sm_120"))
    return "+ptx87";
  if (chip.starts_with("sm_100"))
    return "+ptx86";
  return "+ptx80";
}

std::string mlir::fk::getLibdevicePath(llvm::StringRef cudaPath) {
  llvm::SmallString<128> path(cudaPath);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return path.str().str();
}

std::string mlir::fk::findCudaToolkit() {
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(variable))
      if (*value && llvm::sys::fs::exists(getLibdevicePath(value)))
        return value;
  if (llvm::sys::fs::exists(getLibdevicePath("/usr/local/cuda")))
    return "/usr/local/cuda";
  return "";
}

namespace {
struct AttachNvvmTargetPass
    : fk::impl::FkAttachNvvmTargetBase<AttachNvvmTargetPass> {
  using FkAttachNvvmTargetBase::FkAttachNvvmTargetBase;

  void runOnOperation() override {
    FailureOr<TargetAttr> target =
        getTarget(getOperation(), "fk-attach-nvvm-target");
    if (failed(target))
      return signalPassFailure();
    StringRef chip = target->getChip();
    auto nvvmTarget =
        NVVM::NVVMTargetAttr::get(&getContext(), optLevel,
                                  "nvptx64-nvidia-cuda", chip,
                                  getPtxFeatures(chip));
    for (auto kernels : getOperation().getOps<gpu::GPUModuleOp>())
      kernels.setTargetsAttr(ArrayAttr::get(&getContext(), {nvvmTarget}));
  }
};
} // namespace

void mlir::fk::addNvvmLoweringPasses(OpPassManager &pm,
                                     const PtxOptions &ptx) {
  FkAttachNvvmTargetOptions attach;
  attach.optLevel = ptx.optLevel;
  pm.addPass(createFkAttachNvvmTarget(attach));

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Tensor-core kernels: mbarriers, TMA and wgmma to NVVM. First, because
  // storing the accumulator becomes memref ops that the passes below lower.
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  // The kernels' flat views (memref.collapse_shape) become plain pointers.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  ConvertGpuOpsToNVVMOpsOptions convert;
  // Kernels take one pointer per buffer, as the artifact's launches pass.
  convert.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(convert));
  // NVVM ops that have no LLVM intrinsic (mbarrier waits) become inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::fk::addPtxEmissionPasses(OpPassManager &pm,
                                    const PtxOptions &ptx) {
  GpuModuleToBinaryPassOptions options;
  options.compilationTarget = "isa";
  options.toolkitPath = ptx.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(options));
}

void mlir::fk::registerNvvmLoweringDependencies(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect,
                  scf::SCFDialect>();
  // convert-gpu-to-nvvm lowers the ops of every dialect that offers these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
