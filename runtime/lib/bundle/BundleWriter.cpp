//===- BundleWriter.cpp - Writing tensor bundles --------------------------===//
//
// Encodes a validated Bundle, to memory or to a file. Integers are written
// byte by byte in little-endian order whatever the host's; tensor data is
// copied as is (Tensor::data is already in file order).
//
//===----------------------------------------------------------------------===//

#include "Format.h"
#include "ReplaceFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace fkrt;
using namespace fkrt::bundle;

namespace {

/// Receives the encoded bytes in order.
class Sink {
public:
  virtual ~Sink() = default;
  virtual bool put(const void *data, size_t n) = 0;
};

class StringSink : public Sink {
public:
  explicit StringSink(std::string &out) : out(out) {}
  bool put(const void *data, size_t n) override {
    out.append(static_cast<const char *>(data), n);
    return true;
  }

private:
  std::string &out;
};

class FileSink : public Sink {
public:
  explicit FileSink(std::FILE *file) : file(file) {}
  bool put(const void *data, size_t n) override {
    return std::fwrite(data, 1, n, file) == n;
  }

private:
  std::FILE *file;
};

bool little(Sink &sink, uint64_t value, size_t n) {
  uint8_t b[8];
  for (size_t i = 0; i < n; ++i)
    b[i] = static_cast<uint8_t>(value >> (8 * i));
  return sink.put(b, n);
}

bool name(Sink &sink, const std::string &s) {
  return little(sink, s.size(), 4) && sink.put(s.data(), s.size());
}

bool tensor(Sink &sink, const Tensor &t) {
  if (!name(sink, t.name) || !little(sink, t.dtype, 4) ||
      !little(sink, t.shape.size(), 4))
    return false;
  for (int64_t d : t.shape)
    if (!little(sink, static_cast<uint64_t>(d), 8))
      return false;
  return little(sink, t.data.size(), 8) &&
         sink.put(t.data.data(), t.data.size());
}

/// Encodes `bundle`, which validate() accepted, into `sink`.
bool encode(Sink &sink, const Bundle &bundle) {
  if (!sink.put(kMagic, sizeof(kMagic)) ||
      !little(sink, bundle.graphs.size(), 4))
    return false;
  for (const Graph &g : bundle.graphs) {
    if (!name(sink, g.name) || !little(sink, g.seed, 8) ||
        !little(sink, g.inputs.size(), 4) || !little(sink, g.outputs.size(), 4))
      return false;
    for (const Tensor &t : g.inputs)
      if (!tensor(sink, t))
        return false;
    for (const Tensor &t : g.outputs)
      if (!tensor(sink, t))
        return false;
  }
  return true;
}

} // namespace

bool fkrt::bundle::serialize(const Bundle &bundle, std::string &bytes,
                             std::string &error) {
  bytes.clear();
  if (!validate(bundle, error))
    return false;
  StringSink sink(bytes);
  return encode(sink, bundle);
}

bool fkrt::bundle::write(const std::string &path, const Bundle &bundle,
                         std::string &error) {
  if (!validate(bundle, error)) {
    error = path + ": " + error;
    return false;
  }
  return replaceFile(
      path,
      [&](std::FILE *file) {
        FileSink sink(file);
        return encode(sink, bundle);
      },
      error);
}
