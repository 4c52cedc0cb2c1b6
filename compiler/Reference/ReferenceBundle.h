//===- ReferenceBundle.h - reference results as a tensor bundle -*- C++ -*-===//
//
// `fkc --reference FILE` writes, for every graph, the seeded random inputs
// and the reference interpreter's outputs as a tensor bundle (docs/tools.md),
// which `fkc-run --check FILE` compares a GPU run against.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_REFERENCEBUNDLE_H
#define FKC_REFERENCE_REFERENCEBUNDLE_H

#include "fkrt/runtime.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace mlir::fk {

/// The bundle dtype of a tensor element type of the language.
fkrt_dtype getBundleDtype(Type elementType);

/// Interprets every graph of `module` (fk IR on tensors) on the inputs of
/// `seed` and writes inputs and outputs to the bundle at `path`. Emits an
/// error on failure.
LogicalResult writeReferenceBundle(ModuleOp module, uint64_t seed,
                                   llvm::StringRef path);

} // namespace mlir::fk

#endif // FKC_REFERENCE_REFERENCEBUNDLE_H
