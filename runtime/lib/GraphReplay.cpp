//===- GraphReplay.cpp - a graph's launches replayed as CUDA graphs -------===//

#include "GraphReplay.h"
#include "Status.h"

#include <algorithm>

using namespace fkrt;

namespace {
fkrt_status driverFailure(const cu::Driver &d, const std::string &where,
                          const char *call, cu::Result r) {
  return fail(r == cu::kErrorOutOfMemory ? FKRT_ERROR_OUT_OF_MEMORY
                                         : FKRT_ERROR_CUDA,
              where + ": " + cu::describe(d, call, r));
}
} // namespace

fkrt_status GraphReplays::run(const cu::Driver &d, const ReplayKey &key,
                              uint64_t workspaceBytes,
                              const Recorder &recorder, cu::Stream stream,
                              const std::string &where, bool &replayed) {
  replayed = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = replays.find(key); it != replays.end()) {
    replayed = true;
    return launch(d, it->second, stream, where);
  }
  if (!d.hasGraphs())
    return FKRT_SUCCESS;
  auto seen = std::find(seenOnce.begin(), seenOnce.end(), key);
  if (seen == seenOnce.end()) {
    if (seenOnce.size() == kMaxSeen)
      seenOnce.pop_front();
    seenOnce.push_back(key);
    return FKRT_SUCCESS;
  }
  seenOnce.erase(seen);
  if (replays.size() == kMaxReplays) {
    auto oldest = std::min_element(
        replays.begin(), replays.end(), [](const auto &a, const auto &b) {
          return a.second.lastUse < b.second.lastUse;
        });
    release(d, oldest->second);
    replays.erase(oldest);
  }
  // A recording that fails (no memory for the replay's own workspace, a
  // launch the driver rejects) has run nothing: the run goes kernel by
  // kernel instead, which needs no new memory when a pooled workspace is
  // idle, and reports a failing launch as a run does.
  Replay replay;
  if (build(d, workspaceBytes, recorder, where, replay) != FKRT_SUCCESS) {
    release(d, replay);
    return FKRT_SUCCESS;
  }
  replayed = true;
  return launch(d, replays.emplace(key, replay).first->second, stream, where);
}

fkrt_status GraphReplays::build(const cu::Driver &d, uint64_t workspaceBytes,
                                  const Recorder &recorder,
                                  const std::string &where, Replay &replay) {
  cu::Result r;
  if (workspaceBytes &&
      (r = d.memAlloc(&replay.workspace, workspaceBytes)) != cu::kSuccess)
    return driverFailure(d, where, "cuMemAlloc", r);
  if ((r = d.eventCreate(&replay.done, cu::kEventDisableTiming)) !=
      cu::kSuccess)
    return driverFailure(d, where, "cuEventCreate", r);
  if (fkrt_status status = recorder.prepare(replay.workspace);
      status != FKRT_SUCCESS)
    return status;
  std::vector<ReplayLaunch> launches;
  if (fkrt_status status = recorder.record(replay.workspace, launches);
      status != FKRT_SUCCESS)
    return status;
  cu::Graph graph = nullptr;
  if ((r = d.graphCreate(&graph, 0)) != cu::kSuccess)
    return driverFailure(d, where, "cuGraphCreate", r);
  fkrt_status status = FKRT_SUCCESS;
  std::vector<cu::GraphNode> nodes(launches.size());
  std::vector<cu::GraphNode> waits;
  for (size_t i = 0; i < launches.size() && status == FKRT_SUCCESS; ++i) {
    ReplayLaunch &launch = launches[i];
    cu::KernelNodeParams params;
    params.function = launch.function;
    std::copy(launch.grid, launch.grid + 3, params.grid);
    std::copy(launch.block, launch.block + 3, params.block);
    params.sharedBytes = launch.sharedBytes;
    std::vector<void *> parameters = launch.parameters();
    params.params = parameters.empty() ? nullptr : parameters.data();
    waits.clear();
    for (size_t earlier : launch.waitsFor)
      waits.push_back(nodes[earlier]);
    if ((r = d.graphAddKernelNode(&nodes[i], graph,
                                  waits.empty() ? nullptr : waits.data(),
                                  waits.size(), &params)) != cu::kSuccess)
      status = driverFailure(d, where,
                             ("cuGraphAddKernelNode (launch " +
                              std::to_string(launch.index) + ")")
                                 .c_str(),
                             r);
  }
  if (status == FKRT_SUCCESS &&
      (r = d.graphInstantiateWithFlags(&replay.exec, graph, 0)) !=
          cu::kSuccess)
    status = driverFailure(d, where, "cuGraphInstantiateWithFlags", r);
  d.graphDestroy(graph);
  return status;
}

fkrt_status GraphReplays::launch(const cu::Driver &d, Replay &replay,
                                 cu::Stream stream, const std::string &where) {
  replay.lastUse = ++clock;
  cu::Result r = d.streamWaitEvent(stream, replay.done, 0);
  if (r != cu::kSuccess)
    return driverFailure(d, where, "cuStreamWaitEvent", r);
  if ((r = d.graphLaunch(replay.exec, stream)) != cu::kSuccess)
    return driverFailure(d, where, "cuGraphLaunch", r);
  if ((r = d.eventRecord(replay.done, stream)) != cu::kSuccess)
    return driverFailure(d, where, "cuEventRecord", r);
  return FKRT_SUCCESS;
}

void GraphReplays::release(const cu::Driver &d, Replay &replay) {
  if (replay.done) {
    d.eventSynchronize(replay.done);
    d.eventDestroy(replay.done);
  }
  if (replay.exec)
    d.graphExecDestroy(replay.exec);
  if (replay.workspace)
    d.memFree(replay.workspace);
  replay = Replay();
}

bool GraphReplays::holds(const ReplayKey &key) {
  std::lock_guard<std::mutex> lock(mutex);
  return replays.count(key) != 0;
}

size_t GraphReplays::size() {
  std::lock_guard<std::mutex> lock(mutex);
  return replays.size();
}

void GraphReplays::clear(const cu::Driver &d) {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &entry : replays)
    release(d, entry.second);
  replays.clear();
  seenOnce.clear();
}
