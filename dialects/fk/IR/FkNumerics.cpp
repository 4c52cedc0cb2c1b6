//===- FkNumerics.cpp - how f32 products may be computed -----------------===//

#include "fk/IR/FkNumerics.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::fk;

bool mlir::fk::isTf32Matmul(MatmulOp matmul) {
  if (!getElementTypeOrSelf(matmul.getLhs().getType()).isF32())
    return false;
  auto fusion = matmul->getParentOfType<FusionOp>();
  if (!fusion)
    return false;
  auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
  return tiling && tiling.getStrategy() == KernelStrategy::WarpMma;
}
