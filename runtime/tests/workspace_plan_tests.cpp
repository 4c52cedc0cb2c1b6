//===- workspace_plan_tests.cpp - placing buffers in a workspace ----------===//
//
// fkrt::planWorkspace, which fkc places the buffers it sizes with and the
// runtime those a run sizes: buffers of disjoint lifetimes share bytes
// unless the caller's predicate keeps them apart, overlapping ones never
// do, offsets are aligned and start where asked, an
// unused buffer takes nothing, and offsets past 64 bits fail. Then
// fkrt::layOutRunWorkspace: a run's buffers after the graph's own bytes,
// its descriptors after them, and sizes that overflow.
//
//===----------------------------------------------------------------------===//

#include "RunWorkspace.h"
#include "Status.h"
#include "TestSupport.h"
#include "fkrt/workspace_plan.hpp"

#include <cstring>

using fkrt::BufferLifetime;
using fkrt::WorkspacePlan;

namespace {

WorkspacePlan plan(const std::vector<BufferLifetime> &buffers,
                   uint64_t start = 0) {
  WorkspacePlan p;
  CHECK(fkrt::planWorkspace(buffers, p, start));
  return p;
}

/// Whether buffers `a` and `b` of `buffers` share a byte under `p`.
bool share(const std::vector<BufferLifetime> &buffers, const WorkspacePlan &p,
           size_t a, size_t b) {
  return p.offsets[a] < p.offsets[b] + buffers[b].bytes &&
         p.offsets[b] < p.offsets[a] + buffers[a].bytes;
}

void testSharing() {
  // A chain a -> b -> c: a and c may share, b overlaps both.
  std::vector<BufferLifetime> chain = {{1000, 0, 1}, {3000, 1, 2},
                                       {500, 2, 3}};
  WorkspacePlan p = plan(chain);
  CHECK(!share(chain, p, 0, 1));
  CHECK(!share(chain, p, 1, 2));
  CHECK_EQ(p.offsets[1], 0u); // largest first
  CHECK_EQ(p.offsets[0], 3072u);
  CHECK_EQ(p.offsets[2], 3072u); // a's bytes again
  CHECK_EQ(p.bytes, 3072u + 1024u);
  // Lifetimes that only touch at a launch overlap.
  std::vector<BufferLifetime> touching = {{256, 0, 2}, {256, 2, 4}};
  p = plan(touching);
  CHECK(!share(touching, p, 0, 1));
  // Disjoint ones share.
  std::vector<BufferLifetime> disjoint = {{256, 0, 1}, {256, 2, 3}};
  p = plan(disjoint);
  CHECK_EQ(p.offsets[0], p.offsets[1]);
  CHECK_EQ(p.bytes, 256u);
}

/// A predicate keeps buffers of disjoint lifetimes apart (fkc's: where
/// sharing would make a replay wait, compiler/Artifact/LaunchOrder.h).
void testMayShare() {
  // Three disjoint lifetimes: 0 and 1 may not share, 0 and 2 may (and so
  // may 1 and 2).
  std::vector<BufferLifetime> three = {{256, 0, 0}, {256, 1, 1}, {256, 2, 2}};
  WorkspacePlan p;
  CHECK(fkrt::planWorkspace(three, p, 0, fkrt::kWorkspaceAlignment,
                            [&](size_t a, size_t b) {
                              return std::min(a, b) != 0 || std::max(a, b) != 1;
                            }));
  CHECK(!share(three, p, 0, 1));
  CHECK_EQ(p.offsets[0], p.offsets[2]);
  CHECK_EQ(p.bytes, 512u);
  // Overlapping lifetimes stay apart whatever the predicate says.
  std::vector<BufferLifetime> overlapping = {{256, 0, 1}, {256, 1, 2}};
  CHECK(fkrt::planWorkspace(overlapping, p, 0, fkrt::kWorkspaceAlignment,
                            [](size_t, size_t) { return true; }));
  CHECK(!share(overlapping, p, 0, 1));
}

void testAlignmentAndStart() {
  std::vector<BufferLifetime> buffers = {{1, 0, 0}, {257, 0, 0}, {0, 0, 0},
                                         {8, 5, 4}};
  WorkspacePlan p = plan(buffers, 4096);
  for (uint64_t offset : p.offsets) {
    CHECK_EQ(offset % fkrt::kWorkspaceAlignment, 0u);
    CHECK(offset >= 4096);
  }
  CHECK(!share(buffers, p, 0, 1));
  CHECK_EQ(p.bytes, 4096u + 512u + 256u);
  // An unused buffer (first > last) overlaps nothing, an empty one takes
  // no bytes, and with nothing to place the plan ends at its start.
  std::vector<BufferLifetime> unused = {{300, 0, 3}, {64, 3, 2}, {0, 0, 3}};
  p = plan(unused);
  CHECK_EQ(p.offsets[1], 0u);
  CHECK_EQ(p.bytes, 512u);
  CHECK_EQ(plan({}, 512).bytes, 512u);
  // Offsets past 64 bits fail.
  WorkspacePlan q;
  CHECK(!fkrt::planWorkspace({{UINT64_MAX - 8, 0, 0}}, q));
  CHECK(!fkrt::planWorkspace({{uint64_t(1) << 63, 0, 0},
                              {uint64_t(1) << 63, 0, 0}},
                             q));
}

/// A graph of 1000 static bytes, one tensor map, and two buffers placed
/// per run: S * 100 bytes for launches 0 to 1, 2 * S bytes for launch 2.
fkrt::GraphSpec runPlacedGraph() {
  fkrt::GraphSpec g;
  g.workspaceBytes = 1000;
  g.tensorMaps.resize(1);
  for (int i = 0; i < 2; ++i) {
    fkrt::BufferSpec b;
    b.id = 3 + i;
    b.kind = fkrt::BufferSpec::Workspace;
    b.placedAtRun = true;
    b.runBytes.product.coefficient = i == 0 ? 100 : 2;
    b.runBytes.product.symbols = {0};
    b.first = i == 0 ? 0 : 2;
    b.last = i == 0 ? 1 : 2;
    b.runSlot = i;
    g.runPlacedBuffers.push_back(g.buffers.size());
    g.buffers.push_back(b);
  }
  return g;
}

void testRunLayout() {
  fkrt::GraphSpec g = runPlacedGraph();
  fkrt::RunWorkspace w;
  CHECK_EQ(fkrt::layOutRunWorkspace(g, {10}, w, "run"), FKRT_SUCCESS);
  // After the graph's 1000 bytes, rounded to 1024; disjoint, so shared.
  CHECK_EQ(w.size(g.buffers[0]), 1000u);
  CHECK_EQ(w.size(g.buffers[1]), 20u);
  CHECK_EQ(w.offset(g.buffers[0]), 1024u);
  CHECK_EQ(w.offset(g.buffers[1]), 1024u);
  CHECK_EQ(w.descriptorOffset, 2048u);
  CHECK_EQ(w.totalBytes, 2048u + 128u);
  // At S = 0 the buffers take nothing.
  CHECK_EQ(fkrt::layOutRunWorkspace(g, {0}, w, "run"), FKRT_SUCCESS);
  CHECK_EQ(w.descriptorOffset, 1024u);
  // Overlapping lifetimes: apart.
  g.buffers[1].first = 1;
  CHECK_EQ(fkrt::layOutRunWorkspace(g, {10}, w, "run"), FKRT_SUCCESS);
  CHECK_EQ(w.offset(g.buffers[1]), 2048u);
  CHECK_EQ(w.totalBytes, 2304u + 128u);
  // A graph that places nothing per run: its own bytes, then descriptors.
  fkrt::GraphSpec fixed;
  fixed.workspaceBytes = 300;
  CHECK_EQ(fkrt::layOutRunWorkspace(fixed, {}, w, "run"), FKRT_SUCCESS);
  CHECK_EQ(w.totalBytes, 300u);
  fixed.tensorMaps.resize(2);
  CHECK_EQ(fkrt::layOutRunWorkspace(fixed, {}, w, "run"), FKRT_SUCCESS);
  CHECK_EQ(w.descriptorOffset, 512u);
  CHECK_EQ(w.totalBytes, 768u);
  // Sizes whose bytes overflow, one by one or together.
  CHECK_EQ(fkrt::layOutRunWorkspace(g, {INT64_MAX / 50}, w, "run"),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strcmp(fkrt::lastError().c_str(),
                    "run: workspace buffer 3's bytes overflow 64 bits at "
                    "these sizes") == 0);
  g.buffers[1].runBytes.product.coefficient = 100;
  CHECK_EQ(fkrt::layOutRunWorkspace(g, {INT64_MAX / 100}, w, "run"),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strcmp(fkrt::lastError().c_str(),
                    "run: the workspace's buffers overflow 64 bits at these "
                    "sizes") == 0);
}

} // namespace

int main() {
  testSharing();
  testMayShare();
  testAlignmentAndStart();
  testRunLayout();
  return fkrt_test::finish();
}
