//===- ReferencePasses.cpp - passes that run the reference interpreter ----===//

#include "Reference/ReferencePasses.h"
#include "Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::fk;

namespace {
/// Prints the results of every function of the module, evaluated by the
/// reference interpreter on seeded random inputs.
struct PrintReferencePass
    : public PassWrapper<PrintReferencePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintReferencePass)

  PrintReferencePass() = default;
  PrintReferencePass(const PrintReferencePass &pass) : PassWrapper(pass) {}

  StringRef getArgument() const final { return "fk-print-reference"; }
  StringRef getDescription() const final {
    return "Print the results of each function, interpreted on seeded random "
           "inputs";
  }

  void runOnOperation() override {
    ReferenceInterpreter interpreter;
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      FailureOr<SmallVector<RefTensor>> results =
          interpreter.run(fn, makeRandomInputs(fn, seed));
      if (failed(results))
        return signalPassFailure();
      for (auto [i, result] : llvm::enumerate(*results)) {
        llvm::outs() << '@' << fn.getSymName() << " result #" << i << ": ";
        printTensor(llvm::outs(), result);
        llvm::outs() << '\n';
      }
    }
    // The module is printed to stdout through another stream after the pass;
    // flush so that the two never interleave.
    llvm::outs().flush();
  }

  Option<uint64_t> seed{*this, "seed",
                        llvm::cl::desc("Seed of the random inputs"),
                        llvm::cl::init(1)};
};
} // namespace

void mlir::fk::registerReferencePasses() {
  PassRegistration<PrintReferencePass>();
}
