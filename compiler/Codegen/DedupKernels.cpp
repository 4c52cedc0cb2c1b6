//===- DedupKernels.cpp - one kernel per distinct body --------------------===//
//
// Kernels are compiled to PTX one by one, which is most of fkc's time; a
// model of repeated layers repeats its kernels. Equal kernels are found by a
// structural hash of each kernel's signature and body (names and locations
// left out), confirmed by a structural comparison, and merged into the
// first.
//
//===----------------------------------------------------------------------===//

#include "Codegen/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKDEDUPKERNELS
#include "Codegen/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// A kernel's attributes but its name: signature, argument attributes, the
/// kernel marker.
static DictionaryAttr getAttributesButName(gpu::GPUFuncOp kernel) {
  NamedAttrList attributes(kernel->getAttrDictionary());
  attributes.erase(SymbolTable::getSymbolAttrName());
  return attributes.getDictionary(kernel.getContext());
}

static llvm::hash_code hashKernel(gpu::GPUFuncOp kernel) {
  llvm::hash_code hash = hash_value(getAttributesButName(kernel));
  kernel.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

static bool areEquivalent(gpu::GPUFuncOp a, gpu::GPUFuncOp b) {
  return getAttributesButName(a) == getAttributesButName(b) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

namespace {
struct DedupKernelsPass : fk::impl::FkDedupKernelsBase<DedupKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The kept kernel of each merged one, by name.
    llvm::StringMap<StringAttr> keptFor;
    SmallVector<gpu::GPUFuncOp> merged;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      DenseMap<llvm::hash_code, SmallVector<gpu::GPUFuncOp, 1>> byHash;
      for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
        SmallVector<gpu::GPUFuncOp, 1> &candidates = byHash[hashKernel(kernel)];
        auto kept = llvm::find_if(candidates, [&](gpu::GPUFuncOp candidate) {
          return areEquivalent(candidate, kernel);
        });
        if (kept == candidates.end()) {
          candidates.push_back(kernel);
          continue;
        }
        keptFor[kernel.getName()] = kept->getNameAttr();
        merged.push_back(kernel);
      }
    }
    if (merged.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = keptFor.find(launch.getKernelName().getValue());
      if (it == keptFor.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          launch.getKernelModuleName(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUFuncOp kernel : merged)
      kernel.erase();
  }
};
} // namespace
