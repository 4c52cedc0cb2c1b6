//===- NamedTensors.h - graph inputs and results by name --------*- C++ -*-===//
//
// `fkc --interpret --inputs FILE.safetensors` takes each graph parameter's
// value from the tensor of its name, and `--outputs FILE.safetensors`
// writes the results under theirs (docs/safetensors.md). The matching is
// the one of the runtime and fkc-run (fkrt::safetensors::matchByName); here
// every problem is reported where it is, at the parameter in the source.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_REFERENCE_NAMEDTENSORS_H
#define FKC_REFERENCE_NAMEDTENSORS_H

#include "Reference/Interpreter.h"
#include "fkrt/bundle.hpp"
#include "mlir/IR/BuiltinOps.h"
#include <string>
#include <vector>

namespace mlir::fk {

/// The tensors of the --inputs files, taken together.
struct NamedTensors {
  std::vector<fkrt::bundle::Tensor> tensors;
  /// The file each tensor came from.
  std::vector<std::string> origins;
};

/// The inputs of each of `graphs`, by parameter name, from `named`. Emits
/// one error per problem, all of them: a tensor of another dtype or shape
/// and a parameter no tensor is named after (at the parameter), a tensor
/// named after no parameter of any of `graphs` (one error per file,
/// listing them, at no location).
FailureOr<SmallVector<SmallVector<RefTensor>>>
bindInputsByName(ModuleOp module, ArrayRef<func::FuncOp> graphs,
                 const NamedTensors &named);

/// Writes `results` (one list per graph of `graphs`) to the .safetensors
/// file at `path`, each under its result name, or "GRAPH.RESULT" when there
/// are several graphs. Emits an error on failure.
LogicalResult writeResultsByName(ModuleOp module, ArrayRef<func::FuncOp> graphs,
                                 ArrayRef<SmallVector<RefTensor>> results,
                                 llvm::StringRef path);

} // namespace mlir::fk

#endif // FKC_REFERENCE_NAMEDTENSORS_H
