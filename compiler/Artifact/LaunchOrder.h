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
// (each buffer with bytes of its own) than every launch of the earlier. A
// launch's depth is the longest chain of launches it waits for; a deeper
// launch starts only after a chain at least as long has run, so waiting
// for the earlier launches as well likely costs little. This is a
// heuristic: it keeps apart the buffers of launches of one depth (sibling
// projections), always lets a launch share with those it waits for anyway,
// and lets the values a layer leaves for launches nothing waits for (a
// cache write) share bytes with the next layers', which are deeper. Launches
// of two row variants of one fusion never both run (RowVariants.h): they
// count as neither waiting for the other and may share whatever their
// depths. runtime/lib/LaunchDependencies.h states the same read and write
// rule for the bytes of a run.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_ARTIFACT_LAUNCHORDER_H
#define FKC_ARTIFACT_LAUNCHORDER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mlir::fk {

/// A launch's use of memory: a buffer, by an id of the caller's that two
/// buffers of the same memory (an inout parameter's input and output)
/// share.
struct BufferUse {
  int64_t memory;
  bool writes;
};

/// The runs a launch serves: every run, or for a row variant's launch
/// those of one variant of fusion `fusion`: the runs of more than `above`
/// rows (up to the next variant's).
struct LaunchRuns {
  int64_t fusion = -1;
  int64_t above = 0;

  /// Whether no run has blocks in both launches.
  bool excludes(const LaunchRuns &other) const {
    return fusion >= 0 && fusion == other.fusion && above != other.above;
  }
};

/// The depth of each launch of a graph when every buffer has bytes of its
/// own: 0 for a launch that waits for none, else one more than the deepest
/// launch it waits for. Launch j waits for an earlier launch i that uses
/// memory j uses where either may write it, unless no run has blocks in
/// both.
class LaunchOrder {
public:
  /// `uses[l]`: the buffers launch l uses; `runs[l]`: the runs it serves.
  LaunchOrder(llvm::ArrayRef<std::vector<BufferUse>> uses,
              std::vector<LaunchRuns> runs);

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
