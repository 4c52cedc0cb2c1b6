//===- NamedTensors.cpp - graph inputs and results by name ----------------===//

#include "Reference/NamedTensors.h"
#include "Reference/ReferenceBundle.h"

#include "fkrt/safetensors.hpp"
#include "mlir/IR/Diagnostics.h"
#include <algorithm>

using namespace mlir;
using namespace mlir::fk;
namespace st = fkrt::safetensors;

/// The parameters of `fn` as the binding sees them; false (with an error)
/// for a parameter that is not a statically shaped tensor.
static LogicalResult getParameters(func::FuncOp fn,
                                   std::vector<st::Signature> &parameters) {
  for (auto [index, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType || !tensorType.hasStaticShape())
      return emitError(fn.getArgument(index).getLoc())
             << "parameter '" << getArgumentName(fn, index)
             << "' is not a statically shaped tensor";
    parameters.push_back(
        {getArgumentName(fn, index),
         getBundleDtype(tensorType.getElementType()),
         std::vector<int64_t>(tensorType.getShape().begin(),
                              tensorType.getShape().end())});
  }
  return success();
}

FailureOr<SmallVector<SmallVector<RefTensor>>>
mlir::fk::bindInputsByName(ModuleOp module, ArrayRef<func::FuncOp> graphs,
                           const NamedTensors &named) {
  std::vector<st::Signature> tensors;
  for (const fkrt::bundle::Tensor &t : named.tensors)
    tensors.push_back(st::signatureOf(t));
  std::vector<std::vector<st::Signature>> parameters(graphs.size());
  for (auto [fn, list] : llvm::zip(graphs, parameters))
    if (failed(getParameters(fn, list)))
      return failure();
  std::vector<size_t> unused;
  std::vector<st::Match> matches =
      st::matchGraphsByName(parameters, tensors, unused);

  bool ok = unused.empty();
  SmallVector<SmallVector<RefTensor>> inputs;
  for (auto [graph, list, match] : llvm::zip(graphs, parameters, matches)) {
    func::FuncOp fn = graph;
    const std::string where = "graph '" + fn.getSymName().str() + "'";
    for (size_t p : match.mismatched) {
      size_t t = match.tensorOf[p];
      emitError(fn.getArgument(p).getLoc())
          << st::describeMismatch(list[p], tensors[t], where) << " (in "
          << named.origins[t] << ")";
    }
    for (size_t p : match.missing)
      emitError(fn.getArgument(p).getLoc())
          << st::describeMissing({list[p].name}, where)
          << " in the --inputs files";
    ok &= match.mismatched.empty() && match.missing.empty();
    SmallVector<RefTensor> values;
    for (auto [p, t] : llvm::enumerate(match.tensorOf))
      if (t >= 0)
        values.push_back(fromBundleTensor(
            named.tensors[t],
            cast<RankedTensorType>(fn.getArgumentTypes()[p])));
    inputs.push_back(std::move(values));
  }

  // The unused tensors, listed per file, at no location in the source.
  func::FuncOp only = graphs.size() == 1 ? graphs.front() : nullptr;
  const std::string where = only ? "graph '" + only.getSymName().str() + "'"
                                 : std::string("any interpreted graph");
  std::vector<std::string> files;
  for (size_t t : unused)
    if (std::find(files.begin(), files.end(), named.origins[t]) == files.end())
      files.push_back(named.origins[t]);
  for (const std::string &file : files) {
    std::vector<std::string> names;
    for (size_t t : unused)
      if (named.origins[t] == file)
        names.push_back(tensors[t].name);
    emitError(UnknownLoc::get(module.getContext()))
        << file << ": " << st::describeUnused(names, where);
  }
  if (!ok)
    return failure();
  return inputs;
}

LogicalResult
mlir::fk::writeResultsByName(ModuleOp module, ArrayRef<func::FuncOp> graphs,
                             ArrayRef<SmallVector<RefTensor>> results,
                             llvm::StringRef path) {
  st::File file;
  for (auto [graph, values] : llvm::zip(graphs, results))
    for (auto [index, value] : llvm::enumerate(values)) {
      func::FuncOp fn = graph;
      std::string name = getResultName(fn, index);
      if (graphs.size() > 1)
        name = fn.getSymName().str() + "." + name;
      file.tensors.push_back(toBundleTensor(value, std::move(name)));
    }
  std::string error;
  if (!st::write(path.str(), file, error))
    return module.emitError() << "cannot write the results: " << error;
  return success();
}
