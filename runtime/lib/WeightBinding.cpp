//===- WeightBinding.cpp - Weights bound to a graph's inputs --------------===//

#include "WeightBinding.h"

using namespace fkrt;
namespace st = fkrt::safetensors;

std::string fkrt::matchWeights(const GraphSpec &graph,
                               const std::vector<bool> &bound,
                               const st::File &file,
                               std::vector<int64_t> &tensorOf) {
  std::vector<st::Signature> inputs, tensors;
  for (const TensorSpec &t : graph.inputs)
    inputs.push_back({t.name, t.dtype, t.shape});
  for (const bundle::Tensor &t : file.tensors)
    tensors.push_back(st::signatureOf(t));
  st::Match match = st::matchByName(inputs, tensors);
  tensorOf = match.tensorOf;
  const std::string where = "graph '" + graph.name + "'";
  std::string message =
      st::describeProblems(match, inputs, tensors, where, /*requireAll=*/false);
  std::vector<bool> inout(graph.inputs.size(), false);
  for (const TensorSpec &o : graph.outputs)
    if (o.aliases >= 0)
      inout[o.aliases] = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (tensorOf[i] < 0)
      continue;
    std::string why;
    if (graph.inputs[i].symbolic)
      why = "input '" + inputs[i].name + "' of " + where +
            " has a symbolic shape, which each run gives: it cannot be bound";
    else if (inout[i])
      why = "input '" + inputs[i].name + "' of " + where +
            " is inout (runs update it in place): it cannot be bound";
    else if (i < bound.size() && bound[i])
      why = "input '" + inputs[i].name + "' of " + where +
            " is bound already";
    if (!why.empty())
      message += (message.empty() ? "" : "; ") + why;
  }
  return message;
}
