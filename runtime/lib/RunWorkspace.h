//===- RunWorkspace.h - a run's workspace layout ----------------*- C++ -*-===//
//
// A run's workspace holds the graph's buffers between kernels, then its
// tensor map descriptors. The buffers fkc placed when it compiled lie at the
// manifest's offsets, below `workspace_bytes`; those it could not size (a
// symbol without a bound, version 5) are placed per run, after them, at the
// run's sizes, sharing bytes where their lifetimes allow
// (fkrt/workspace_plan.hpp; docs/artifact.md, "Workspace").
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_RUNWORKSPACE_H
#define FKRT_LIB_RUNWORKSPACE_H

#include "Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {

struct RunWorkspace {
  /// Per buffer placed per run (by BufferSpec::runSlot): its bytes and its
  /// offset in the run's workspace.
  std::vector<uint64_t> bytes, offsets;
  /// Where the tensor map descriptors start.
  uint64_t descriptorOffset = 0;
  /// The bytes the run's workspace needs: buffers and descriptors.
  uint64_t totalBytes = 0;

  /// Buffer `b`'s offset and bytes in this run's workspace.
  uint64_t offset(const BufferSpec &b) const {
    return b.placedAtRun ? offsets[b.runSlot] : b.offset;
  }
  uint64_t size(const BufferSpec &b) const {
    return b.placedAtRun ? bytes[b.runSlot] : b.bytes;
  }
};

/// Lays out the workspace of a run of `g` at the symbol sizes `symbols`. A
/// buffer whose bytes do not fit 64 bits at these sizes (or are negative)
/// is FKRT_ERROR_INVALID_ARGUMENT, with a message starting with `where`.
fkrt_status layOutRunWorkspace(const GraphSpec &g,
                               const std::vector<int64_t> &symbols,
                               RunWorkspace &workspace,
                               const std::string &where);

} // namespace fkrt

#endif // FKRT_LIB_RUNWORKSPACE_H
