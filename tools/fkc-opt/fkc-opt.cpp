//===- fkc-opt.cpp - the mlir-opt of fkc ----------------------------------===//
//
// Runs fk passes, the codegen passes and upstream passes on .mlir files; the
// lit tests of passes and of the dialect's verifiers use it.
//
//===----------------------------------------------------------------------===//

#include "Codegen/Passes.h"
#include "fk/Transforms/Passes.h"
#include "Reference/ReferencePasses.h"
#include "TestPasses.h"
#include "fk/IR/FkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::fk::registerReferencePasses();
  mlir::fk::registerFkTransformsPasses();
  mlir::fk::registerFkCodegenPasses();
  mlir::fk::registerTestPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::fk::FkDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::DLTIDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::NVVM::NVVMDialect, mlir::nvgpu::NVGPUDialect,
                  mlir::scf::SCFDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fkc optimizer driver\n", registry));
}
