//===- TestScalarElementwiseInterface.cpp - every elementwise op is one ---===//
//
// `test-fk-scalar-interface` checks that the fk ops with the Elementwise
// trait are exactly the ops of ScalarElementwiseOpInterface, so that
// folding, the reference interpreter and kernels, which ask the interface,
// cover every elementwise op, and prints their names for FileCheck.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "fk/IR/FkOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fk;

namespace {
struct TestScalarElementwiseInterface
    : PassWrapper<TestScalarElementwiseInterface, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestScalarElementwiseInterface)

  StringRef getArgument() const final { return "test-fk-scalar-interface"; }
  StringRef getDescription() const final {
    return "check that every elementwise fk op has scalar semantics";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<FkDialect>();
  }

  void runOnOperation() final {
    MLIRContext *context = &getContext();
    Dialect *fk = context->getLoadedDialect<FkDialect>();
    SmallVector<StringRef> names;
    for (RegisteredOperationName name : context->getRegisteredOperations()) {
      if (&name.getDialect() != fk)
        continue;
      bool isElementwise = name.hasTrait<OpTrait::Elementwise>();
      bool hasSemantics = name.hasInterface<ScalarElementwiseOpInterface>();
      if (isElementwise != hasSemantics) {
        getOperation().emitError()
            << "'" << name << "' "
            << (isElementwise ? "is elementwise but has no scalar semantics"
                              : "has scalar semantics but is not elementwise");
        signalPassFailure();
      }
      if (hasSemantics)
        names.push_back(name.getStringRef());
    }
    llvm::sort(names);
    for (StringRef name : names)
      llvm::outs() << "scalar semantics: " << name << "\n";
    llvm::outs() << names.size() << " elementwise ops\n";
  }
};
} // namespace

void mlir::fk::registerScalarInterfaceTest() {
  PassRegistration<TestScalarElementwiseInterface>();
}
