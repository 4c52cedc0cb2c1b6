//===- fkrt/bundle.hpp - Tensor bundles (.fkt files) ------------*- C++ -*-===//
//
// A tensor bundle holds, for some graphs of an artifact, the inputs a run
// was given and the outputs it is expected to produce: `fkc --reference`
// writes one from the reference interpreter, `fkc-run --check` compares a
// GPU run against it. The format is described in docs/tools.md.
//
// The library (CMake target fkrt::bundle) is plain C++17 with no other
// dependency: it does not link the runtime, and reports errors as strings,
// never by exceptions, so code built without exceptions can use it. Only the
// fkrt_dtype values of fkrt/runtime.h are shared with the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_BUNDLE_HPP
#define FKRT_BUNDLE_HPP

#include "fkrt/runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {
namespace bundle {

/// The first 8 bytes of every bundle; the trailing "01" is the version.
constexpr char kMagic[8] = {'F', 'K', 'T', 'N', 'S', 'R', '0', '1'};

/// The largest rank a tensor may have (as in the artifact's manifest).
constexpr uint32_t kMaxRank = 16;

/// One tensor: a dense, row-major array of `shape` elements of `dtype`.
struct Tensor {
  std::string name;
  fkrt_dtype dtype = FKRT_F32;
  /// Empty for a scalar.
  std::vector<int64_t> shape;
  /// The elements as stored in the file: little-endian, fkrt_dtype_size
  /// bytes each; an i1 element is one byte holding 0 or 1.
  std::vector<uint8_t> data;

  /// The product of `shape` (1 for a scalar). Meaningful only for a shape
  /// that validate() accepts.
  uint64_t elementCount() const;
};

/// The inputs and expected outputs of one run of a graph.
struct Graph {
  std::string name;
  /// The seed the inputs were generated from (informational).
  uint64_t seed = 0;
  std::vector<Tensor> inputs, outputs;
};

struct Bundle {
  std::vector<Graph> graphs;

  /// The graph called `name`, or null.
  const Graph *find(const std::string &name) const;
};

/// The seeded random inputs that `fkc --interpret/--reference --seed N` and
/// `fkc-run --seed N` share, value for value: one sequence over the inputs in
/// order. SplitMix64 (Steele, Lea and Flood, 2014) gives the same integers
/// for a seed on every platform, where std:: distributions differ between
/// standard libraries.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}

  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1): the top 53 bits, exact in a double.
  double nextUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// The next input element of `dtype`: floats uniform in [-1, 1) (for the
  /// caller to round to the dtype), i32 and i64 in [-8, 8], i1 0 or 1 with
  /// equal odds.
  double nextInput(fkrt_dtype dtype) {
    if (dtype == FKRT_I1)
      return static_cast<double>(next() >> 63);
    if (dtype == FKRT_I32 || dtype == FKRT_I64)
      return static_cast<double>(static_cast<int64_t>(next() % 17) - 8);
    return 2 * nextUnit() - 1;
  }

private:
  uint64_t state;
};

/// The size of one element of `dtype` in bytes, 0 if it is not a dtype.
size_t dtypeSize(fkrt_dtype dtype);

/// The spelling of `dtype` ("f32", ...), "?" if it is not a dtype.
const char *dtypeName(fkrt_dtype dtype);

/// "f32[2, 3]": a tensor type as messages print it.
std::string typeString(fkrt_dtype dtype, const std::vector<int64_t> &shape);

/// Checks what the format requires and the writer relies on: graph names
/// non-empty and unique, tensor names non-empty and unique within a graph,
/// no control characters in names, a known dtype, rank <= kMaxRank,
/// dimensions >= 0, a size in bytes that fits in an int64_t, `data` of
/// exactly that size, i1 bytes 0 or 1, counts that fit in 32 bits. On
/// failure returns false and sets `error`, naming the offending tensor.
bool validate(const Bundle &bundle, std::string &error);

/// Parses the `size` bytes at `data` as a bundle. Every field is checked
/// (see validate), as is truncation and trailing data; on failure returns
/// false and sets `error` to a message naming the field and its byte
/// offset. Never reads out of bounds or allocates more than `size` bytes of
/// tensor data, whatever the input.
bool parse(const void *data, size_t size, Bundle &bundle, std::string &error);

/// Reads and parses the bundle file at `path`; messages start with the path.
bool read(const std::string &path, Bundle &bundle, std::string &error);

/// Encodes a bundle that validate() accepts into `bytes`.
bool serialize(const Bundle &bundle, std::string &bytes, std::string &error);

/// Validates and writes `bundle` to `path`, through a temporary file next
/// to it renamed into place, so that a failed write leaves no partial file.
bool write(const std::string &path, const Bundle &bundle, std::string &error);

} // namespace bundle
} // namespace fkrt

#endif // FKRT_BUNDLE_HPP
