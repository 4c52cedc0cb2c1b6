//===- Safetensors.cpp - Reading and writing .safetensors files -----------===//
//
// The reader takes the header length and the header first and checks the
// whole header (JSON, dtypes, shapes, byte ranges that tile the data section
// exactly) before it allocates any tensor data; the data is then read once,
// in file order. The writer lays tensors out as safetensors' own does.
//
//===----------------------------------------------------------------------===//

#include "../DtypeTable.h"
#include "../Json.h"
#include "Format.h"
#include "ReplaceFile.h"
#include "Source.h"
#include "fkrt/safetensors.hpp"

#include <algorithm>
#include <map>
#include <set>

using namespace fkrt;
using namespace fkrt::safetensors;
using bundle::Tensor;

const Tensor *File::find(const std::string &name) const {
  for (const Tensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

const char *fkrt::safetensors::dtypeName(fkrt_dtype dtype) {
  const char *name = detail::safetensorsDtypeName(dtype);
  return name ? name : "?";
}

bool fkrt::safetensors::parseDtype(const std::string &name,
                                   fkrt_dtype &dtype) {
  for (uint32_t d = 0; d <= bundle::format::kMaxDtype; ++d)
    if (name == detail::safetensorsDtypeName(static_cast<fkrt_dtype>(d))) {
      dtype = static_cast<fkrt_dtype>(d);
      return true;
    }
  return false;
}

namespace {

const char *const kMetadataKey = "__metadata__";

/// "F32, F16, BF16, I32, BOOL, I64": the dtypes a header may name.
std::string knownDtypes() {
  std::string s;
  for (uint32_t d = 0; d <= bundle::format::kMaxDtype; ++d)
    s += std::string(d ? ", " : "") +
         detail::safetensorsDtypeName(static_cast<fkrt_dtype>(d));
  return s;
}

/// A tensor entry of the header and where its bytes are.
struct Entry {
  Tensor tensor;
  uint64_t begin = 0, end = 0;
};

class Reader {
public:
  Reader(bundle::Source &source, std::string &error)
      : source(source), error(error) {}

  bool readFile(File &file) {
    uint64_t size = source.size();
    if (size < 8)
      return fail("truncated: " + std::to_string(size) +
                  " bytes, the header length alone takes 8");
    uint8_t lengthBytes[8];
    if (!take(lengthBytes, 8))
      return false;
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i)
      length |= static_cast<uint64_t>(lengthBytes[i]) << (8 * i);
    if (length > kMaxHeaderBytes)
      return fail("header length " + std::to_string(length) +
                  " exceeds the limit of " + std::to_string(kMaxHeaderBytes) +
                  " bytes");
    if (length > size - 8)
      return fail("truncated: header length " + std::to_string(length) +
                  " runs past the end of the file (" + std::to_string(size) +
                  " bytes)");
    std::string text(static_cast<size_t>(length), '\0');
    if (!take(&text[0], text.size()))
      return false;
    const uint64_t dataBytes = size - 8 - length;

    std::vector<Entry> entries;
    if (!readHeader(text, dataBytes, entries, file.metadata))
      return false;
    // The byte ranges must tile the data section: in order of their
    // offsets, each tensor starts where the one before ends (zero-byte
    // tensors may share an offset), and the last ends the file.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry &a, const Entry &b) {
                       return a.begin != b.begin ? a.begin < b.begin
                                                 : a.end < b.end;
                     });
    uint64_t at = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const Entry &e = entries[i];
      if (e.begin < at)
        return fail("tensor '" + e.tensor.name + "': data_offsets [" +
                    std::to_string(e.begin) + ", " + std::to_string(e.end) +
                    "] overlap those of tensor '" + entries[i - 1].tensor.name +
                    "' [" + std::to_string(entries[i - 1].begin) + ", " +
                    std::to_string(entries[i - 1].end) + "]");
      if (e.begin > at)
        return fail("bytes [" + std::to_string(at) + ", " +
                    std::to_string(e.begin) +
                    ") of the data section belong to no tensor");
      at = e.end;
    }
    if (at != dataBytes)
      return fail("bytes [" + std::to_string(at) + ", " +
                  std::to_string(dataBytes) +
                  ") of the data section belong to no tensor");

    for (Entry &e : entries) {
      Tensor &t = e.tensor;
      t.data.resize(static_cast<size_t>(e.end - e.begin));
      if (!take(t.data.data(), t.data.size()))
        return false;
      if (t.dtype == FKRT_I1) {
        size_t bad =
            bundle::format::firstBadBoolean(t.data.data(), t.data.size());
        if (bad != t.data.size())
          return fail("tensor '" + t.name + "': BOOL element " +
                      std::to_string(bad) + " is " +
                      std::to_string(t.data[bad]) + ", not 0 or 1");
      }
      file.tensors.push_back(std::move(t));
    }
    return true;
  }

private:
  bool fail(const std::string &message) {
    error = message;
    return false;
  }

  bool take(void *out, size_t n) {
    std::string why;
    if (!source.next(out, n, why))
      return fail(why);
    return true;
  }

  /// Checks the header `text` of a file with `dataBytes` of data and
  /// collects its tensors (without data) and metadata.
  bool readHeader(const std::string &text, uint64_t dataBytes,
                  std::vector<Entry> &entries,
                  std::vector<std::pair<std::string, std::string>> &metadata) {
    size_t bad = json::findInvalidUtf8(text, 0, text.size());
    if (bad != std::string::npos)
      return fail("header: byte " + std::to_string(8 + bad) +
                  " is not valid UTF-8");
    json::Limits limits;
    limits.maxBytes = kMaxHeaderBytes;
    // Nothing in a header nests deeper than 3.
    limits.maxDepth = 4;
    json::Value root;
    std::string why;
    if (!json::parse(text, root, why, limits))
      return fail("header: " + why);
    if (root.kind != json::Value::Object)
      return fail("header: not a JSON object");
    for (const auto &[name, value] : root.members) {
      if (name == kMetadataKey) {
        if (!readMetadata(value, metadata))
          return false;
        continue;
      }
      Entry e;
      e.tensor.name = name;
      if (!readEntry(value, dataBytes, e))
        return false;
      entries.push_back(std::move(e));
    }
    return true;
  }

  bool readMetadata(const json::Value &value,
                    std::vector<std::pair<std::string, std::string>> &out) {
    if (value.kind != json::Value::Object)
      return fail("header: __metadata__ is not an object of strings");
    for (const auto &[key, v] : value.members) {
      if (v.kind != json::Value::String)
        return fail("header: __metadata__ '" + key + "' is not a string");
      out.emplace_back(key, v.text);
    }
    return true;
  }

  /// A JSON number that is an integer in [0, 2^63).
  static bool natural(const json::Value &v, int64_t &n) {
    bool overflow = false;
    return v.kind == json::Value::Number &&
           json::toInt64(v.text, n, overflow) && !overflow && n >= 0;
  }

  bool readEntry(const json::Value &value, uint64_t dataBytes, Entry &e) {
    Tensor &t = e.tensor;
    const std::string where = "tensor '" + t.name + "': ";
    std::string why = bundle::format::checkName(t.name);
    if (!why.empty())
      return fail(where + why);
    if (value.kind != json::Value::Object)
      return fail(where + "not an object with dtype, shape and data_offsets");
    for (const auto &member : value.members)
      if (member.first != "dtype" && member.first != "shape" &&
          member.first != "data_offsets")
        return fail(where + "unknown field '" + member.first +
                    "' (a tensor has dtype, shape and data_offsets)");
    const json::Value *dtype = value.find("dtype"),
                      *shape = value.find("shape"),
                      *offsets = value.find("data_offsets");
    if (!dtype || !shape || !offsets)
      return fail(where + "no " +
                  (!dtype ? "dtype" : !shape ? "shape" : "data_offsets"));
    if (dtype->kind != json::Value::String)
      return fail(where + "dtype is not a string");
    if (!parseDtype(dtype->text, t.dtype))
      return fail(where + "dtype " + dtype->text +
                  " is not one fkc supports (" + knownDtypes() + ")");
    if (shape->kind != json::Value::Array)
      return fail(where + "shape is not an array");
    if (shape->elements.size() > bundle::kMaxRank)
      return fail(where + "rank " + std::to_string(shape->elements.size()) +
                  " exceeds " + std::to_string(bundle::kMaxRank));
    for (size_t i = 0; i < shape->elements.size(); ++i) {
      int64_t d;
      if (!natural(shape->elements[i], d))
        return fail(where + "shape[" + std::to_string(i) +
                    "] is not an integer in [0, 2^63)");
      t.shape.push_back(d);
    }
    uint64_t bytes = 0;
    why = bundle::format::checkType(static_cast<uint32_t>(t.dtype), t.shape,
                                    bytes);
    if (!why.empty())
      return fail(where + why);
    int64_t begin, end;
    if (offsets->kind != json::Value::Array || offsets->elements.size() != 2 ||
        !natural(offsets->elements[0], begin) ||
        !natural(offsets->elements[1], end))
      return fail(where + "data_offsets is not two integers in [0, 2^63)");
    e.begin = static_cast<uint64_t>(begin);
    e.end = static_cast<uint64_t>(end);
    const std::string range =
        "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
        "]";
    if (e.end < e.begin)
      return fail(where + range + " end before they begin");
    if (e.end > dataBytes)
      return fail(where + range + " run past the end of the data section (" +
                  std::to_string(dataBytes) + " bytes)");
    if (e.end - e.begin != bytes)
      return fail(where + range + " hold " + std::to_string(e.end - e.begin) +
                  " bytes, " + bundle::typeString(t.dtype, t.shape) +
                  " takes " + std::to_string(bytes));
    return true;
  }

  bundle::Source &source;
  std::string &error;
};

/// A JSON string literal of `s` (names and metadata are UTF-8 already).
std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", u);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// The order the writer stores `tensors` in: decreasing element size, then
/// name, so that every tensor starts at a multiple of its element size.
std::vector<const Tensor *> storageOrder(const std::vector<Tensor> &tensors) {
  std::vector<const Tensor *> order;
  for (const Tensor &t : tensors)
    order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const Tensor *a, const Tensor *b) {
    size_t sa = bundle::dtypeSize(a->dtype), sb = bundle::dtypeSize(b->dtype);
    return sa != sb ? sa > sb : a->name < b->name;
  });
  return order;
}

/// Checks what the writer needs of `file`: tensors bundle::validate would
/// accept, with unique names, none of them "__metadata__".
bool validate(const File &file, std::string &error) {
  std::set<std::string> names;
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const Tensor &t = file.tensors[i];
    std::string why = bundle::format::checkTensor(t);
    if (why.empty() && !bundle::format::unique(names, t.name))
      why = "duplicate tensor name";
    if (why.empty() && t.name == kMetadataKey)
      why = "a tensor may not be called __metadata__";
    if (why.empty() &&
        json::findInvalidUtf8(t.name, 0, t.name.size()) != std::string::npos)
      why = "name is not valid UTF-8";
    if (!why.empty()) {
      error = "tensor " + std::to_string(i) + " ('" + t.name + "'): " + why;
      return false;
    }
  }
  for (const auto &[key, value] : file.metadata)
    if (json::findInvalidUtf8(key, 0, key.size()) != std::string::npos ||
        json::findInvalidUtf8(value, 0, value.size()) != std::string::npos) {
      error = "__metadata__ '" + key + "' is not valid UTF-8";
      return false;
    }
  return true;
}

} // namespace

bool fkrt::safetensors::parse(const void *data, size_t size, File &file,
                              std::string &error) {
  file = File();
  bundle::MemorySource source(size ? data : "", size);
  if (Reader(source, error).readFile(file))
    return true;
  file = File();
  return false;
}

bool fkrt::safetensors::read(const std::string &path, File &file,
                             std::string &error) {
  file = File();
  bundle::FileSource source;
  std::string why;
  if (source.open(path, why) && Reader(source, why).readFile(file))
    return true;
  file = File();
  error = path + ": " + why;
  return false;
}

bool fkrt::safetensors::serialize(const File &file, std::string &bytes,
                                  std::string &error) {
  bytes.clear();
  if (!validate(file, error))
    return false;
  std::vector<const Tensor *> order = storageOrder(file.tensors);
  std::string header = "{";
  if (!file.metadata.empty()) {
    header += quote(kMetadataKey) + ":{";
    for (size_t i = 0; i < file.metadata.size(); ++i)
      header += (i ? "," : "") + quote(file.metadata[i].first) + ":" +
                quote(file.metadata[i].second);
    header += "}";
  }
  uint64_t offset = 0;
  for (const Tensor *t : order) {
    if (header.size() > 1)
      header += ",";
    header += quote(t->name) + ":{\"dtype\":\"" + dtypeName(t->dtype) +
              "\",\"shape\":[";
    for (size_t i = 0; i < t->shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t->shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + t->data.size()) + "]}";
    offset += t->data.size();
  }
  header += "}";
  // The data section starts at a multiple of 8 bytes.
  header.append((8 - header.size() % 8) % 8, ' ');
  if (header.size() > kMaxHeaderBytes) {
    error = "the header of " + std::to_string(header.size()) +
            " bytes exceeds the limit of " + std::to_string(kMaxHeaderBytes);
    return false;
  }
  bytes.reserve(8 + header.size() + offset);
  for (int i = 0; i < 8; ++i)
    bytes += static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  bytes += header;
  for (const Tensor *t : order)
    bytes.append(reinterpret_cast<const char *>(t->data.data()),
                 t->data.size());
  return true;
}

bool fkrt::safetensors::write(const std::string &path, const File &file,
                              std::string &error) {
  std::string bytes;
  if (!serialize(file, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  return fkrt::bundle::replaceFile(
      path,
      [&](std::FILE *out) {
        return std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
      },
      error);
}

bool fkrt::safetensors::readAll(const std::vector<std::string> &paths,
                                std::vector<Tensor> &tensors,
                                std::vector<std::string> &origins,
                                std::string &error) {
  tensors.clear();
  origins.clear();
  std::map<std::string, std::string> fileOf;
  for (const std::string &path : paths) {
    File file;
    if (!read(path, file, error))
      return false;
    for (Tensor &t : file.tensors) {
      auto [it, fresh] = fileOf.emplace(t.name, path);
      if (!fresh) {
        error = "tensor '" + t.name + "' is in both " + it->second + " and " +
                path;
        return false;
      }
      origins.push_back(path);
      tensors.push_back(std::move(t));
    }
  }
  return true;
}
