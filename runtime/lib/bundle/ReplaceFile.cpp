//===- ReplaceFile.cpp - Writing a file that readers see whole ------------===//

#include "ReplaceFile.h"

#include <cerrno>
#include <cstring>

bool fkrt::bundle::replaceFile(const std::string &path,
                               const std::function<bool(std::FILE *)> &write,
                               std::string &error) {
  const std::string partial = path + ".partial";
  std::FILE *file = std::fopen(partial.c_str(), "wb");
  if (!file) {
    error = partial + ": cannot create: " + std::strerror(errno);
    return false;
  }
  bool written = write(file);
  int writeErrno = errno;
  // fclose flushes: its failure is a write failure too.
  if (std::fclose(file) != 0 && written) {
    written = false;
    writeErrno = errno;
  }
  if (!written) {
    std::remove(partial.c_str());
    error = partial + ": write error: " + std::strerror(writeErrno);
    return false;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    error = path + ": cannot rename " + partial +
            " into place: " + std::strerror(errno);
    std::remove(partial.c_str());
    return false;
  }
  return true;
}
