//===- GraphReplay.h - a graph's launches replayed as CUDA graphs -*- C++ -*-===//
//
// Launching a graph's kernels one by one costs the host a few microseconds a
// launch, which a small decode step of many short kernels feels. A CUDA
// graph of the launches, built once, is enqueued with one call. Its nodes
// are the launches, its edges what each must wait for (LaunchDependencies.h),
// so that launches that touch disjoint memory, or only read the same, run at
// once. The recorded launches hold the run's addresses, so a replay serves
// one set of input and output addresses, and owns a workspace whose tensor
// map descriptors stay encoded for them. A set is recorded the second time
// it is run: a set run once pays no recording.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_GRAPHREPLAY_H
#define FKRT_LIB_GRAPHREPLAY_H

#include "Cuda.h"
#include "fkrt/runtime.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace fkrt {

/// What a replay is recorded for: a graph and the address of every input
/// and output of the run.
struct ReplayKey {
  size_t graph = 0;
  /// The run's symbol sizes (a graph with symbols is recorded per set).
  std::vector<int64_t> sizes;
  std::vector<uintptr_t> addresses;
  bool operator<(const ReplayKey &other) const {
    return std::tie(graph, sizes, addresses) <
           std::tie(other.graph, other.sizes, other.addresses);
  }
  bool operator==(const ReplayKey &other) const {
    return graph == other.graph && sizes == other.sizes &&
           addresses == other.addresses;
  }
};

/// A launch of a replay: its place among the graph's launches, the kernel,
/// its shape, each argument's 8-byte value, and the earlier launches of the
/// replay it waits for.
struct ReplayLaunch {
  size_t index = 0;
  cu::Function function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<uint64_t> arguments;
  std::vector<size_t> waitsFor;

  /// A pointer to each argument's value, as the driver takes a kernel's
  /// parameters (it copies the values when it launches or adds the node).
  std::vector<void *> parameters() {
    std::vector<void *> pointers;
    for (uint64_t &argument : arguments)
      pointers.push_back(&argument);
    return pointers;
  }
};

/// The replays of one module's graphs. Thread-safe.
class GraphReplays {
public:
  /// Replays held at once at most; the least recently used goes first.
  static constexpr size_t kMaxReplays = 8;
  /// Keys remembered as run once (candidates for a replay).
  static constexpr size_t kMaxSeen = 32;

  /// How a replay records the run's work for a workspace of its own.
  struct Recorder {
    /// Writes the run's tensor map descriptors into `workspace`, before the
    /// graph is built (synchronously: the copy is not part of the replay).
    std::function<fkrt_status(cu::DevicePtr workspace)> prepare;
    /// The run's launches with `workspace`, in the graph's order.
    std::function<fkrt_status(cu::DevicePtr workspace,
                              std::vector<ReplayLaunch> &launches)>
        record;
  };

  /// Enqueues the replay of `key` on `stream`, recording it first when the
  /// key is run the second time, and sets `replayed`; when it stays false
  /// (a key run once, a driver without graphs, a recording that failed,
  /// which runs nothing) the caller launches the kernels itself. Replays of
  /// one key run one after the other, whatever their streams (they share a
  /// workspace).
  fkrt_status run(const cu::Driver &d, const ReplayKey &key,
                  uint64_t workspaceBytes, const Recorder &recorder,
                  cu::Stream stream, const std::string &where,
                  bool &replayed);

  /// Whether a replay of `key` is held (another thread may still evict it
  /// before it runs).
  bool holds(const ReplayKey &key);

  /// The number of replays held.
  size_t size();

  /// Waits for and frees every replay, in the module's current context.
  void clear(const cu::Driver &d);

private:
  struct Replay {
    cu::GraphExec exec = nullptr;
    cu::DevicePtr workspace = 0;
    /// The end of the replay's last run, which the next one waits for.
    cu::Event done = nullptr;
    uint64_t lastUse = 0;
  };

  fkrt_status build(const cu::Driver &d, uint64_t workspaceBytes,
                      const Recorder &recorder, const std::string &where,
                      Replay &replay);
  fkrt_status launch(const cu::Driver &d, Replay &replay, cu::Stream stream,
                     const std::string &where);
  static void release(const cu::Driver &d, Replay &replay);

  std::mutex mutex;
  std::map<ReplayKey, Replay> replays;
  std::deque<ReplayKey> seenOnce;
  uint64_t clock = 0;
};

} // namespace fkrt

#endif // FKRT_LIB_GRAPHREPLAY_H
