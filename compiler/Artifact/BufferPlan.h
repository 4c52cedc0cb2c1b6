//===- BufferPlan.h - placing intermediate buffers in a workspace -*- C++ -*-===//
//
// Values passed between kernels live in one workspace allocation per run.
// Two buffers may share bytes when no launch uses both while both hold live
// data: their lifetimes, from the first launch that uses one to the last, do
// not overlap.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_ARTIFACT_BUFFERPLAN_H
#define FKC_ARTIFACT_BUFFERPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>

namespace mlir::fk {

/// A buffer and the launches (indices into the launch sequence, inclusive)
/// that use it. A buffer no launch uses has `first > last`.
struct BufferLifetime {
  int64_t bytes = 0;
  int64_t first = 0;
  int64_t last = -1;

  bool overlaps(const BufferLifetime &other) const {
    return first <= last && other.first <= other.last &&
           first <= other.last && other.first <= last;
  }
};

struct WorkspacePlan {
  /// The offset of each buffer, a multiple of the alignment.
  llvm::SmallVector<int64_t> offsets;
  /// The workspace size the offsets need.
  int64_t bytes = 0;
};

/// Places `buffers` greedily, largest first, each at the lowest aligned
/// offset that overlaps no placed buffer of an overlapping lifetime.
WorkspacePlan planWorkspace(llvm::ArrayRef<BufferLifetime> buffers,
                            int64_t alignment = 256);

} // namespace mlir::fk

#endif // FKC_ARTIFACT_BUFFERPLAN_H
