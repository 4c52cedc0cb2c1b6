//===- LaunchOrder.cpp - which launches a replay runs after which ---------===//

#include "Artifact/LaunchOrder.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir::fk;

LaunchOrder::LaunchOrder(llvm::ArrayRef<std::vector<BufferUse>> uses,
                         std::vector<LaunchRuns> runs)
    : runs(std::move(runs)) {
  depths.assign(uses.size(), 0);
  // Per memory id, the launches so far that wrote it and that read it: a
  // launch waits for every earlier writer of what it uses, and a writer for
  // every earlier reader too.
  struct Users {
    std::vector<size_t> writers, readers;
  };
  llvm::DenseMap<int64_t, Users> users;
  for (size_t j = 0; j < uses.size(); ++j) {
    int64_t waitsFor = -1;
    auto waitFor = [&](const std::vector<size_t> &earlier) {
      for (size_t i : earlier)
        if (!this->runs[j].excludes(this->runs[i]))
          waitsFor = std::max(waitsFor, depths[i]);
    };
    for (const BufferUse &use : uses[j]) {
      const Users &earlier = users[use.memory];
      waitFor(earlier.writers);
      if (use.writes)
        waitFor(earlier.readers);
    }
    depths[j] = waitsFor + 1;
    for (const BufferUse &use : uses[j]) {
      Users &mine = users[use.memory];
      (use.writes ? mine.writers : mine.readers).push_back(j);
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
