//===- MergedMatmuls.cpp - what matmul pairs and groups both ask ----------===//

#include "Codegen/MergedMatmuls.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/TensorCoreMatmul.h"
#include "fk/Analysis/Descriptions.h"
#include "fk/IR/FkInout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fk;

TargetAttr mlir::fk::getMergeTarget(func::FuncOp fn) {
  auto module = fn->getParentOfType<ModuleOp>();
  if (!module || fn.isExternal())
    return TargetAttr();
  return module->getAttrOfType<TargetAttr>(kTargetAttrName);
}

void mlir::fk::remarkMergedMatmuls(func::FuncOp fn, int64_t merged,
                                   StringRef kind) {
  int64_t kernels = llvm::range_size(fn.getBody().front().getOps<FusionOp>());
  fn.emitRemark() << llvm::formatv("graph '{0}': {1} matmul {2}{3}, {4} "
                                   "kernel{5}",
                                   fn.getSymName(), merged, kind,
                                   merged == 1 ? "" : "s", kernels,
                                   kernels == 1 ? "" : "s");
}

Value mlir::fk::getFusionOuterValue(FusionOp fusion, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &fusion.getBody().front())
    return Value();
  return fusion.getInputs()[arg.getArgNumber()];
}

std::string mlir::fk::describeMatmul(MatmulOp matmul) {
  std::string text = describeOp(matmul);
  if (auto at = dyn_cast<FileLineColLoc>(matmul.getLoc()))
    text += llvm::formatv(" ({0}:{1})", at.getLine(), at.getColumn()).str();
  return text;
}

std::string mlir::fk::whyNotMergeableMatmul(FusionOp fusion,
                                            TargetAttr target) {
  if (fusion.getPairedMatmul())
    return "it is a pair already";
  if (fusion.isMatmulGroup())
    return "it is a group already";
  if (std::string why = whyNotTensorCoreMatmul(fusion, target); !why.empty())
    return why;
  MatmulShape shape(fusion.getMatmul());
  if (shape.elementBytes() != 2)
    return "its operands are not 16-bit";
  if (chooseTensorCoreTile(fusion.getMatmul(), target).size() > 3)
    return "its product splits K to fill the GPU";
  return "";
}

std::string mlir::fk::whyNotMovableReads(ArrayRef<FusionOp> members) {
  FusionOp first = members.front(), last = members.back();
  auto fn = first->getParentOfType<func::FuncOp>();
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  DenseMap<Value, Value> updatedParameters;
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    if (std::optional<unsigned> parameter = getUpdatedParameter(fn, i))
      updatedParameters[value] = fn.getArgument(*parameter);
  for (Operation *op = first->getNextNode(); op != last;
       op = op->getNextNode())
    if (op->hasAttr(kWindowInPlaceAttrName) ||
        llvm::any_of(op->getResults(), [&](Value v) {
          return updatedParameters.contains(v);
        }))
      return "a kernel between them writes a parameter in place";
  // The merged kernel's blocks would read such a parameter while others
  // overwrite it.
  for (FusionOp writer : members)
    for (Value v : writer->getResults())
      if (Value parameter = updatedParameters.lookup(v))
        for (FusionOp reader : members)
          if (reader != writer &&
              llvm::is_contained(reader.getInputs(), parameter))
            return members.size() == 2
                       ? "the second kernel writes in place a parameter the "
                         "first reads"
                       : "one kernel writes in place a parameter another "
                         "reads";
  return "";
}
