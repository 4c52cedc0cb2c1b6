//===- LaunchDependencies.h - which launches must wait for which -*- C++ -*-===//
//
// A replayed graph's launches (GraphReplay.h) are the nodes of a CUDA graph,
// which runs a node once the nodes it depends on are done, several at once
// where none depends on another. A launch must follow an earlier one when
// they touch overlapping memory and either writes it (read after write,
// write after read, write after write); launches that only read the same
// tensors, or touch disjoint ones, may run together: a decode step's query,
// key and value projections, the rotations of its queries and keys. fkc
// places workspace buffers so that sharing bytes adds few such waits
// (compiler/Artifact/LaunchOrder.h, the same rule over buffers).
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_LAUNCHDEPENDENCIES_H
#define FKRT_LIB_LAUNCHDEPENDENCIES_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fkrt {

/// Device memory a launch reads, or writes (and may read): the bytes
/// [begin, end).
struct MemoryAccess {
  uint64_t begin = 0, end = 0;
  bool write = false;
};

/// For each launch (its accesses, in the graph's order), the earlier
/// launches it must wait for: every earlier launch with an overlapping
/// access where either writes is among them or is waited for through them.
/// Each list is increasing and holds no launch that another of the list
/// already waits for (the transitive reduction).
std::vector<std::vector<size_t>>
getLaunchDependencies(const std::vector<std::vector<MemoryAccess>> &launches);

} // namespace fkrt

#endif // FKRT_LIB_LAUNCHDEPENDENCIES_H
