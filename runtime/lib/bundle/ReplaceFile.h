//===- ReplaceFile.h - Writing a file that readers see whole ----*- C++ -*-===//
//
// The bundle and .safetensors writers write PATH.partial and rename it into
// place, so that a reader of PATH sees the old file or the new one, never a
// part of one, and a failed write leaves no file behind.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_BUNDLE_REPLACEFILE_H
#define FKRT_LIB_BUNDLE_REPLACEFILE_H

#include <cstdio>
#include <functional>
#include <string>

namespace fkrt {
namespace bundle {

/// Writes `path` through `write` (which returns false on a write error,
/// leaving errno set) into `path`.partial, then renames that over `path`.
/// On failure removes the partial file and sets `error`.
bool replaceFile(const std::string &path,
                 const std::function<bool(std::FILE *)> &write,
                 std::string &error);

} // namespace bundle
} // namespace fkrt

#endif // FKRT_LIB_BUNDLE_REPLACEFILE_H
