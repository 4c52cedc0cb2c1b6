//===- LaunchOrder.cpp - which launches a replay runs after which ---------===//

#include "Artifact/LaunchOrder.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir::fk;

LaunchOrder::LaunchOrder(llvm::ArrayRef<std::vector<BufferUse>> uses,
                         std::vector<LaunchRuns> runs)
    : runs(std::move(runs)) {
  depths.assign(uses.size(), 0);
  // Per buffer, the deepest launch so far that wrote it and that read it
  // (-1: none): a launch waits for every earlier writer of what it uses,
  // and a writer for every earlier reader too.
  struct Deepest {
    int64_t writer = -1, reader = -1;
  };
  llvm::DenseMap<int64_t, Deepest> deepest;
  for (size_t j = 0; j < uses.size(); ++j) {
    int64_t waitsFor = -1;
    for (const BufferUse &use : uses[j]) {
      const Deepest &earlier = deepest[use.buffer];
      waitsFor = std::max(waitsFor, earlier.writer);
      if (use.writes)
        waitsFor = std::max(waitsFor, earlier.reader);
    }
    depths[j] = waitsFor + 1;
    for (const BufferUse &use : uses[j]) {
      int64_t &slot =
          use.writes ? deepest[use.buffer].writer : deepest[use.buffer].reader;
      slot = std::max(slot, depths[j]);
    }
  }
}

bool LaunchOrder::mayFollow(llvm::ArrayRef<int64_t> later,
                            llvm::ArrayRef<int64_t> earlier) const {
  for (int64_t j : later)
    for (int64_t i : earlier)
      if (depths[j] <= depths[i] && !runs[j].excludes(runs[i]))
        return false;
  return true;
}
