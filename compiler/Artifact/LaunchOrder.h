//===- LaunchOrder.h - which launches a replay runs after which --*- C++ -*-===//
//
// A CUDA-graph replay runs a graph's launches at once where neither touches
// memory the other writes (docs/artifact.md, "CUDA graphs"): a decode
// step's query, key and value projections run together. Two workspace
// buffers that share bytes make the launches of the later one wait for
// those of the earlier, which their data alone might not: three split-K
// products whose partial sums shared bytes ran one after the other.
//
// So fkc lets a buffer share the bytes of an earlier one only where each
// launch of the later one lies deeper in the order of the launches' data
// (each buffer with bytes of its own) than every launch of the earlier:
// then it cannot start before launches at least as deep as those, and
// waiting for them costs little. A launch's depth is the longest chain of
// launches it waits for. Sharing where one launch waits for the other
// anyway is always allowed (the waiter is deeper); sharing between launches
// of one depth, such as sibling projections, never is. The values a layer
// leaves behind for launches that nothing waits for (a cache write) still
// share bytes with the next layers', which are deeper. Launches of two row
// variants of one fusion never both run (RowVariants.h): they may share
// whatever their depths.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_ARTIFACT_LAUNCHORDER_H
#define FKC_ARTIFACT_LAUNCHORDER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mlir::fk {

/// A launch's use of a buffer (by an id of the caller's).
struct BufferUse {
  int64_t buffer;
  bool writes;
};

/// The runs a launch serves: every run, or for a row variant's launch
/// those of one variant of fusion `fusion`, which `variant` names.
struct LaunchRuns {
  int64_t fusion = -1;
  int64_t variant = 0;

  /// Whether no run has blocks in both launches.
  bool excludes(const LaunchRuns &other) const {
    return fusion >= 0 && fusion == other.fusion && variant != other.variant;
  }
};

/// The depth of each launch of a graph when every buffer has bytes of its
/// own: 0 for a launch that waits for none, else one more than the deepest
/// launch it waits for. Launch j waits for an earlier launch i that uses a
/// buffer j uses where either may write it.
class LaunchOrder {
public:
  /// `uses[l]`: the buffers launch l uses; `runs[l]`: the runs it serves.
  LaunchOrder(llvm::ArrayRef<std::vector<BufferUse>> uses,
              std::vector<LaunchRuns> runs);

  int64_t getDepth(int64_t launch) const { return depths[launch]; }

  /// Whether a buffer whose launches are `later` may share the bytes of one
  /// whose launches are `earlier`: each of `later` is deeper than every
  /// launch of `earlier` that may run with it.
  bool mayFollow(llvm::ArrayRef<int64_t> later,
                 llvm::ArrayRef<int64_t> earlier) const;

private:
  std::vector<int64_t> depths;
  std::vector<LaunchRuns> runs;
};

} // namespace mlir::fk

#endif // FKC_ARTIFACT_LAUNCHORDER_H
