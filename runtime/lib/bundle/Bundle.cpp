//===- Bundle.cpp - Tensor bundles: types and validation ------------------===//

#include "../DtypeTable.h"
#include "Format.h"

#include <limits>

using namespace fkrt;
using namespace fkrt::bundle;

uint64_t Tensor::elementCount() const {
  uint64_t count = 1;
  for (int64_t d : shape)
    count *= static_cast<uint64_t>(d);
  return count;
}

const Graph *Bundle::find(const std::string &name) const {
  for (const Graph &g : graphs)
    if (g.name == name)
      return &g;
  return nullptr;
}

size_t fkrt::bundle::dtypeSize(fkrt_dtype dtype) {
  return detail::dtypeSize(dtype);
}

const char *fkrt::bundle::dtypeName(fkrt_dtype dtype) {
  const char *name = detail::dtypeName(dtype);
  return name ? name : "?";
}

std::string fkrt::bundle::typeString(fkrt_dtype dtype,
                                     const std::vector<int64_t> &shape) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string format::checkName(const std::string &name) {
  if (name.empty())
    return "empty name";
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "name contains a control character";
  return "";
}

std::string format::checkType(uint32_t dtype, const std::vector<int64_t> &shape,
                              uint64_t &bytes) {
  if (dtype > kMaxDtype)
    return "unknown dtype " + std::to_string(dtype) +
           " (0 f32, 1 f16, 2 bf16, 3 i32, 4 i1, 5 i64)";
  if (shape.size() > kMaxRank)
    return "rank " + std::to_string(shape.size()) + " exceeds " +
           std::to_string(kMaxRank);
  const uint64_t limit = std::numeric_limits<int64_t>::max();
  uint64_t size = dtypeSize(static_cast<fkrt_dtype>(dtype));
  // Multiplying by each dimension in turn, with a zero dimension making the
  // whole tensor empty whatever comes after it, as it would in memory.
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return "dimension " + std::to_string(i) + " is negative (" +
             std::to_string(shape[i]) + ")";
    if (shape[i] == 0)
      empty = true;
  }
  if (empty) {
    bytes = 0;
    return "";
  }
  for (int64_t d : shape) {
    if (size > limit / static_cast<uint64_t>(d))
      return "size of " + typeString(static_cast<fkrt_dtype>(dtype), shape) +
             " overflows 64 bits";
    size *= static_cast<uint64_t>(d);
  }
  bytes = size;
  return "";
}

std::string format::checkTensor(const Tensor &t) {
  uint64_t bytes = 0;
  std::string why = checkName(t.name);
  if (why.empty())
    why = checkType(static_cast<uint32_t>(t.dtype), t.shape, bytes);
  if (why.empty() && t.data.size() != bytes)
    why = "holds " + std::to_string(t.data.size()) + " bytes, " +
          typeString(t.dtype, t.shape) + " takes " + std::to_string(bytes);
  if (why.empty() && t.dtype == FKRT_I1) {
    size_t bad = firstBadBoolean(t.data.data(), t.data.size());
    if (bad != t.data.size())
      why = "i1 element " + std::to_string(bad) + " is " +
            std::to_string(t.data[bad]) + ", not 0 or 1";
  }
  return why;
}

size_t format::firstBadBoolean(const uint8_t *data, size_t size) {
  for (size_t i = 0; i < size; ++i)
    if (data[i] > 1)
      return i;
  return size;
}

std::string format::graphPath(size_t graph, const std::string *name) {
  std::string s = "graphs[" + std::to_string(graph) + "]";
  return name ? s + " ('" + *name + "')" : s;
}

std::string format::tensorPath(const std::string &graph, bool input,
                               size_t index, const std::string *name) {
  std::string s =
      graph + (input ? ".inputs[" : ".outputs[") + std::to_string(index) + "]";
  return name ? s + " ('" + *name + "')" : s;
}

bool fkrt::bundle::validate(const Bundle &bundle, std::string &error) {
  const uint64_t maxCount = std::numeric_limits<uint32_t>::max();
  if (bundle.graphs.size() > maxCount) {
    error = "more than 2^32-1 graphs";
    return false;
  }
  std::set<std::string> graphNames;
  for (size_t gi = 0; gi < bundle.graphs.size(); ++gi) {
    const Graph &g = bundle.graphs[gi];
    std::string where = format::graphPath(gi, &g.name);
    std::string why = format::checkName(g.name);
    if (why.empty() && !format::unique(graphNames, g.name))
      why = "duplicate graph name";
    if (why.empty() && g.name.size() > maxCount)
      why = "name longer than 2^32-1 bytes";
    if (why.empty() &&
        (g.inputs.size() > maxCount || g.outputs.size() > maxCount))
      why = "more than 2^32-1 inputs or outputs";
    if (!why.empty()) {
      error = where + ": " + why;
      return false;
    }
    std::set<std::string> tensorNames;
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<Tensor> &list = pass == 0 ? g.inputs : g.outputs;
      for (size_t ti = 0; ti < list.size(); ++ti) {
        const Tensor &t = list[ti];
        why = format::checkTensor(t);
        if (why.empty() && !format::unique(tensorNames, t.name))
          why = "duplicate tensor name in the graph";
        if (why.empty() && t.name.size() > maxCount)
          why = "name longer than 2^32-1 bytes";
        if (!why.empty()) {
          error =
              format::tensorPath(where, pass == 0, ti, &t.name) + ": " + why;
          return false;
        }
      }
    }
  }
  return true;
}
