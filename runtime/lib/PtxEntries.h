//===- PtxEntries.h - The kernels a PTX file defines ------------*- C++ -*-===//
//
// A small scanner over PTX text that finds every `.entry` directive and its
// parameter list, so that the manifest's launches can be checked against
// the kernels they call without the CUDA driver (docs/artifact.md, "The
// PTX"). It reads the file's structure, not its instructions: comments and
// strings are skipped, braces must balance, and only the headers of the
// entries at the top level are parsed. One pass, no recursion, memory
// proportional to the entry headers.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_PTXENTRIES_H
#define FKRT_LIB_PTXENTRIES_H

#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {
namespace ptx {

/// One parameter of an `.entry`, as declared:
///   .param [.align A] .TYPE [.ptr [.SPACE] [.align P]] NAME [ '[' N ']' ]
struct Param {
  std::string name;
  /// The type without its dot, e.g. "u64", "b8", "f32", "texref".
  std::string type;
  /// Bits of one element for the fundamental types, 0 for the others.
  unsigned bits = 0;
  /// A .bN, .uN or .sN type.
  bool integer = false;
  /// `NAME[N]`: an array of `count` elements.
  bool array = false;
  uint64_t count = 0;
  /// `.align A` of the parameter itself, 0 if not given.
  uint64_t align = 0;
  /// `.ptr`: a pointer into `space` ("" for generic, else e.g. "global")
  /// to memory aligned to `pointeeAlign` bytes (0 if not given).
  bool pointer = false;
  std::string space;
  uint64_t pointeeAlign = 0;

  /// The declaration in PTX syntax, e.g. ".param .u64 .ptr .align 16 p0".
  std::string text() const;
};

/// An `.entry` directive at the top level of the file.
struct Entry {
  std::string name;
  std::vector<Param> params;
  /// The line of the `.entry` token (1-based).
  unsigned line = 0;
  /// It has a body (`{ ... }`); an entry ended by `;` is only declared.
  bool defined = false;
};

/// A PTX identifier: a letter followed by letters, digits, '_' or '$', or
/// one of '_', '$', '%' followed by at least one of those.
bool isIdentifier(const std::string &name);

/// Scans `text` (a whole artifact: the manifest's comment lines are
/// comments to PTX) and appends each top-level `.entry` to `entries`, in
/// order. Returns false with `error` = "ptx: line N: ..." when a comment or
/// string is not closed, braces do not balance, an entry's header is not
/// well formed, or an entry is defined twice.
bool scanEntries(const std::string &text, std::vector<Entry> &entries,
                 std::string &error);

} // namespace ptx
} // namespace fkrt

#endif // FKRT_LIB_PTXENTRIES_H
