//===- fkc-opt.cpp - the mlir-opt of fkc ----------------------------------===//
//
// Runs fk passes and upstream passes on .mlir files; the lit tests of passes
// and of the dialect's verifiers use it.
//
//===----------------------------------------------------------------------===//

#include "fk/Transforms/Passes.h"
#include "Reference/ReferencePasses.h"
#include "fk/IR/FkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::fk::registerReferencePasses();
  mlir::fk::registerFkTransformsPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::fk::FkDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fkc optimizer driver\n", registry));
}
