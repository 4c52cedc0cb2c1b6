//===- Format.h - Rules of the tensor bundle format -------------*- C++ -*-===//
//
// The checks the reader applies field by field as it decodes and the writer
// applies to a whole Bundle up front, so both accept exactly the same files.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_BUNDLE_FORMAT_H
#define FKRT_LIB_BUNDLE_FORMAT_H

#include "fkrt/bundle.hpp"

#include <set>
#include <string>

namespace fkrt {
namespace bundle {
namespace format {

/// The largest dtype value.
constexpr uint32_t kMaxDtype = FKRT_I64;

/// "" if `name` is acceptable, else why not.
std::string checkName(const std::string &name);

/// Checks a dtype value, rank and dimensions and computes the tensor's size
/// in bytes, which must fit in an int64_t. "" if fine, else why not.
std::string checkType(uint32_t dtype, const std::vector<int64_t> &shape,
                      uint64_t &bytes);

/// Checks one tensor on its own: its name (checkName), type (checkType),
/// that `data` has exactly the bytes of that type, and i1 bytes 0 or 1.
/// "" if fine, else why not.
std::string checkTensor(const Tensor &tensor);

/// The index of the first byte of an i1 tensor that is neither 0 nor 1, or
/// `size` if there is none.
size_t firstBadBoolean(const uint8_t *data, size_t size);

/// "graphs[0] ('mlp')", "graphs[0] ('mlp').inputs[1] ('x')": where a message
/// points; the name is left out while it is not known yet.
std::string graphPath(size_t graph, const std::string *name);
std::string tensorPath(const std::string &graph, bool input, size_t index,
                       const std::string *name);

/// Records `name` in `seen`; false if it was there already.
inline bool unique(std::set<std::string> &seen, const std::string &name) {
  return seen.insert(name).second;
}

} // namespace format
} // namespace bundle
} // namespace fkrt

#endif // FKRT_LIB_BUNDLE_FORMAT_H
