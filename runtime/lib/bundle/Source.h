//===- Source.h - Where a reader's bytes come from --------------*- C++ -*-===//
//
// The byte sources of the bundle and .safetensors readers: memory, or a
// file read as it is decoded (so a file of several GiB is not held twice).
// Both readers ask for bytes in order and never for more than size().
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_BUNDLE_SOURCE_H
#define FKRT_LIB_BUNDLE_SOURCE_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>

namespace fkrt {
namespace bundle {

/// The bytes of one input, taken in order.
class Source {
public:
  virtual ~Source() = default;
  /// Copies the next `n` bytes to `out`; false (with `error` set) on an I/O
  /// error. The reader never asks for more than size() in total.
  virtual bool next(void *out, size_t n, std::string &error) = 0;
  uint64_t size() const { return total; }

protected:
  uint64_t total = 0;
};

class MemorySource : public Source {
public:
  MemorySource(const void *data, size_t size)
      : data(static_cast<const uint8_t *>(data)) {
    total = size;
  }
  bool next(void *out, size_t n, std::string &) override {
    if (n)
      std::memcpy(out, data + at, n);
    at += n;
    return true;
  }

private:
  const uint8_t *data;
  size_t at = 0;
};

class FileSource : public Source {
public:
  ~FileSource() override {
    if (file)
      std::fclose(file);
  }
  bool open(const std::string &path, std::string &error) {
    file = std::fopen(path.c_str(), "rb");
    if (!file) {
      error = std::string("cannot open: ") + std::strerror(errno);
      return false;
    }
    struct stat info;
    if (fstat(fileno(file), &info) != 0) {
      error = std::string("cannot stat: ") + std::strerror(errno);
      return false;
    }
    if (!S_ISREG(info.st_mode)) {
      error = "not a regular file";
      return false;
    }
    total = static_cast<uint64_t>(info.st_size);
    return true;
  }
  bool next(void *out, size_t n, std::string &error) override {
    if (std::fread(out, 1, n, file) == n)
      return true;
    error = std::ferror(file)
                ? std::string("read error: ") + std::strerror(errno)
                : "the file shrank while being read";
    return false;
  }

private:
  std::FILE *file = nullptr;
};

} // namespace bundle
} // namespace fkrt

#endif // FKRT_LIB_BUNDLE_SOURCE_H
