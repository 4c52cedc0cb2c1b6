//===- BufferPlan.cpp - placing intermediate buffers in a workspace -------===//

#include "Artifact/BufferPlan.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <numeric>

using namespace mlir::fk;

static int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

WorkspacePlan mlir::fk::planWorkspace(llvm::ArrayRef<BufferLifetime> buffers,
                                      int64_t alignment) {
  WorkspacePlan plan;
  plan.offsets.assign(buffers.size(), 0);
  llvm::SmallVector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });

  llvm::SmallVector<size_t> placed;
  for (size_t i : order) {
    const BufferLifetime &buffer = buffers[i];
    int64_t size = alignTo(buffer.bytes, alignment);
    // The ranges this buffer must avoid, by offset.
    llvm::SmallVector<std::pair<int64_t, int64_t>> taken;
    for (size_t j : placed)
      if (buffer.overlaps(buffers[j]))
        taken.push_back({plan.offsets[j],
                         plan.offsets[j] + alignTo(buffers[j].bytes, alignment)});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    if (size > 0)
      plan.bytes = std::max(plan.bytes, offset + size);
    placed.push_back(i);
  }
  return plan;
}
