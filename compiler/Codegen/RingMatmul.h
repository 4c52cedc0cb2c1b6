//===- RingMatmul.h - matmul kernels fed by a cp.async ring ------*- C++ -*-===//
//
// What the matmul kernels that copy their operand tiles by cp.async share
// (the mma.sync kernel, WarpMmaMatmul.cpp, and the tiled f32 kernel,
// SimtMatmul.cpp): the operands and each block's batch offsets into them,
// the block's output tile, the ring of stages in dynamic shared memory and
// the copies into it, the pipelined main loop over K steps, the accumulator
// tile the epilogue reads, and the launch. The kernels supply the tile layouts,
// the products of one K step, and where each accumulator lies in the tile.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_RINGMATMUL_H
#define FKC_CODEGEN_RINGMATMUL_H

#include "Codegen/KernelBuilder.h"
#include "Codegen/MatmulShape.h"
#include "Codegen/SharedMemory.h"
#include "Codegen/WarpMma.h"

namespace mlir::fk {

class RingMatmulKernel {
protected:
  /// A block of `threads` threads per tileM x tileN output tile, K in steps
  /// of tileK through `stages` ring stages.
  struct Blocking {
    int64_t tileM, tileN, tileK, stages, threads;
  };

  RingMatmulKernel(FusionOp fusion, gpu::GPUFuncOp kernel,
                   gpu::GPUModuleOp kernels, Blocking blocking);

  /// The operands, the thread, the block's tile and batch, and `sharedBytes`
  /// of dynamic shared memory holding the ring of stages, each an A tile
  /// `a` then a B tile `b`, of `element`s.
  void setUp(SwizzledTile a, SwizzledTile bTile, int64_t sharedBytes,
             Type element);

  /// The main loop: copies stages-1 K steps ahead (one commit group per
  /// step, empty beyond the last, so that "at most stages-2 pending" means
  /// this step has landed), a CTA barrier per step, and `multiply(aStart,
  /// bStart, accumulators)` on the stage's tiles at those ring offsets.
  /// Returns the accumulators, the ring free for the epilogue's tile.
  SmallVector<Value>
  mainLoop(ArrayRef<Value> init,
           function_ref<SmallVector<Value>(Value, Value, ValueRange)> multiply);

  /// Stores accumulator i at `place(i)` (row, column) of a tile of the
  /// accumulators' type (f32, or the integer type of integer operands) in
  /// shared memory whose rows are padded by `padding`, then runs the
  /// fusion's epilogue on it.
  LogicalResult epilogue(ValueRange accumulators, int64_t padding,
                         function_ref<std::pair<Value, Value>(int64_t)> place);

  /// The launch: a block per output tile and batch.
  LaunchShape getLaunch(int64_t sharedBytes) const;

  Value index(int64_t v) { return k.idx.constant(v); }
  Value add(Value x, Value y) { return k.idx.add(x, y); }
  Value mul(Value x, Value y) { return k.idx.mul(x, y); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y));
  }

  KernelContext k;
  MatmulOp matmul;
  MatmulShape shape;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  gpu::GPUFuncOp kernel;
  Blocking blocking;

  SwizzledTile aTile{}, bTile{};
  int64_t kTiles = 0;
  DynamicSharedMemory shared;
  /// The ring as a 1-D memref of the operands' elements.
  Value ring;
  Value thread, tileRow, tileColumn;
  SmallVector<Value> batchCoords;

private:
  /// Issues the copies of the K step `kTile` of A and B into `stage`.
  void loadStage(Value stage, Value kTile);

  Value lhs, rhs, lhsBase, rhsBase;
};

} // namespace mlir::fk

#endif // FKC_CODEGEN_RINGMATMUL_H
