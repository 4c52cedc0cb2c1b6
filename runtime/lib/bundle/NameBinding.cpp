//===- NameBinding.cpp - Tensors bound to graph parameters by name --------===//
//
// One matching for every consumer of named tensors (fkc --interpret
// --inputs, fkc-run --inputs, the runtime's weight binding), so that they
// accept and reject exactly the same files, with the same messages.
//
//===----------------------------------------------------------------------===//

#include "fkrt/safetensors.hpp"

#include <map>

using namespace fkrt;
using namespace fkrt::safetensors;

bool fkrt::safetensors::shapeFits(const std::vector<int64_t> &parameter,
                                  const std::vector<int64_t> &tensor) {
  if (parameter.size() != tensor.size())
    return false;
  for (size_t d = 0; d < parameter.size(); ++d)
    if (parameter[d] >= 0 && parameter[d] != tensor[d])
      return false;
  return true;
}

Match fkrt::safetensors::matchByName(const std::vector<Signature> &parameters,
                                     const std::vector<Signature> &tensors) {
  std::map<std::string, size_t> tensorByName;
  for (size_t t = 0; t < tensors.size(); ++t)
    tensorByName.emplace(tensors[t].name, t);
  Match match;
  std::vector<bool> used(tensors.size(), false);
  for (size_t p = 0; p < parameters.size(); ++p) {
    const Signature &parameter = parameters[p];
    auto it = tensorByName.find(parameter.name);
    if (it == tensorByName.end()) {
      match.tensorOf.push_back(-1);
      match.missing.push_back(p);
      continue;
    }
    const Signature &tensor = tensors[it->second];
    match.tensorOf.push_back(static_cast<int64_t>(it->second));
    used[it->second] = true;
    if (tensor.dtype != parameter.dtype ||
        !shapeFits(parameter.shape, tensor.shape))
      match.mismatched.push_back(p);
  }
  for (size_t t = 0; t < tensors.size(); ++t)
    if (!used[t])
      match.unused.push_back(t);
  return match;
}

std::vector<Match> fkrt::safetensors::matchGraphsByName(
    const std::vector<std::vector<Signature>> &graphs,
    const std::vector<Signature> &tensors, std::vector<size_t> &unused) {
  std::vector<Match> matches;
  std::vector<bool> used(tensors.size(), false);
  for (const std::vector<Signature> &parameters : graphs) {
    matches.push_back(matchByName(parameters, tensors));
    for (int64_t t : matches.back().tensorOf)
      if (t >= 0)
        used[t] = true;
    matches.back().unused.clear();
  }
  unused.clear();
  for (size_t t = 0; t < tensors.size(); ++t)
    if (!used[t])
      unused.push_back(t);
  return matches;
}

namespace {

/// "'a', 'b' and 'c'".
std::string nameList(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += std::string(i == 0                    ? ""
                     : i + 1 == names.size() ? " and "
                                             : ", ") +
         "'" + names[i] + "'";
  return s;
}

} // namespace

std::string fkrt::safetensors::describeMismatch(const Signature &parameter,
                                                const Signature &tensor,
                                                const std::string &where) {
  return "tensor '" + tensor.name + "' is " +
         bundle::typeString(tensor.dtype, tensor.shape) + ", parameter '" +
         parameter.name + "' of " + where + " is " +
         bundle::typeString(parameter.dtype, parameter.shape);
}

std::string
fkrt::safetensors::describeMissing(const std::vector<std::string> &parameters,
                                   const std::string &where) {
  return std::string("no tensor for parameter") +
         (parameters.size() == 1 ? " " : "s ") + nameList(parameters) +
         " of " + where;
}

std::string
fkrt::safetensors::describeUnused(const std::vector<std::string> &tensors,
                                  const std::string &where) {
  return std::string(tensors.size() == 1 ? "tensor " : "tensors ") +
         nameList(tensors) + (tensors.size() == 1 ? " is" : " are") +
         " no parameter of " + where;
}

std::string fkrt::safetensors::describeProblems(
    const Match &match, const std::vector<Signature> &parameters,
    const std::vector<Signature> &tensors, const std::string &where,
    bool requireAll) {
  std::vector<std::string> problems;
  for (size_t p : match.mismatched)
    problems.push_back(
        describeMismatch(parameters[p], tensors[match.tensorOf[p]], where));
  auto names = [](const std::vector<size_t> &indices,
                  const std::vector<Signature> &of) {
    std::vector<std::string> result;
    for (size_t i : indices)
      result.push_back(of[i].name);
    return result;
  };
  if (requireAll && !match.missing.empty())
    problems.push_back(describeMissing(names(match.missing, parameters), where));
  if (!match.unused.empty())
    problems.push_back(describeUnused(names(match.unused, tensors), where));
  std::string message;
  for (size_t i = 0; i < problems.size(); ++i)
    message += (i ? "; " : "") + problems[i];
  return message;
}

Signature fkrt::safetensors::signatureOf(const bundle::Tensor &tensor) {
  return {tensor.name, tensor.dtype, tensor.shape};
}
