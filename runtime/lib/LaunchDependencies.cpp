//===- LaunchDependencies.cpp - which launches must wait for which --------===//

#include "LaunchDependencies.h"

#include <algorithm>

using namespace fkrt;

static bool conflict(const std::vector<MemoryAccess> &a,
                     const std::vector<MemoryAccess> &b) {
  for (const MemoryAccess &x : a)
    for (const MemoryAccess &y : b)
      if ((x.write || y.write) && x.begin < y.end && y.begin < x.end &&
          x.begin < x.end && y.begin < y.end)
        return true;
  return false;
}

std::vector<std::vector<size_t>> fkrt::getLaunchDependencies(
    const std::vector<std::vector<MemoryAccess>> &launches) {
  size_t n = launches.size(), words = (n + 63) / 64;
  // Bit i of ancestors[j]: launch j waits for launch i, directly or not.
  std::vector<std::vector<uint64_t>> ancestors(n,
                                               std::vector<uint64_t>(words));
  std::vector<std::vector<size_t>> dependencies(n);
  for (size_t j = 0; j < n; ++j) {
    std::vector<uint64_t> &mine = ancestors[j];
    // Latest first: an earlier conflicting launch that a later one already
    // waits for needs no edge of its own.
    for (size_t i = j; i-- > 0;) {
      if (mine[i / 64] >> (i % 64) & 1)
        continue;
      if (!conflict(launches[i], launches[j]))
        continue;
      dependencies[j].push_back(i);
      mine[i / 64] |= uint64_t(1) << (i % 64);
      for (size_t w = 0; w < words; ++w)
        mine[w] |= ancestors[i][w];
    }
    std::reverse(dependencies[j].begin(), dependencies[j].end());
  }
  return dependencies;
}
