//===- FkNumerics.cpp - how f32 products may be computed -----------------===//

#include "fk/IR/FkNumerics.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::fk;

Tf32Rounding mlir::fk::getTf32Rounding(Operation *op) {
  if (op->getNumOperands() == 0 ||
      !getElementTypeOrSelf(op->getOperand(0).getType()).isF32())
    return Tf32Rounding::None;
  auto fusion = op->getParentOfType<FusionOp>();
  if (!fusion || !allowsTf32(fusion))
    return Tf32Rounding::None;
  auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
  if (!tiling)
    return Tf32Rounding::None;
  switch (tiling.getStrategy()) {
  case KernelStrategy::WarpMma:
  case KernelStrategy::WarpMmaFlash:
    return Tf32Rounding::Nearest;
  case KernelStrategy::TensorCore:
    return Tf32Rounding::Truncate;
  default:
    return Tf32Rounding::None;
  }
}
