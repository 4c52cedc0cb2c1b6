//===- WarpMma.cpp - the pieces of the mma.sync kernels -------------------===//

#include "Codegen/WarpMma.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::fk;

Value SwizzledTile::offset(IndexBuilder &idx, Value tileStart, Value row,
                           Value chunk) const {
  // Rows of a multiple of 8 chunks start at the same bank, so the row's
  // low 3 bits swizzle the chunk's low 3; with a multiple of 4 (2) chunks,
  // rows 2 (4) apart start at the same bank, and the row bits above those
  // swizzle the chunk's low 2 bits (1 bit). XOR changes only those low
  // bits, so a chunk stays in its row, whatever the chunk count (12 for a
  // head dim of 96).
  int64_t shift = rowChunks % 8 == 0 ? 0 : rowChunks % 4 == 0 ? 1 : 2;
  int64_t mask = rowChunks % 8 == 0 ? 7 : rowChunks % 4 == 0 ? 3
               : rowChunks % 2 == 0 ? 1 : 0;
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  Value bits = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, row, idx.constant(shift)),
      idx.constant(mask));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, bits);
  return idx.add(tileStart,
                 idx.add(idx.mul(row, idx.constant(rowChunks * chunkElements)),
                         idx.mul(swizzled, idx.constant(chunkElements))));
}

/// Calls `copy(row, chunk, globalRow, globalColumn)` for each of this
/// thread's chunks of `tile`, the `threads` threads taking adjacent chunks
/// of a row.
static void forEachThreadChunk(
    IndexBuilder &idx, Value thread, int64_t threads, const SwizzledTile &tile,
    Value firstRow, Value firstColumn,
    function_ref<void(Value, Value, Value, Value)> copy) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  int64_t chunks = tile.rows * tile.rowChunks;
  int64_t rounds = llvm::divideCeil(chunks, threads);
  for (int64_t i = 0; i < rounds; ++i) {
    Value chunkIndex = idx.add(thread, idx.constant(i * threads));
    // The last round of a tile whose chunks the threads do not divide.
    std::optional<OpBuilder::InsertionGuard> guard;
    if ((i + 1) * threads > chunks) {
      guard.emplace(b);
      auto within = scf::IfOp::create(b, loc, idx.inRange(chunkIndex, chunks),
                                      /*withElseRegion=*/false);
      b.setInsertionPointToStart(&within.getThenRegion().front());
    }
    Value row = arith::DivUIOp::create(b, loc, chunkIndex,
                                       idx.constant(tile.rowChunks));
    Value chunk = arith::RemUIOp::create(b, loc, chunkIndex,
                                         idx.constant(tile.rowChunks));
    copy(row, chunk, idx.add(firstRow, row),
         idx.add(firstColumn,
                 idx.mul(chunk, idx.constant(tile.chunkElements))));
  }
}

void mlir::fk::copyTileAsync(IndexBuilder &idx, Value thread, int64_t threads,
                             const SwizzledTile &tile, Value shared,
                             Value tileStart, Value global, Value base,
                             Value firstRow, Value firstColumn,
                             OpFoldResult rowBound, int64_t columnBound,
                             int64_t rowStride) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  MLIRContext *ctx = b.getContext();
  forEachThreadChunk(
      idx, thread, threads, tile, firstRow, firstColumn,
      [&](Value row, Value chunk, Value globalRow, Value globalColumn) {
        Value inside =
            arith::AndIOp::create(b, loc, idx.inRange(globalRow, rowBound),
                                  idx.inRange(globalColumn, columnBound));
        // A chunk outside reads nothing (a source size of 0) from the base.
        Value source = arith::SelectOp::create(
            b, loc, inside,
            idx.add(base, idx.add(idx.mul(globalRow, idx.constant(rowStride)),
                                  globalColumn)),
            base);
        Value sourceElements = arith::SelectOp::create(
            b, loc, inside, idx.constant(tile.chunkElements),
            idx.constant(0));
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, nvgpu::DeviceAsyncTokenType::get(ctx), shared,
            ValueRange{tile.offset(idx, tileStart, row, chunk)}, global,
            ValueRange{source}, b.getIndexAttr(tile.chunkElements),
            sourceElements,
            /*bypassL1=*/b.getUnitAttr());
      });
}

void mlir::fk::copyTileByElements(IndexBuilder &idx, Value thread,
                                  int64_t threads, const SwizzledTile &tile,
                                  Value shared, Value tileStart, Value global,
                                  Value base, Value firstRow,
                                  Value firstColumn, OpFoldResult rowBound,
                                  int64_t columnBound, int64_t rowStride) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  Type element = cast<MemRefType>(shared.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  forEachThreadChunk(
      idx, thread, threads, tile, firstRow, firstColumn,
      [&](Value row, Value chunk, Value globalRow, Value globalColumn) {
        Value rowInside = idx.inRange(globalRow, rowBound);
        Value rowStart =
            idx.add(base, idx.mul(globalRow, idx.constant(rowStride)));
        Value destination = tile.offset(idx, tileStart, row, chunk);
        SmallVector<Value> values;
        for (int64_t e = 0; e < tile.chunkElements; ++e) {
          Value column = idx.add(globalColumn, idx.constant(e));
          Value inside = arith::AndIOp::create(
              b, loc, rowInside, idx.inRange(column, columnBound));
          // Elements outside read the base instead, and are zeros.
          Value source = arith::SelectOp::create(
              b, loc, inside, idx.add(rowStart, column), base);
          Value value =
              memref::LoadOp::create(b, loc, global, ValueRange{source});
          values.push_back(arith::SelectOp::create(b, loc, inside, value, zero));
        }
        for (auto [e, value] : llvm::enumerate(values))
          memref::StoreOp::create(
              b, loc, value, shared,
              ValueRange{idx.add(destination, idx.constant(e))});
      });
}

Value mlir::fk::commitAsyncCopies(OpBuilder &b, Location loc) {
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange{});
}

void mlir::fk::waitAsyncCopies(OpBuilder &b, Location loc, Value token,
                               int64_t pending) {
  nvgpu::DeviceAsyncWaitOp::create(b, loc, token,
                                   b.getI32IntegerAttr(pending));
}

Value mlir::fk::packPair(OpBuilder &b, Location loc, Value low, Value high,
                         Type element) {
  // cvt.rn.f16x2.f32 puts its first source in the high half.
  std::string convert = element.isF16() ? "cvt.rn.f16x2.f32 $0, $2, $1;"
                                        : "cvt.rn.bf16x2.f32 $0, $2, $1;";
  Value packed = emitInlinePtx(b, loc, b.getI32Type(), convert, "=r,f,f",
                               ValueRange{low, high}, /*sideEffects=*/false);
  if (element.isBF16())
    return packed;
  return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, element), packed);
}

WarpFragments::WarpFragments(IndexBuilder &idx, Value shared, Value lane,
                             Type element, bool splitF32)
    : idx(idx), shared(shared), element(element), splitF32(splitF32) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  auto div = [&](Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, idx.constant(y)).getResult();
  };
  auto rem = [&](Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, idx.constant(y)).getResult();
  };
  lane16 = rem(lane, 16);
  laneHalf = div(lane, 16);
  lane8 = rem(lane, 8);
  laneQuarter = rem(div(lane, 8), 2);
  if (element.isF32()) {
    laneInGroup = rem(lane, 4);
    laneWord = rem(div(lane, 4), 4);
  }
}

Value WarpFragments::toTf32(Value value) {
  return emitInlinePtx(idx.b, idx.loc, idx.b.getI32Type(),
                       "cvt.rna.tf32.f32 $0, $1;", "=r,f", ValueRange{value},
                       /*sideEffects=*/false);
}

SmallVector<Value, 4> WarpFragments::f32Operands(ArrayRef<Value> values) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  SmallVector<Value, 4> big, small;
  for (Value value : values) {
    big.push_back(toTf32(value));
    if (!splitF32)
      continue;
    // A TF32 is an f32 whose low 13 bits are 0: the rest is exact in f32.
    Value bigValue = LLVM::BitcastOp::create(b, loc, b.getF32Type(), big.back());
    small.push_back(
        toTf32(arith::SubFOp::create(b, loc, value, bigValue).getResult()));
  }
  llvm::append_range(big, small);
  return big;
}

SmallVector<Value, 4> WarpFragments::loadMatrices(Value offset,
                                                  bool transpose) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  // A matrix row is 16 bytes: a register holds two 16-bit elements or one
  // f32.
  int64_t perRegister = element.isF32() ? 1 : 2;
  auto registerType = VectorType::get({perRegister}, element);
  Value matrices = nvgpu::LdMatrixOp::create(
      b, loc, VectorType::get({4, perRegister}, element), shared,
      ValueRange{offset}, b.getBoolAttr(transpose),
      /*numTiles=*/b.getI32IntegerAttr(4));
  // The NVGPU lowering makes the vector an array of four registers; the
  // casts cancel there.
  Value array = UnrealizedConversionCastOp::create(
                    b, loc, LLVM::LLVMArrayType::get(registerType, 4),
                    matrices)
                    .getResult(0);
  SmallVector<Value, 4> registers;
  for (int64_t i = 0; i < 4; ++i) {
    Value value = LLVM::ExtractValueOp::create(b, loc, array, i);
    // mma.sync takes bf16 pairs and TF32 as 32-bit registers.
    if (element.isBF16())
      value = LLVM::BitcastOp::create(b, loc, b.getI32Type(), value);
    if (element.isF32())
      value = LLVM::BitcastOp::create(b, loc, b.getF32Type(), value);
    registers.push_back(value);
  }
  if (element.isF32())
    return f32Operands(registers);
  return registers;
}

SmallVector<Value, 4> WarpFragments::loadA(const SwizzledTile &tile,
                                           Value tileStart, Value firstRow,
                                           Value firstChunk) {
  // Matrices (rows 0-7, chunk 0), (rows 8-15, chunk 0), (rows 0-7, chunk
  // 1), (rows 8-15, chunk 1): lane l addresses row l % 16 of chunk l / 16.
  return loadMatrices(tile.offset(idx, tileStart, idx.add(firstRow, lane16),
                                  idx.add(firstChunk, laneHalf)),
                      /*transpose=*/false);
}

SmallVector<Value, 4> WarpFragments::loadBFromColumns(const SwizzledTile &tile,
                                                      Value tileStart,
                                                      Value firstRow,
                                                      Value firstChunk) {
  // Matrices (N 0-7, chunk 0), (N 0-7, chunk 1), (N 8-15, chunk 0), (N
  // 8-15, chunk 1): lane l addresses row l % 8 + 8 (l / 16), chunk
  // (l / 8) % 2.
  Value row = idx.add(firstRow,
                      idx.add(lane8, idx.mul(laneHalf, idx.constant(8))));
  return loadMatrices(
      tile.offset(idx, tileStart, row, idx.add(firstChunk, laneQuarter)),
      /*transpose=*/false);
}

SmallVector<Value, 4> WarpFragments::loadBFromRows(const SwizzledTile &tile,
                                                   Value tileStart,
                                                   Value firstRow,
                                                   Value firstChunk,
                                                   bool rowsInPairs) {
  if (element.isF32()) {
    // TF32's B fragment: lane l holds (K l % 4, N l / 4) and 4 rows of K
    // down (or, in pairs, K 2 (l % 4) and the next), of each 8-column
    // tile; a tile's 8 columns are two chunks.
    SmallVector<Value, 4> registers;
    for (int64_t column = 0; column < 2; ++column)
      for (int64_t down = 0; down < 2; ++down) {
        Value row = idx.add(
            firstRow,
            rowsInPairs
                ? idx.add(idx.mul(laneInGroup, idx.constant(2)),
                          idx.constant(down))
                : idx.add(laneInGroup, idx.constant(4 * down)));
        // Column l / 4 of the tile: chunk l / 16, word (l / 4) % 4.
        Value chunk = idx.add(firstChunk,
                              idx.add(idx.constant(2 * column), laneHalf));
        Value offset =
            idx.add(tile.offset(idx, tileStart, row, chunk), laneWord);
        registers.push_back(memref::LoadOp::create(idx.b, idx.loc, shared,
                                                   ValueRange{offset}));
      }
    return f32Operands(registers);
  }
  // Matrices (K 0-7, N 0-7), (K 8-15, N 0-7), (K 0-7, N 8-15), (K 8-15, N
  // 8-15), transposed: lane l addresses row l % 8 + 8 ((l / 8) % 2),
  // chunk l / 16.
  Value row = idx.add(firstRow,
                      idx.add(lane8, idx.mul(laneQuarter, idx.constant(8))));
  return loadMatrices(
      tile.offset(idx, tileStart, row, idx.add(firstChunk, laneHalf)),
      /*transpose=*/true);
}

void WarpFragments::multiplyPair(ArrayRef<Value> a, ArrayRef<Value> bPair,
                                 MutableArrayRef<Value> c) {
  OpBuilder &b = idx.b;
  Location loc = idx.loc;
  NVVM::MMATypes type = element.isBF16()  ? NVVM::MMATypes::bf16
                        : element.isF32() ? NVVM::MMATypes::tf32
                                          : NVVM::MMATypes::f16;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  auto mma = [&](ArrayRef<Value> a, ArrayRef<Value> bTile,
                 MutableArrayRef<Value> tile) {
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, a, bTile, ArrayRef<Value>(tile),
        ArrayRef<int64_t>{kMmaM, kMmaN, getStepK()},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (int64_t e = 0; e < 4; ++e)
      tile[e] = LLVM::ExtractValueOp::create(b, loc, d, e);
  };
  for (int64_t half = 0; half < 2; ++half) {
    MutableArrayRef<Value> tile = c.slice(4 * half, 4);
    ArrayRef<Value> bBig = bPair.slice(2 * half, 2);
    if (splitF32) {
      // The small terms first, into what is still small.
      ArrayRef<Value> bSmall = bPair.slice(4 + 2 * half, 2);
      mma(a.drop_front(4), bBig, tile);
      mma(a.take_front(4), bSmall, tile);
    }
    mma(a.take_front(4), bBig, tile);
  }
}
