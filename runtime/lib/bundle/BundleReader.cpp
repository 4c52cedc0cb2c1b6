//===- BundleReader.cpp - Reading tensor bundles --------------------------===//
//
// Decodes a bundle field by field from a byte source, checking each field
// as it comes: a length or count is compared with the bytes left before
// anything is allocated for it, so no input can make the reader allocate
// more than the input's own size or read past its end.
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "Source.h"

#include <cstring>

using namespace fkrt;
using namespace fkrt::bundle;

namespace {

class Reader {
public:
  Reader(Source &source, std::string &error) : source(source), error(error) {}

  bool readBundle(Bundle &bundle) {
    char magic[sizeof(kMagic)];
    if (!take(magic, sizeof(magic), "", "the magic number"))
      return false;
    if (std::memcmp(magic, kMagic, 6) != 0)
      return failAt(0, "",
                    "not a tensor bundle (it does not start with "
                    "\"FKTNSR01\")");
    if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
      return failAt(6, "",
                    "unsupported bundle version \"" +
                        std::string(magic + 6, 2) +
                        "\" (this reader reads version \"01\")");
    uint32_t graphCount;
    if (!u32(graphCount, "", "graph_count"))
      return false;
    std::set<std::string> graphNames;
    for (uint32_t gi = 0; gi < graphCount; ++gi) {
      Graph g;
      uint64_t start = offset;
      if (!name(g.name, format::graphPath(gi, nullptr)))
        return false;
      std::string where = format::graphPath(gi, &g.name);
      if (!format::unique(graphNames, g.name))
        return failAt(start, where, "duplicate graph name");
      uint32_t inputs, outputs;
      if (!u64(g.seed, where, "seed") || !u32(inputs, where, "input_count") ||
          !u32(outputs, where, "output_count"))
        return false;
      std::set<std::string> tensorNames;
      for (uint32_t i = 0; i < inputs + uint64_t(outputs); ++i) {
        bool input = i < inputs;
        size_t index = input ? i : i - inputs;
        std::vector<Tensor> &list = input ? g.inputs : g.outputs;
        list.emplace_back();
        if (!readTensor(list.back(), where, input, index, tensorNames))
          return false;
      }
      bundle.graphs.push_back(std::move(g));
    }
    if (offset != source.size())
      return failAt(offset, "",
                    std::to_string(source.size() - offset) +
                        " trailing bytes after the last graph");
    return true;
  }

private:
  bool readTensor(Tensor &t, const std::string &graph, bool input, size_t index,
                  std::set<std::string> &names) {
    uint64_t start = offset;
    if (!name(t.name, format::tensorPath(graph, input, index, nullptr)))
      return false;
    std::string where = format::tensorPath(graph, input, index, &t.name);
    if (!format::unique(names, t.name))
      return failAt(start, where, "duplicate tensor name in the graph");
    uint32_t dtype, rank;
    uint64_t at = offset;
    if (!u32(dtype, where, "dtype"))
      return false;
    if (dtype > format::kMaxDtype)
      return failAt(at, where,
                    "unknown dtype " + std::to_string(dtype) +
                        " (0 f32, 1 f16, 2 bf16, 3 i32, 4 i1, 5 i64)");
    t.dtype = static_cast<fkrt_dtype>(dtype);
    at = offset;
    if (!u32(rank, where, "rank"))
      return false;
    if (rank > kMaxRank)
      return failAt(at, where,
                    "rank " + std::to_string(rank) + " exceeds " +
                        std::to_string(kMaxRank));
    at = offset;
    t.shape.resize(rank);
    for (uint32_t d = 0; d < rank; ++d)
      if (!i64(t.shape[d], where, "dims[" + std::to_string(d) + "]"))
        return false;
    uint64_t bytes = 0;
    std::string why = format::checkType(dtype, t.shape, bytes);
    if (!why.empty())
      return failAt(at, where, why);
    uint64_t byteCount;
    at = offset;
    if (!u64(byteCount, where, "byte_count"))
      return false;
    if (byteCount != bytes)
      return failAt(at, where,
                    "byte_count is " + std::to_string(byteCount) + ", " +
                        typeString(t.dtype, t.shape) + " takes " +
                        std::to_string(bytes));
    at = offset;
    if (!fits(bytes, where, "data"))
      return false;
    t.data.resize(static_cast<size_t>(bytes));
    if (!take(t.data.data(), t.data.size(), where, "data"))
      return false;
    if (t.dtype == FKRT_I1) {
      size_t bad = format::firstBadBoolean(t.data.data(), t.data.size());
      if (bad != t.data.size())
        return failAt(at + bad, where,
                      "i1 element " + std::to_string(bad) + " is " +
                          std::to_string(t.data[bad]) + ", not 0 or 1");
    }
    return true;
  }

  bool failAt(uint64_t at, const std::string &where,
              const std::string &message) {
    error = "byte " + std::to_string(at) + ": " +
            (where.empty() ? "" : where + ": ") + message;
    return false;
  }

  /// Whether `n` more bytes are left; reports a truncation if not.
  bool fits(uint64_t n, const std::string &where, const std::string &what) {
    uint64_t left = source.size() - offset;
    if (n <= left)
      return true;
    return failAt(offset, where,
                  "truncated: " + what + " needs " + std::to_string(n) +
                      " bytes, " + std::to_string(left) + " left");
  }

  bool take(void *out, size_t n, const std::string &where,
            const std::string &what) {
    if (!fits(n, where, what))
      return false;
    std::string why;
    if (!source.next(out, n, why))
      return failAt(offset, where, why);
    offset += n;
    return true;
  }

  /// A little-endian unsigned integer of `n` bytes.
  bool little(uint64_t &value, size_t n, const std::string &where,
              const std::string &what) {
    uint8_t b[8];
    if (!take(b, n, where, what))
      return false;
    value = 0;
    for (size_t i = 0; i < n; ++i)
      value |= static_cast<uint64_t>(b[i]) << (8 * i);
    return true;
  }
  bool u32(uint32_t &value, const std::string &where, const std::string &what) {
    uint64_t v;
    if (!little(v, 4, where, what))
      return false;
    value = static_cast<uint32_t>(v);
    return true;
  }
  bool u64(uint64_t &value, const std::string &where, const std::string &what) {
    return little(value, 8, where, what);
  }
  bool i64(int64_t &value, const std::string &where, const std::string &what) {
    uint64_t v;
    if (!little(v, 8, where, what))
      return false;
    std::memcpy(&value, &v, sizeof(v));
    return true;
  }

  /// A u32 length and that many bytes of name, checked by checkName.
  bool name(std::string &out, const std::string &where) {
    uint32_t length;
    if (!u32(length, where, "name_len"))
      return false;
    uint64_t at = offset;
    if (!fits(length, where, "name"))
      return false;
    out.resize(length);
    if (!take(&out[0], length, where, "name"))
      return false;
    std::string why = format::checkName(out);
    if (!why.empty())
      return failAt(at, where, why);
    return true;
  }

  Source &source;
  std::string &error;
  uint64_t offset = 0;
};

} // namespace

bool fkrt::bundle::parse(const void *data, size_t size, Bundle &bundle,
                         std::string &error) {
  bundle = Bundle();
  MemorySource source(size ? data : "", size);
  if (Reader(source, error).readBundle(bundle))
    return true;
  bundle = Bundle();
  return false;
}

bool fkrt::bundle::read(const std::string &path, Bundle &bundle,
                        std::string &error) {
  bundle = Bundle();
  FileSource source;
  std::string why;
  if (!source.open(path, why)) {
    error = path + ": " + why;
    return false;
  }
  if (Reader(source, why).readBundle(bundle))
    return true;
  bundle = Bundle();
  error = path + ": " + why;
  return false;
}
