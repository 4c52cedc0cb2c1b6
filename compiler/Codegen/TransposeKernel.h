//===- TransposeKernel.h - transposes through shared-memory tiles -*- C++ -*-===//
//
// The kernel of a loop fusion that only swaps the last two dimensions of
// one input, y[..., c, r] = x[..., r, c]: the elements kernel would read x
// with a stride of a row per element (or write y so), using a few bytes of
// every 32-byte sector. Here a block of 32 x 8 threads moves a 32 x 32 tile:
// each warp reads 32 adjacent elements of a row of x into shared memory,
// then, after a CTA barrier, writes 32 adjacent elements of a row of y from
// a column of the tile. The tile's rows are padded by one element, so that
// a warp's column reads fall in different banks. Elements outside the
// matrix are neither read nor written.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TRANSPOSEKERNEL_H
#define FKC_CODEGEN_TRANSPOSEKERNEL_H

#include "Codegen/KernelBuilder.h"

namespace mlir::fk {

/// The tile of the transpose kernel: kTransposeTile x kTransposeTile
/// elements, moved by 32 x kTransposeRowsPerStep threads.
inline constexpr int64_t kTransposeTile = 32;
inline constexpr int64_t kTransposeRowsPerStep = 8;
inline constexpr int64_t kTransposeThreads =
    kTransposeTile * kTransposeRowsPerStep;

/// Whether `fusion` is a loop fusion whose only op transposes the last two
/// dimensions of an input into its only result, with a grid the kernel can
/// launch (row tiles and matrices each at most 65535).
bool isTileTranspose(FusionOp fusion);

/// Fills `kernel`, whose arguments are the fusion's input and result
/// buffers, and returns its launch: a block per 32 x 32 tile and matrix.
FailureOr<LaunchShape> buildTransposeKernel(FusionOp fusion,
                                            gpu::GPUFuncOp kernel,
                                            gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TRANSPOSEKERNEL_H
