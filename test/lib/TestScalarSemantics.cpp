//===- TestScalarSemantics.cpp - both semantics of an op agree ------------===//
//
// `test-fk-scalar-semantics` checks that an elementwise op's two statements
// of its semantics are one function: for every elementwise op of the input
// whose operands are constants, and every element, the value of
// `evaluateElementwise` (folding, the reference interpreter) must equal what
// the op's scalar ops (`buildScalar`, in kernels) fold to on the same
// element, rounded to the dtype,
// within the rounding of f32 arithmetic (kernels compute floats in f32, the
// interpreter in double). Upstream's folders decline some elements (the
// logarithm of a negative number, a conversion that overflows): those are
// counted, not compared. It prints one line per op checked.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fk;

namespace {
/// The elements of a constant operand, as doubles.
std::optional<SmallVector<double>> constantElements(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = constant.getValue().tryGetValues<Attribute>();
  if (!elements)
    return std::nullopt;
  SmallVector<double> values;
  for (Attribute element : *elements)
    values.push_back(attributeToDouble(element));
  return values;
}

/// How far apart the two semantics may be, relative to the value: for f32,
/// what cancellation in a formula computed in f32 costs (gelu near -2.5
/// loses about 20 units in the last place); for f16 and bf16, whose values
/// are f32 results rounded once, two units in the last place; none for
/// integers.
double relativeTolerance(Type elementType) {
  if (elementType.isF32())
    return std::ldexp(1.0, -16);
  if (elementType.isF16())
    return std::ldexp(1.0, -9);
  if (elementType.isBF16())
    return std::ldexp(1.0, -6);
  return 0.0;
}

bool agree(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (a == b)
    return true;
  if (std::isinf(a) || std::isinf(b))
    return false;
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

struct TestScalarSemantics
    : PassWrapper<TestScalarSemantics, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestScalarSemantics)

  StringRef getArgument() const final { return "test-fk-scalar-semantics"; }
  StringRef getDescription() const final {
    return "check that each elementwise op's evaluation and lowering agree";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<FkDialect, arith::ArithDialect, math::MathDialect,
                    func::FuncDialect>();
  }

  /// What the scalar ops of `op` fold to on one element of each operand,
  /// rounded to the result's dtype; nullopt if upstream's folders stop
  /// short of a constant.
  std::optional<double> foldLowering(Operation *op, ArrayRef<double> operands) {
    MLIRContext *context = op->getContext();
    OpBuilder b(context);
    Location loc = op->getLoc();
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    b.setInsertionPointToEnd(scratch->getBody());
    Type resultElement = getElementTypeOrSelf(op->getResult(0).getType());
    Type computeType = getComputeType(resultElement);
    auto fn = func::FuncOp::create(b, loc, "element",
                                   b.getFunctionType({}, {computeType}));
    b.setInsertionPointToEnd(fn.addEntryBlock());
    SmallVector<Value> scalars;
    for (auto [value, operand] : llvm::zip_equal(operands, op->getOperands()))
      scalars.push_back(
          buildScalarConstant(b, loc, getElementTypeOrSelf(operand), value));
    // The op's own scalar ops, before the rounding to f16 or bf16 that every
    // op shares: upstream does not fold truncations that overflow.
    func::ReturnOp::create(
        b, loc, cast<ScalarElementwiseOpInterface>(op).buildScalar(b, scalars));
    (void)applyPatternsGreedily(fn, RewritePatternSet(context));
    Value folded =
        cast<func::ReturnOp>(fn.getBody().front().getTerminator()).getOperand(0);
    auto constant = folded.getDefiningOp<arith::ConstantOp>();
    if (!constant)
      return std::nullopt;
    return roundToElementType(attributeToDouble(constant.getValue()),
                              resultElement);
  }

  /// Checks every element of `op`; false after an error at `op`.
  bool check(Operation *op) {
    SmallVector<SmallVector<double>> operands;
    for (Value operand : op->getOperands()) {
      std::optional<SmallVector<double>> values = constantElements(operand);
      if (!values)
        return true; // Not a case of this test.
      operands.push_back(std::move(*values));
    }
    Type resultElement = getElementTypeOrSelf(op->getResult(0).getType());
    size_t count = operands.empty() ? 0 : operands.front().size();
    size_t agreeing = 0;
    for (size_t i = 0; i < count; ++i) {
      SmallVector<double> element;
      for (const SmallVector<double> &values : operands)
        element.push_back(values[i]);
      double evaluated = *evaluateElementwise(op, element);
      std::optional<double> lowered = foldLowering(op, element);
      if (!lowered)
        continue;
      ++agreeing;
      if (!agree(evaluated, *lowered, relativeTolerance(resultElement))) {
        op->emitError() << "element #" << i << ": evaluateScalar gives "
                        << evaluated << ", buildScalar folds to " << *lowered;
        return false;
      }
    }
    llvm::outs() << op->getName() << " " << resultElement << ": " << agreeing
                 << " elements agree, " << count - agreeing << " not folded\n";
    return true;
  }

  void runOnOperation() final {
    getOperation().walk([&](ScalarElementwiseOpInterface op) {
      if (!check(op))
        signalPassFailure();
    });
  }
};
} // namespace

void mlir::fk::registerScalarSemanticsTest() {
  PassRegistration<TestScalarSemantics>();
}
