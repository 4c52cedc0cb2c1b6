//===- Descriptions.cpp - how remarks name ops and sizes ------------------===//

#include "fk/Analysis/Descriptions.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fk;

int64_t mlir::fk::getTensorBytes(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  int64_t elementBytes =
      element.isSignlessInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  return type.getNumElements() * elementBytes;
}

std::string mlir::fk::formatBytes(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} B", bytes).str();
  return llvm::formatv("{0:f1} {1}", value, units[unit]).str();
}

std::string mlir::fk::describeOp(Operation *op) {
  std::string name;
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    name = "'" + loc.getName().str() + "' (" + op->getName().getStringRef().str() + ")";
  else
    name = "'" + op->getName().getStringRef().str() + "'";
  return name;
}

