//===- ReferenceBundle.h - reference results as a tensor bundle -*- C++ -*-===//
//
// `fkc --reference FILE` writes, for every graph, its inputs (seeded random
// ones, or those of --inputs) and the reference interpreter's outputs as a
// tensor bundle (docs/tools.md), which `fkc-run --check FILE` compares a
// GPU run against. Also the conversions between the interpreter's values and
// stored tensors that .safetensors files use too.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_REFERENCEBUNDLE_H
#define FKC_REFERENCE_REFERENCEBUNDLE_H

#include "Reference/Interpreter.h"
#include "fkrt/bundle.hpp"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace mlir::fk {

/// The bundle dtype of a tensor element type of the language.
fkrt_dtype getBundleDtype(Type elementType);

/// The name of argument `index` / result `index` of a graph: its `fk.name`
/// (what the .graph file calls it), else "argN" / "resultN".
std::string getArgumentName(func::FuncOp fn, unsigned index);
std::string getResultName(func::FuncOp fn, unsigned index);

/// `tensor` as a bundle tensor called `name`: its elements' storage bytes.
fkrt::bundle::Tensor toBundleTensor(const RefTensor &tensor, std::string name);

/// The value of `tensor`, whose dtype and shape are those of `type`.
RefTensor fromBundleTensor(const fkrt::bundle::Tensor &tensor,
                           RankedTensorType type);

/// Interprets `graphs` (fk IR on tensors) on `inputs` (one list per graph)
/// and writes inputs and outputs to the bundle at `path`, with `seed` as
/// the seed they came from. Emits an error on failure.
LogicalResult writeReferenceBundle(ModuleOp module,
                                   ArrayRef<func::FuncOp> graphs,
                                   ArrayRef<SmallVector<RefTensor>> inputs,
                                   uint64_t seed, llvm::StringRef path);

} // namespace mlir::fk

#endif // FKC_REFERENCE_REFERENCEBUNDLE_H
