//===- NamedTensors.cpp - graph inputs and results by name ----------------===//

#include "Reference/NamedTensors.h"
#include "Reference/ReferenceBundle.h"

#include "fkrt/safetensors.hpp"
#include "mlir/IR/Diagnostics.h"

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
  std::vector<bool> used(tensors.size(), false);
  bool ok = true;
  SmallVector<SmallVector<RefTensor>> inputs;
  for (func::FuncOp fn : graphs) {
    std::vector<st::Signature> parameters;
    if (failed(getParameters(fn, parameters)))
      return failure();
    st::Match match = st::matchByName(parameters, tensors);
    const std::string where = "graph '" + fn.getSymName().str() + "'";
    for (size_t p : match.mismatched) {
      size_t t = match.tensorOf[p];
      emitError(fn.getArgument(p).getLoc())
          << st::describeMismatch(parameters[p], tensors[t], where) << " (in "
          << named.origins[t] << ")";
    }
    for (size_t p : match.missing)
      emitError(fn.getArgument(p).getLoc())
          << st::describeMissing({parameters[p].name}, where)
          << " in the --inputs files";
    ok &= match.mismatched.empty() && match.missing.empty();
    SmallVector<RefTensor> values;
    for (auto [p, t] : llvm::enumerate(match.tensorOf)) {
      if (t < 0)
        continue;
      used[t] = true;
      values.push_back(fromBundleTensor(
          named.tensors[t], cast<RankedTensorType>(fn.getArgumentTypes()[p])));
    }
    inputs.push_back(std::move(values));
  }
  // The unused tensors, listed per file.
  func::FuncOp only = graphs.size() == 1 ? graphs.front() : nullptr;
  const std::string where = only ? "graph '" + only.getSymName().str() + "'"
                                 : std::string("any interpreted graph");
  std::vector<std::string> files;
  for (const std::string &origin : named.origins)
    if (files.empty() || files.back() != origin)
      files.push_back(origin);
  for (const std::string &file : files) {
    std::vector<std::string> unused;
    for (size_t t = 0; t < tensors.size(); ++t)
      if (!used[t] && named.origins[t] == file)
        unused.push_back(tensors[t].name);
    if (unused.empty())
      continue;
    // Not about a place in the source.
    emitError(UnknownLoc::get(module.getContext()))
        << file << ": " << st::describeUnused(unused, where);
    ok = false;
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
