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
  // A capture that fails (no memory for the replay's own workspace, a
  // launch the driver rejects) has run nothing: the run goes kernel by
  // kernel instead, which needs no new memory when a pooled workspace is
  // idle, and reports a failing launch as a run does.
  Replay replay;
  if (capture(d, workspaceBytes, recorder, where, replay) != FKRT_SUCCESS) {
    release(d, replay);
    return FKRT_SUCCESS;
  }
  replayed = true;
  return launch(d, replays.emplace(key, replay).first->second, stream, where);
}

fkrt_status GraphReplays::capture(const cu::Driver &d, uint64_t workspaceBytes,
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
  cu::Stream captured;
  if ((r = d.streamCreate(&captured, cu::kStreamNonBlocking)) != cu::kSuccess)
    return driverFailure(d, where, "cuStreamCreate", r);
  fkrt_status status = FKRT_SUCCESS;
  cu::Graph graph = nullptr;
  if ((r = d.streamBeginCapture(captured, cu::kStreamCaptureModeThreadLocal)) !=
      cu::kSuccess) {
    status = driverFailure(d, where, "cuStreamBeginCapture", r);
  } else {
    status = recorder.enqueue(replay.workspace, captured);
    // The capture ends whatever happened, so the stream can go.
    r = d.streamEndCapture(captured, &graph);
    if (status == FKRT_SUCCESS && r != cu::kSuccess)
      status = driverFailure(d, where, "cuStreamEndCapture", r);
  }
  d.streamDestroy(captured);
  if (status == FKRT_SUCCESS &&
      (r = d.graphInstantiateWithFlags(&replay.exec, graph, 0)) !=
          cu::kSuccess)
    status = driverFailure(d, where, "cuGraphInstantiateWithFlags", r);
  if (graph)
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
