//===- launch_dependencies_tests.cpp - which launches wait for which ------===//
//
// fkrt::getLaunchDependencies, a pure function: the hazards that order two
// launches (read after write, write after read, write after write, over
// overlapping byte ranges), those that do not (two reads, disjoint or
// touching ranges, empty ones), and the transitive reduction of the edges.
//
//===----------------------------------------------------------------------===//

#include "LaunchDependencies.h"
#include "TestSupport.h"

using fkrt::MemoryAccess;
using Waits = std::vector<std::vector<size_t>>;

namespace {

MemoryAccess reads(uint64_t begin, uint64_t end) { return {begin, end, false}; }
MemoryAccess writes(uint64_t begin, uint64_t end) { return {begin, end, true}; }

Waits waits(const std::vector<std::vector<MemoryAccess>> &launches) {
  return fkrt::getLaunchDependencies(launches);
}

void testHazards() {
  // Read after write, write after read, write after write.
  CHECK(waits({{writes(0, 64)}, {reads(0, 64)}}) == Waits({{}, {0}}));
  CHECK(waits({{reads(0, 64)}, {writes(0, 64)}}) == Waits({{}, {0}}));
  CHECK(waits({{writes(0, 64)}, {writes(32, 96)}}) == Waits({{}, {0}}));
  // Reads of the same memory, disjoint or touching ranges, empty ranges.
  CHECK(waits({{reads(0, 64)}, {reads(0, 64)}}) == Waits({{}, {}}));
  CHECK(waits({{writes(0, 64)}, {writes(64, 128)}}) == Waits({{}, {}}));
  CHECK(waits({{writes(0, 64)}, {reads(128, 256)}}) == Waits({{}, {}}));
  CHECK(waits({{writes(0, 0)}, {reads(0, 64)}}) == Waits({{}, {}}));
  CHECK(waits({}).empty());
}

/// A decode step's shape: a norm writes h; three projections read h and
/// write q, k, v; two rotations read q and k; the attention reads all.
void testDecodeStep() {
  const uint64_t h = 0, q = 1000, k = 2000, v = 3000, rq = 4000, rk = 5000,
                 out = 6000;
  std::vector<std::vector<MemoryAccess>> launches = {
      {reads(10000, 10100), writes(h, h + 100)},
      {reads(h, h + 100), reads(20000, 30000), writes(q, q + 100)},
      {reads(h, h + 100), reads(30000, 40000), writes(k, k + 100)},
      {reads(h, h + 100), reads(40000, 50000), writes(v, v + 100)},
      {reads(q, q + 100), writes(rq, rq + 100)},
      {reads(k, k + 100), writes(rk, rk + 100)},
      {reads(rq, rq + 100), reads(rk, rk + 100), reads(v, v + 100),
       writes(out, out + 100)}};
  CHECK(waits(launches) ==
        Waits({{}, {0}, {0}, {0}, {1}, {2}, {3, 4, 5}}));
}

/// Edges implied by others are left out: 2 waits for 1, which waits for 0,
/// so 2 needs no edge to 0 although both conflict with it.
void testTransitiveReduction() {
  CHECK(waits({{writes(0, 8)}, {reads(0, 8), writes(8, 16)},
               {reads(0, 16)}}) == Waits({{}, {0}, {1}}));
  // A workspace reused: 3 writes what 1 read, after 2 read what 1 wrote.
  CHECK(waits({{writes(0, 8)},
               {reads(0, 8), writes(8, 16)},
               {reads(8, 16), writes(16, 24)},
               {writes(0, 8)}}) == Waits({{}, {0}, {1}, {1}}));
  // Many launches: a chain through one buffer, every edge to the previous.
  std::vector<std::vector<MemoryAccess>> chain(200, {writes(0, 8)});
  Waits expected(200);
  for (size_t i = 1; i < 200; ++i)
    expected[i] = {i - 1};
  CHECK(waits(chain) == expected);
}

} // namespace

int main() {
  testHazards();
  testDecodeStep();
  testTransitiveReduction();
  return fkrt_test::finish();
}
