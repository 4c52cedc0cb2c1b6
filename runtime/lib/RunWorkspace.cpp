//===- RunWorkspace.cpp - a run's workspace layout ------------------------===//

#include "RunWorkspace.h"
#include "Status.h"

using namespace fkrt;

fkrt_status fkrt::layOutRunWorkspace(const GraphSpec &g,
                                     const std::vector<int64_t> &symbols,
                                     RunWorkspace &workspace,
                                     const std::string &where) {
  uint64_t buffersEnd = g.workspaceBytes;
  if (!g.runPlacedBuffers.empty()) {
    std::vector<BufferLifetime> lifetimes;
    for (size_t index : g.runPlacedBuffers) {
      const BufferSpec &b = g.buffers[index];
      int64_t bytes = 0;
      bool fits = b.runBytes.evaluate(symbols, bytes);
      if (!fits || bytes < 0)
        return fail(FKRT_ERROR_INVALID_ARGUMENT,
                    where + ": workspace buffer " + std::to_string(b.id) +
                        "'s bytes " +
                        (fits ? "are " + std::to_string(bytes)
                              : std::string("overflow 64 bits")) +
                        " at these sizes");
      lifetimes.push_back({static_cast<uint64_t>(bytes), b.first, b.last});
    }
    WorkspacePlan plan;
    if (!planWorkspace(lifetimes, plan,
                       GraphSpec::descriptorOffset(g.workspaceBytes)))
      return fail(FKRT_ERROR_INVALID_ARGUMENT,
                  where + ": the workspace's buffers overflow 64 bits at "
                          "these sizes");
    workspace.bytes.clear();
    for (const BufferLifetime &lifetime : lifetimes)
      workspace.bytes.push_back(lifetime.bytes);
    workspace.offsets = std::move(plan.offsets);
    buffersEnd = plan.bytes;
  }
  workspace.descriptorOffset = GraphSpec::descriptorOffset(buffersEnd);
  workspace.totalBytes = g.runWorkspaceBytes(buffersEnd);
  if (workspace.totalBytes < buffersEnd)
    return fail(FKRT_ERROR_INVALID_ARGUMENT,
                where + ": the workspace's buffers overflow 64 bits at "
                        "these sizes");
  return FKRT_SUCCESS;
}
