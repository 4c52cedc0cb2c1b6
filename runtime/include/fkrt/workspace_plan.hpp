//===- fkrt/workspace_plan.hpp - placing buffers in a workspace -*- C++ -*-===//
//
// Values passed between a graph's kernels live in one workspace allocation
// per run. Two buffers may share bytes when no launch uses both while both
// hold live data: their lifetimes, from the first launch that uses one to
// the last, do not overlap. fkc places the buffers whose sizes it knows
// when it compiles (the manifest's offsets); the runtime places those sized
// per run (a symbol without a bound) the same way, at each run's sizes
// (docs/artifact.md, "Workspace").
//
// Part of the bundle library (fkrt::bundle), which the compiler links, and
// of the runtime: plain C++17, no exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_WORKSPACE_PLAN_HPP
#define FKRT_WORKSPACE_PLAN_HPP

#include <cstdint>
#include <functional>
#include <vector>

namespace fkrt {

/// A buffer and the launches (indices into the graph's launches, inclusive)
/// that use it. A buffer no launch uses has `first > last`.
struct BufferLifetime {
  uint64_t bytes = 0;
  int64_t first = 0;
  int64_t last = -1;

  bool overlaps(const BufferLifetime &other) const {
    return first <= last && other.first <= other.last &&
           first <= other.last && other.first <= last;
  }
};

struct WorkspacePlan {
  /// The offset of each buffer, a multiple of the alignment.
  std::vector<uint64_t> offsets;
  /// The end of the last placed byte, rounded up to the alignment: the
  /// workspace size the offsets need (`start` when no buffer has bytes).
  uint64_t bytes = 0;
};

/// The workspace alignment: cuMemAlloc's, and every buffer's.
constexpr uint64_t kWorkspaceAlignment = 256;

/// Whether buffers `a` and `b` (indices into the buffers planned), whose
/// lifetimes do not overlap, may still share bytes.
using MayShareBytes = std::function<bool(size_t a, size_t b)>;

/// Places `buffers` greedily, largest first, each at the lowest offset from
/// `start` (a multiple of `alignment`) that is a multiple of `alignment` and
/// overlaps no placed buffer of an overlapping lifetime, nor one that
/// `mayShare`, when given, keeps apart. Returns false if an offset would not
/// fit 64 bits.
bool planWorkspace(const std::vector<BufferLifetime> &buffers,
                   WorkspacePlan &plan, uint64_t start = 0,
                   uint64_t alignment = kWorkspaceAlignment,
                   const MayShareBytes &mayShare = {});

} // namespace fkrt

#endif // FKRT_WORKSPACE_PLAN_HPP
