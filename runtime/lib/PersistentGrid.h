//===- PersistentGrid.h - a persistent kernel's blocks on a device -*- C++ -*-===//
//
// fkc's persistent kernels (the warp-specialized wgmma matmul) walk their
// output tiles with a stride of the grid: block b takes tiles b, b + grid,
// b + 2 * grid, ... The compiler sizes the grid as min(tiles, the target's
// SM count), a block per SM, and states that count in the manifest
// (`persistent`, docs/artifact.md, R64). A device with another count (an
// H100 PCIe's 114 SMs for an artifact of 132) would otherwise run some
// blocks only after others had finished their whole share, or leave SMs
// idle; any grid of whole clusters computes the same tiles, so the runtime
// launches a block per SM of the device it runs on.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_PERSISTENTGRID_H
#define FKRT_LIB_PERSISTENTGRID_H

#include <algorithm>

namespace fkrt {

/// The grid x to launch for a persistent kernel whose manifest (or run)
/// gives `x` blocks, compiled for `compiledSms` SMs in clusters of
/// `clusterBlocks`, on a device of `deviceSms` SMs. An x that reached the
/// compiled count (its tiles fill at least that many blocks) becomes a
/// block per SM of the device; a smaller one stays, at most that; both in
/// whole clusters, as x is (R64: a grid in clusters is given as integers,
/// whole clusters). `compiledSms` 0 (not persistent), an unknown count
/// (0 SMs) and a launch without blocks keep x.
inline unsigned getPersistentBlocks(unsigned x, unsigned compiledSms,
                                    unsigned clusterBlocks,
                                    unsigned deviceSms) {
  if (!compiledSms || !deviceSms || !clusterBlocks || x == 0)
    return x;
  unsigned usable =
      std::max(deviceSms - deviceSms % clusterBlocks, clusterBlocks);
  // Blocks beyond the tiles, where the device has more SMs than the work
  // has tiles, find no tile and exit.
  if (x >= compiledSms)
    return usable;
  return std::min(x, usable);
}

} // namespace fkrt

#endif // FKRT_LIB_PERSISTENTGRID_H
