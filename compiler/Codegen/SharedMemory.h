//===- SharedMemory.h - dynamic shared memory of the Hopper kernels -*- C++ -*-===//
//
// The tensor-core matmul and flash-attention kernels keep their operand
// tiles in one block of dynamic shared memory, filled by TMA with 128-byte
// swizzled boxes that wgmma reads through matrix descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_SHAREDMEMORY_H
#define FKC_CODEGEN_SHAREDMEMORY_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fk {

/// The alignment of the shared-memory ring's base, which 128-byte-swizzled
/// tiles and wgmma descriptors need.
inline constexpr int64_t kRingAlignment = 1024;

/// The swizzle of every operand tile: wgmma reads 128-byte swizzled tiles
/// without bank conflicts, and a tile row (the innermost box extent) is
/// then exactly 128 bytes.
inline constexpr int64_t kSwizzleBytes = 128;

/// The threads of a warpgroup, which wgmma instructions take together.
inline constexpr int64_t kThreadsPerWarpgroup = 128;

/// A memref of `dims` in shared (workgroup) memory.
MemRefType getSharedMemRefType(MLIRContext *ctx, ArrayRef<int64_t> dims,
                               Type element);

/// The type of a 128-byte swizzled tensor map whose boxes are `box`.
nvgpu::TensorMapDescriptorType getSwizzledTensorMapType(MemRefType box);

/// The kernel's dynamic shared memory, `bytes` of it (including
/// kRingAlignment of slack): `ring` is the i8 memref, `base` the offset in
/// it of the first 1024-byte aligned byte and `address` the shared-window
/// address of the ring (so `address + base` is aligned).
struct DynamicSharedMemory {
  Value ring, base, address;

  static DynamicSharedMemory create(OpBuilder &b, Location loc,
                                    gpu::GPUModuleOp kernels, int64_t bytes);

  /// A view of the bytes at `offset` from the aligned base.
  Value view(OpBuilder &b, Location loc, Value offset, MemRefType type) const;
};

/// The suspend-time hint of an mbarrier try_wait, in nanoseconds: how long
/// the thread may sleep before it tries again.
constexpr int64_t kMbarrierWaitTicks = 10000000;

/// The parity operand of an mbarrier wait for phase `round` (round % 2).
/// Waiting for the parity of phase -1, 1, returns at once on a fresh
/// mbarrier.
Value getPhaseParity(OpBuilder &b, Location loc, Value round);

/// `count` mbarriers for TMA copies into shared memory, each expecting
/// `arrivals` arrivals per phase (by default one: the copying thread's,
/// `primary`, which initializes them), made visible to the TMA unit and to
/// every thread of the block.
Value createCopyBarriers(OpBuilder &b, Location loc, int64_t count,
                         Value primary, int64_t arrivals = 1);

} // namespace mlir::fk

#endif // FKC_CODEGEN_SHAREDMEMORY_H
