//===- KernelBuilder.h - the GPU kernel of a fusion -------------*- C++ -*-===//
//
// Turns one `fk.fusion` into the body of a `gpu.func`: a grid-stride loop
// over the fusion's work items (result elements), each computed by walking
// the fusion's body backwards from the result to the loads of its inputs.
// Shape ops (broadcast, transpose, reshape) become index arithmetic, so only
// the fusion's inputs and results touch device memory.
//
// The kernel's arguments are the fusion's inputs then its results, as
// memrefs of their tensor shapes (passed as bare pointers).
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_KERNELBUILDER_H
#define FKC_CODEGEN_KERNELBUILDER_H

#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/Analysis/RowSpace.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>

namespace mlir::fk {

/// How a kernel is launched.
struct LaunchShape {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t sharedBytes = 0;
  /// When set, grid[0] is computed per run from sizes given at run time:
  /// min(ceil_div(gridWork, workPerBlock) * blocksPerWork, maxBlocks)
  /// blocks, 0 (the launch skipped) when there is no work.
  std::optional<Dim> gridWork;
  int64_t workPerBlock = 1;
  /// Blocks per unit of work: a persistent matmul's output tiles per row
  /// tile.
  int64_t blocksPerWork = 1;
  int64_t maxBlocks = 1;
  /// When set, grid[1] is this size, computed per run: an attention's
  /// batches.
  std::optional<Dim> gridBatches;
  /// When set, grid[2] is computed per run by this function of the run's
  /// sizes (`size(dim)`, index values): a decode attention's key splits.
  std::function<Value(OpBuilder &, Location,
                      function_ref<Value(const Dim &)> size)>
      gridZ;
  /// A persistent kernel: it walks its work with a stride of grid[0], at
  /// most `maxBlocks` (the target's SM count), in clusters of
  /// `clusterBlocks` blocks (kPersistentGridAttrName).
  bool persistent = false;
  int64_t clusterBlocks = 1;
  /// Sizes given at run time that the kernel computes only up to a limit,
  /// each with its largest: the runtime fails a run above one
  /// (kSizeLimitsAttrName).
  SmallVector<std::pair<Dim, int64_t>> sizeLimits;
};

/// Fills the empty body of `kernel` (whose arguments are the memrefs of the
/// inputs then the results of `fusion`) with the code of `fusion`, divided
/// as `tiling` (an `elements` or `rows` strategy) says, and returns
/// how to launch it. Dense constants of the fusion become globals of
/// `kernels`. Emits an error at the fusion on what it cannot build.
FailureOr<LaunchShape> buildFusionKernel(FusionOp fusion, TilingAttr tiling,
                                         gpu::GPUFuncOp kernel,
                                         gpu::GPUModuleOp kernels);

/// The number of work items (threads' worth of work) of `fusion`: its
/// first result's elements, a monomial when its shape is symbolic.
Dim getWorkItemCount(FusionOp fusion);

} // namespace mlir::fk

#endif // FKC_CODEGEN_KERNELBUILDER_H
