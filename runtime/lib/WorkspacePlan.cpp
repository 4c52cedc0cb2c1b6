//===- WorkspacePlan.cpp - placing buffers in a workspace -----------------===//

#include "fkrt/workspace_plan.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

using namespace fkrt;

/// `value` rounded up to a multiple of `alignment`; false on overflow.
static bool alignUp(uint64_t value, uint64_t alignment, uint64_t &out) {
  uint64_t sum;
  if (__builtin_add_overflow(value, alignment - 1, &sum))
    return false;
  out = sum / alignment * alignment;
  return true;
}

bool fkrt::planWorkspace(const std::vector<BufferLifetime> &buffers,
                         WorkspacePlan &plan, uint64_t start,
                         uint64_t alignment, const MayShareBytes &mayShare) {
  plan.offsets.assign(buffers.size(), start);
  plan.bytes = start;
  std::vector<uint64_t> sizes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!alignUp(buffers[i].bytes, alignment, sizes[i]))
      return false;
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });

  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> taken;
  for (size_t i : order) {
    // The ranges this buffer must avoid, by offset.
    taken.clear();
    for (size_t j : placed)
      if (sizes[j] > 0 && (buffers[i].overlaps(buffers[j]) ||
                           (mayShare && !mayShare(i, j))))
        taken.push_back({plan.offsets[j], plan.offsets[j] + sizes[j]});
    std::sort(taken.begin(), taken.end());
    uint64_t offset = start, end;
    for (auto [begin, takenEnd] : taken) {
      if (__builtin_add_overflow(offset, sizes[i], &end))
        return false;
      if (end <= begin)
        break;
      offset = std::max(offset, takenEnd);
    }
    if (__builtin_add_overflow(offset, sizes[i], &end))
      return false;
    plan.offsets[i] = offset;
    if (sizes[i] > 0)
      plan.bytes = std::max(plan.bytes, end);
    placed.push_back(i);
  }
  return true;
}
