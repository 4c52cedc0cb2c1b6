//===- fkrt/safetensors.hpp - .safetensors files ----------------*- C++ -*-===//
//
// Real models bring their weights in .safetensors files: an 8-byte
// little-endian header length N, N bytes of JSON naming each tensor with its
// dtype, shape and byte range, then the tensors' raw little-endian bytes.
// This reads and writes the subset fkc can use (its dtypes, rank <= 16) and
// binds tensors to graph parameters by name. docs/safetensors.md describes
// the format, what is accepted and every rejection.
//
// Part of the bundle library (fkrt::bundle): plain C++17, errors as strings,
// never exceptions. A tensor is a fkrt::bundle::Tensor, as in a bundle.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_SAFETENSORS_HPP
#define FKRT_SAFETENSORS_HPP

#include "fkrt/bundle.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fkrt {
namespace safetensors {

/// The largest header (the JSON text) a file may have, as safetensors'
/// own reader bounds it.
constexpr uint64_t kMaxHeaderBytes = 100000000;

/// The contents of a .safetensors file.
struct File {
  /// In the order of their data in the file.
  std::vector<bundle::Tensor> tensors;
  /// The `__metadata__` strings, in header order.
  std::vector<std::pair<std::string, std::string>> metadata;

  /// The tensor called `name`, or null.
  const bundle::Tensor *find(const std::string &name) const;
};

/// The safetensors spelling of `dtype` ("F32", "F16", "BF16", "I32", "I64",
/// "BOOL"), "?" if it is not a dtype.
const char *dtypeName(fkrt_dtype dtype);

/// The fkrt dtype spelled `name` in a safetensors header; false if it is
/// none fkc knows.
bool parseDtype(const std::string &name, fkrt_dtype &dtype);

/// Parses the `size` bytes at `data` as a .safetensors file. Every rule of
/// docs/safetensors.md is checked; on failure returns false and sets `error`
/// to a message naming the tensor or header field at fault. Never reads out
/// of bounds or allocates more than `size` bytes of tensor data.
bool parse(const void *data, size_t size, File &file, std::string &error);

/// Reads and parses the file at `path`, each byte read once; messages start
/// with the path.
bool read(const std::string &path, File &file, std::string &error);

/// Encodes `file` (tensors as bundle::validate would accept them, unique
/// names other than "__metadata__"): the header padded with spaces to a
/// multiple of 8 bytes, then the tensors in order of decreasing element
/// size, then name, so that each starts at a multiple of its element size,
/// with no gap between them (as safetensors' own writer lays them out).
bool serialize(const File &file, std::string &bytes, std::string &error);

/// Validates and writes `file` to `path` through a temporary file renamed
/// into place, so that a failed write leaves no partial file.
bool write(const std::string &path, const File &file, std::string &error);

/// The tensors of several files taken together: `tensors` in file order,
/// `origins[i]` the path tensors[i] came from. A name in two files is an
/// error naming both.
bool readAll(const std::vector<std::string> &paths,
             std::vector<bundle::Tensor> &tensors,
             std::vector<std::string> &origins, std::string &error);

//===----------------------------------------------------------------------===//
// Binding tensors to parameters by name
//===----------------------------------------------------------------------===//

/// A graph parameter (or a tensor) as a binding sees it.
struct Signature {
  std::string name;
  fkrt_dtype dtype = FKRT_F32;
  std::vector<int64_t> shape;
};

/// How tensors matched the parameters of one graph, by name.
struct Match {
  /// For each parameter, the index of the tensor of its name, or -1.
  std::vector<int64_t> tensorOf;
  /// Parameters no tensor is named after.
  std::vector<size_t> missing;
  /// Parameters whose tensor has another dtype or shape (a parameter's
  /// symbolic dimension, -1, takes any size).
  std::vector<size_t> mismatched;
  /// Tensors named after no parameter.
  std::vector<size_t> unused;
};

/// Whether a tensor of shape `tensor` fits a parameter of shape `parameter`,
/// whose symbolic dimensions (-1, as fkrt_tensor_info reports them) take
/// any size: fkrt_run checks the sizes against the graph's symbols.
bool shapeFits(const std::vector<int64_t> &parameter,
               const std::vector<int64_t> &tensor);

/// Matches `tensors` to `parameters` by name (names are unique in each).
Match matchByName(const std::vector<Signature> &parameters,
                  const std::vector<Signature> &tensors);

/// Matches `tensors` to the parameters of several graphs at once, as a
/// run of all of them takes one set of tensors: one Match per graph, whose
/// `unused` is left empty; a tensor no graph takes is in `unused`.
std::vector<Match>
matchGraphsByName(const std::vector<std::vector<Signature>> &graphs,
                  const std::vector<Signature> &tensors,
                  std::vector<size_t> &unused);

/// One message listing every problem of `match`, "; "-separated: the
/// mismatched tensors (expected and found), the missing parameters when
/// `requireAll`, and the unused tensors; "" if there is none. `where` names
/// the parameters' owner as the messages end: "graph 'g'".
std::string describeProblems(const Match &match,
                             const std::vector<Signature> &parameters,
                             const std::vector<Signature> &tensors,
                             const std::string &where, bool requireAll);

/// The parts of describeProblems: "tensor 'w' is f32[3, 4], parameter 'w' of
/// graph 'g' is f16[3, 4]"; "no tensor for parameters 'x' and 'n' of graph
/// 'g'"; "tensors 'a' and 'b' are no parameter of graph 'g'".
std::string describeMismatch(const Signature &parameter,
                             const Signature &tensor, const std::string &where);
std::string describeMissing(const std::vector<std::string> &parameters,
                            const std::string &where);
std::string describeUnused(const std::vector<std::string> &tensors,
                           const std::string &where);

/// The signature of a bundle tensor.
Signature signatureOf(const bundle::Tensor &tensor);

} // namespace safetensors
} // namespace fkrt

#endif // FKRT_SAFETENSORS_HPP
