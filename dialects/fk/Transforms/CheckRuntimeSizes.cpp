//===- CheckRuntimeSizes.cpp - ops whose kernels read sizes at run time ---===//
//
// A symbol left without a size by fk-bind-dims is read by the kernels at
// run time, which only some kernels can do (whyNotRuntimeSized,
// fk/IR/FkKernelLimits.h). This check runs after fk-recognize-attention,
// so that it judges the ops the kernels are built for: the matmuls and
// softmax of an attention pattern are one fk.attention by then.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkKernelLimits.h"
#include "fk/Transforms/Passes.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKCHECKRUNTIMESIZES
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

namespace {
struct CheckRuntimeSizesPass
    : fk::impl::FkCheckRuntimeSizesBase<CheckRuntimeSizesPass> {
  void runOnOperation() override {
    bool valid = true;
    getOperation().walk([&](Operation *op) {
      std::string why = whyNotRuntimeSized(op);
      if (why.empty())
        return;
      emitNeedsSizesError(op, why);
      valid = false;
    });
    if (!valid)
      signalPassFailure();
  }
};
} // namespace
