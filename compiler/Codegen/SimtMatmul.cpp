//===- SimtMatmul.cpp - matmul fusions tiled on the CUDA cores ------------===//
//
// One block of (tileM / 8) x (tileN / 8) threads per output tile; thread
// (r, c) owns the 8 x 8 accumulators of rows r + (tileM / 8) i and of
// columns 4c + j and tileN / 2 + 4c + j (j < 4), or, where B is read
// K-major, columns c + (tileN / 8) j:
//
//   prologue   every thread issues cp.async copies of 16-byte chunks of K
//              steps 0 .. stages-2 of A and B (WarpMma.h's swizzled tiles),
//              one commit group per K step
//   main loop  per K step: wait for it, a CTA barrier, the copies of the K
//              step stages-1 ahead; then per chunk of K (4 f32 or i32, 2
//              i64), the thread's 8 rows of A as 16-byte reads, B's 8
//              columns per K as 16-byte reads of adjacent columns (or,
//              K-major, 8 reads of a chunk of K), and 8 x 8 multiply-adds
//              per K: f32 FMAs, or integer multiplies and adds, which wrap
//   epilogue   the accumulators go to a tile of their type in shared memory
//              (reusing the ring), then the fusion's epilogue (TileEpilogue)
//
// Rows of the thread's are (tileM / 8) apart, so the two rows of a warp's
// A reads are different rows of one chunk column, which the swizzle puts
// in different banks; B's 16-byte reads of a K row are adjacent chunks.
// Pieces outside the operands are zero-filled by the copies; outputs
// outside are not stored.
//
//===----------------------------------------------------------------------===//

#include "Codegen/SimtMatmul.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/RingMatmul.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fk;

/// Adjacent columns of B a thread reads together, as stored (N-major): two
/// groups of them, half a tile apart.
static constexpr int64_t kColumnGroup = 4;
/// Columns the accumulator tile's rows are padded by.
static constexpr int64_t kAccumulatorPadding = 4;

SimtTiling SimtTiling::get(TilingAttr tiling, int64_t stages,
                           int64_t elementBytes) {
  ArrayRef<int64_t> tile = tiling.getTile();
  return {tile[0], tile[1], tile[2], stages, elementBytes};
}

int64_t SimtTiling::getSharedBytes() const {
  int64_t accumulator = tileM * (tileN + kAccumulatorPadding) * elementBytes;
  return std::max(stages * getStageBytes(), accumulator) + kRingAlignment;
}

std::string mlir::fk::whyNotSimtMatmul(FusionOp fusion, TargetAttr target) {
  if (target.getComputeCapability() < 80)
    return "target " + target.getChip().str() +
           " predates sm_80 (cp.async)";
  MatmulOp matmul = fusion.getMatmul();
  if (!matmul)
    return "not a matmul fusion";
  if (fusion.getPairedMatmul())
    return "a matmul pair runs on the wgmma kernel only";
  if (fusion.isMatmulGroup())
    return "a matmul group runs on the wgmma kernel only";
  Type element = tensorType(matmul.getLhs()).getElementType();
  if (!element.isF32() && !element.isSignlessInteger(32) &&
      !element.isSignlessInteger(64))
    return "operands are not f32, i32 or i64";
  return whyNotOperandTiles(fusion);
}

std::string mlir::fk::checkSimtTile(ArrayRef<int64_t> tile,
                                    int64_t elementBytes) {
  if (tile.size() != 3)
    return "expects tile sizes M,N,K";
  // 8 x 8 accumulators per thread; the column groups of 4 span half a tile.
  if (tile[0] != 64 && tile[0] != 128)
    return "tile M must be 64 or 128 (8 rows a thread)";
  if (tile[1] != 64 && tile[1] != 128)
    return "tile N must be 64 or 128 (8 columns a thread)";
  if (tile[2] != 16 && tile[2] != 32)
    return "tile K must be 16 or 32 (whole 16-byte chunks)";
  if (elementBytes == 8 && (tile[0] != 64 || tile[1] != 64))
    return "i64 tiles must be 64 x 64 (the accumulator tile of a larger "
           "one exceeds sm_86's shared memory)";
  return "";
}

SmallVector<int64_t> mlir::fk::chooseSimtTile(MatmulOp matmul,
                                              TargetAttr target) {
  MatmulShape shape(matmul);
  if (shape.elementBytes() == 8 ||
      prefersNarrowTiles(shape, target.getSmCount()))
    return {64, 64, 16};
  return {128, 128, 16};
}

namespace {
/// Builds the kernel body; see the file comment.
class SimtKernel : RingMatmulKernel {
public:
  SimtKernel(FusionOp fusion, const SimtTiling &tiling, gpu::GPUFuncOp kernel,
             gpu::GPUModuleOp kernels)
      : RingMatmulKernel(fusion, kernel, kernels,
                         {tiling.tileM, tiling.tileN, tiling.tileK,
                          tiling.stages, tiling.getThreads()}),
        tiling(tiling) {}

  FailureOr<LaunchShape> build();

private:
  /// The elements of chunk `chunk` of row `row` of `tile` at `tileStart`,
  /// read as one 16-byte load.
  SmallVector<Value, 4> readChunk(const SwizzledTile &tile, Value tileStart,
                                  Value row, Value chunk);
  /// c + a * b: an FMA for f32, a wrapping multiply and add for integers.
  Value multiplyAdd(Value a, Value b, Value c);
  SmallVector<Value> multiplyTile(Value aStart, Value bStart,
                                  ValueRange accumulators);
  /// The thread's j-th column of the tile.
  Value column(int64_t j);

  const SimtTiling &tiling;
  Type element;
  int64_t chunkElements = 0, threadRows = 0, threadColumns = 0;
  Value ringAddress, threadRow, threadColumn;
};
} // namespace

SmallVector<Value, 4> SimtKernel::readChunk(const SwizzledTile &tile,
                                            Value tileStart, Value row,
                                            Value chunk) {
  // One 16-byte ld.shared at the chunk's address (16-byte aligned: the ring
  // is, and chunks are 16 bytes).
  Value offset = tile.offset(k.idx, tileStart, row, chunk);
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      add(ringAddress, mul(offset, index(tiling.elementBytes))));
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/3), address);
  auto vector = VectorType::get({chunkElements}, element);
  Value loaded = LLVM::LoadOp::create(b, loc, vector, pointer, /*alignment=*/16);
  SmallVector<Value, 4> values;
  for (int64_t e = 0; e < chunkElements; ++e)
    values.push_back(LLVM::ExtractElementOp::create(
        b, loc, loaded,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(e))));
  return values;
}

Value SimtKernel::multiplyAdd(Value a, Value bValue, Value c) {
  if (isa<FloatType>(element))
    return math::FmaOp::create(b, loc, a, bValue, c);
  return arith::AddIOp::create(b, loc, c,
                               arith::MulIOp::create(b, loc, a, bValue));
}

Value SimtKernel::column(int64_t j) {
  if (shape.rhsKMajor)
    return add(threadColumn, index(j * threadColumns));
  // Two groups of 4 adjacent columns, half a tile apart.
  return add(mul(threadColumn, index(kColumnGroup)),
             index(j / kColumnGroup * (tiling.tileN / 2) + j % kColumnGroup));
}

SmallVector<Value> SimtKernel::multiplyTile(Value aStart, Value bStart,
                                            ValueRange accumulators) {
  SmallVector<Value> next(accumulators);
  constexpr int64_t n = kSimtThreadTile;
  for (int64_t kc = 0; kc < tiling.tileK / chunkElements; ++kc) {
    Value chunk = index(kc);
    // a[i][kk]: the thread's row i, K kk of this chunk.
    SmallVector<SmallVector<Value, 4>> a;
    for (int64_t i = 0; i < n; ++i)
      a.push_back(readChunk(aTile, aStart,
                            add(threadRow, index(i * threadRows)), chunk));
    SmallVector<SmallVector<Value, 4>> bKMajor;
    if (shape.rhsKMajor)
      for (int64_t j = 0; j < n; ++j)
        bKMajor.push_back(readChunk(bTile, bStart, column(j), chunk));
    for (int64_t kk = 0; kk < chunkElements; ++kk) {
      SmallVector<Value> bValues;
      if (shape.rhsKMajor) {
        for (int64_t j = 0; j < n; ++j)
          bValues.push_back(bKMajor[j][kk]);
      } else {
        // B's K row: the thread's two groups of 4 columns, each one chunk
        // or two.
        Value row = index(kc * chunkElements + kk);
        for (int64_t j = 0; j < n; j += chunkElements)
          llvm::append_range(
              bValues, readChunk(bTile, bStart, row,
                                 div(column(j), chunkElements)));
      }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          Value &c = next[i * n + j];
          c = multiplyAdd(a[i][kk], bValues[j], c);
        }
    }
  }
  return next;
}

FailureOr<LaunchShape> SimtKernel::build() {
  element = tensorType(matmul.getLhs()).getElementType();
  chunkElements = tiling.getChunkElements();
  threadRows = tiling.tileM / kSimtThreadTile;
  threadColumns = tiling.tileN / kSimtThreadTile;
  int64_t kChunks = tiling.tileK / chunkElements;
  int64_t sharedBytes = tiling.getSharedBytes();
  setUp({tiling.tileM, kChunks, chunkElements},
        shape.rhsKMajor ? SwizzledTile{tiling.tileN, kChunks, chunkElements}
                        : SwizzledTile{tiling.tileK,
                                       tiling.tileN / chunkElements,
                                       chunkElements},
        sharedBytes, element);
  threadRow = div(thread, threadColumns);
  threadColumn = rem(thread, threadColumns);
  ringAddress = add(shared.address, shared.base);

  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  SmallVector<Value> init(kSimtThreadTile * kSimtThreadTile, zero);
  SmallVector<Value> accumulators =
      mainLoop(init, [&](Value aStart, Value bStart, ValueRange acc) {
        return multiplyTile(aStart, bStart, acc);
      });
  auto place = [&](int64_t i) -> std::pair<Value, Value> {
    return {add(threadRow, index(i / kSimtThreadTile * threadRows)),
            column(i % kSimtThreadTile)};
  };
  if (failed(epilogue(accumulators, kAccumulatorPadding, place)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return getLaunch(sharedBytes);
}

FailureOr<LaunchShape>
mlir::fk::buildSimtMatmulKernel(FusionOp fusion, const SimtTiling &tiling,
                                gpu::GPUFuncOp kernel,
                                gpu::GPUModuleOp kernels) {
  return SimtKernel(fusion, tiling, kernel, kernels).build();
}
