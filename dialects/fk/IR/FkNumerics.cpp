//===- FkNumerics.cpp - how f32 products may be computed -----------------===//

#include "fk/IR/FkNumerics.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::fk;

bool mlir::fk::roundsToTf32(Operation *op) {
  if (op->getNumOperands() == 0 ||
      !getElementTypeOrSelf(op->getOperand(0).getType()).isF32())
    return false;
  auto fusion = op->getParentOfType<FusionOp>();
  if (!fusion || !allowsTf32(fusion))
    return false;
  auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
  return tiling && (tiling.getStrategy() == KernelStrategy::WarpMma ||
                    tiling.getStrategy() == KernelStrategy::WarpMmaFlash);
}
