//===- MatmulShape.cpp - a matmul fusion as its tiled kernels see it ------===//

#include "Codegen/MatmulShape.h"
#include "Codegen/RuntimeSizes.h"
#include "Codegen/TileEpilogue.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkNumerics.h"

using namespace mlir;
using namespace mlir::fk;

/// Row tiles per group of the block order (emitOutputTileOrigin): on an
/// H200, 16 beat 1, 8 and 32 at 8192^3 with the wgmma kernel (1.58 against
/// 1.69, 1.73 and 1.68 ms) and on the MLP yardstick, and tied at 4096^3.
/// For 4096 rows, 32 (one group) made the Llama-sized layer and 4096^3
/// slower and the SwiGLU MLP 1.4% faster
/// (bench/results/raster/2026-11-30-h200-raster-rows.md).
static constexpr int64_t kRasterRows = 16;
// Even, so that where a product's row tiles are even every group's are,
// and tiles 2i and 2i + 1 are two row tiles of one column: the blocks of
// a cluster share their B tile (getClusterBlocks).
static_assert(kRasterRows % 2 == 0, "clusters pair row tiles of a group");

TransposeOp mlir::fk::getKMajorRhs(MatmulOp matmul) {
  auto transpose = matmul.getRhs().getDefiningOp<TransposeOp>();
  if (transpose && swapsLastTwoDims(transpose))
    return transpose;
  return nullptr;
}

Value mlir::fk::getTensorCoreRhsInput(MatmulOp matmul) {
  if (TransposeOp transpose = getKMajorRhs(matmul))
    return transpose.getOperand();
  return matmul.getRhs();
}

MatmulShape::MatmulShape(MatmulOp matmul) {
  RankedTensorType lhsType = tensorType(matmul.getLhs());
  ArrayRef<int64_t> lhs = lhsType.getShape(),
                    rhs = tensorType(matmul.getRhs()).getShape(),
                    result = tensorType(matmul.getResult()).getShape();
  SmallVector<Dim> lhsDims = getDims(lhsType);
  m = lhs[lhs.size() - 2];
  k = lhs.back();
  n = rhs.back();
  batch.assign(result.begin(), result.end() - 2);
  lhsBatch.assign(lhs.begin(), lhs.end() - 2);
  rhsBatch.assign(rhs.begin(), rhs.end() - 2);
  elementType = lhsType.getElementType();
  rhsKMajor = getKMajorRhs(matmul) != nullptr;
  if (auto fusion = matmul->getParentOfType<FusionOp>()) {
    paired = fusion.getPairedMatmul() != nullptr;
    if (fusion.isMatmulGroup())
      for (MatmulOp product : fusion.getMatmuls())
        groupColumns.push_back(tensorType(product.getRhs()).getShape().back());
  }
  if (!batch.empty() && lhsBatch == batch &&
      ShapedType::getNumElements(rhsBatch) == 1) {
    foldedBatch.assign(lhsDims.begin(), lhsDims.end() - 2);
    if (!isSymbolic(lhsType))
      m *= ShapedType::getNumElements(batch);
    batch.clear();
    lhsBatch.clear();
    rhsBatch.clear();
  }
  // Symbolic rows (the tiled kernels take no other symbolic size:
  // whyNotTiledAtRuntimeSizes): their
  // monomial, and their largest size for the heuristics.
  if (isSymbolic(lhsType)) {
    SmallVector<Dim> rowDims(foldedBatch);
    rowDims.push_back(lhsDims[lhsDims.size() - 2]);
    rows = elementCount(rowDims).value_or(Dim(kUnboundedSizeGuess));
    std::optional<int64_t> largest =
        getLargestSize(rows, getDimBounds(matmul));
    rowsBounded = largest.has_value();
    m = largest.value_or(kUnboundedSizeGuess);
    // The kernel of a row variant serves runs of at most its limit's rows
    // (RowVariants.h).
    if (auto fusion = matmul->getParentOfType<FusionOp>())
      if (auto limit = fusion->getAttrOfType<IntegerAttr>(kRowLimitAttrName)) {
        m = rowsBounded ? std::min(m, limit.getInt()) : limit.getInt();
        rowsBounded = true;
      }
  } else {
    rows = Dim(m);
  }
}

std::string mlir::fk::whyNotTensorCoreOperands(FusionOp fusion) {
  MatmulOp matmul = fusion.getMatmul();
  if (!matmul)
    return "not a matmul fusion";
  Type element = tensorType(matmul.getLhs()).getElementType();
  // wgmma takes TF32 operands K-major only: A as stored, B as transpose(w).
  if (element.isF32()) {
    if (std::string why = whyNoTf32(fusion); !why.empty())
      return why;
    if (!MatmulShape(matmul).rhsKMajor)
      return "wgmma takes TF32 operands K-major only: B must be read as "
             "transpose(w) of a [N, K] w";
  } else if (!element.isF16() && !element.isBF16()) {
    return "operands are not f16, bf16 or f32";
  }
  return whyNotOperandTiles(fusion);
}

std::string mlir::fk::whyNotOperandTiles(FusionOp fusion) {
  MatmulOp matmul = fusion.getMatmul();
  if (!matmul)
    return "not a matmul fusion";
  SmallVector<Value, 3> operands = {matmul.getLhs()};
  for (MatmulOp product : fusion.getMatmuls()) {
    operands.push_back(getTensorCoreRhsInput(product));
    if (bool(getKMajorRhs(product)) != bool(getKMajorRhs(matmul)))
      return std::string("one matmul reads its right operand as "
                         "transpose(w), ") +
             (fusion.getMatmuls().size() == 2 ? "the other" : "another") +
             " as stored";
    if (tensorType(product.getLhs()).getShape().back() !=
            tensorType(matmul.getLhs()).getShape().back() ||
        tensorType(product.getRhs()).getShape().drop_back() !=
            tensorType(matmul.getRhs()).getShape().drop_back())
      return "the matmuls' right operands differ in K or batch dims";
  }
  for (Value operand : operands)
    if (!isa<BlockArgument>(operand))
      return "an operand is computed in the fusion (a prologue); tiled "
             "kernels copy tiles of fusion inputs only";
  if (std::string why = whyNotTiledAtRuntimeSizes(matmul); !why.empty())
    return why;
  MatmulShape shape(matmul);
  if (shape.m == 0 || shape.n == 0 || shape.k == 0)
    return "the matmul has no elements";
  if (shape.batches() > 65535)
    return "more than 65535 batches";
  // The grid's y walks column tiles of at least 64 (the narrowest tile).
  if (shape.columnTiles(64) > 65535)
    return "more than 65535 column tiles";
  return "";
}

std::string mlir::fk::whyNotAlignedRows(const MatmulShape &shape) {
  // A's rows and a K-major B's are K long, an N-major B's N.
  std::string piece = std::to_string(16 / shape.elementBytes());
  if (!shape.lhsRowsAligned())
    return "rows of an operand are not a multiple of 16 bytes (K must be a "
           "multiple of " + piece + ")";
  if (!shape.rhsRowsAligned())
    return "rows of the right operand are not a multiple of 16 bytes (N must "
           "be a multiple of " + piece + ", or the operand given as "
           "transpose(w) of a [N, K] w)";
  return "";
}

bool mlir::fk::prefersNarrowTiles(const MatmulShape &shape, int64_t smCount) {
  return shape.m <= 64 || 4 * shape.tiles(128, 128) <= smCount;
}

Value mlir::fk::isInsideProduct(KernelContext &k, const MatmulShape &shape,
                                Value row, Value column) {
  return arith::AndIOp::create(k.b, k.loc,
                               k.idx.inRange(row, k.idx.size(shape.rows)),
                               k.idx.inRange(column, shape.n));
}

OpFoldResult mlir::fk::getRowTileCount(KernelContext &k,
                                       const MatmulShape &shape,
                                       int64_t tileM) {
  if (!shape.hasRuntimeRows())
    return k.b.getIndexAttr(llvm::divideCeil(shape.m, tileM));
  return arith::CeilDivUIOp::create(k.b, k.loc, k.idx.sizeValue(shape.rows),
                                    k.idx.constant(tileM))
      .getResult();
}

void mlir::fk::setRowTileGrid(LaunchShape &launch, const MatmulShape &shape,
                              int64_t tileM) {
  launch.grid[0] = llvm::divideCeil(shape.m, tileM);
  if (!shape.hasRuntimeRows())
    return;
  launch.gridWork = shape.rows;
  launch.workPerBlock = tileM;
  launch.maxBlocks = kMaxGridX;
}

std::pair<Value, Value>
mlir::fk::emitOutputTileOrigin(KernelContext &k, const MatmulShape &shape,
                               int64_t tileM, int64_t tileN,
                               Value linearTile) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto index = [&](int64_t v) { return k.idx.constant(v); };
  int64_t columnTiles = shape.columnTiles(tileN);
  OpFoldResult rowTileCount = getRowTileCount(k, shape, tileM);
  Value rowTiles = k.idx.value(rowTileCount);
  std::optional<int64_t> staticRowTiles = getConstantIntValue(rowTileCount);
  Value groupRows =
      staticRowTiles
          ? index(std::min<int64_t>(kRasterRows, *staticRowTiles))
          : arith::MinUIOp::create(b, loc, rowTiles, index(kRasterRows))
                .getResult();
  Value linear =
      linearTile
          ? linearTile
          : k.idx.add(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x),
                      k.idx.mul(gpu::BlockIdOp::create(b, loc,
                                                       gpu::Dimension::y),
                                rowTiles));
  Value groupTiles = k.idx.mul(groupRows, index(columnTiles));
  Value group = arith::DivUIOp::create(b, loc, linear, groupTiles);
  Value inGroup = arith::RemUIOp::create(b, loc, linear, groupTiles);
  Value firstRow = k.idx.mul(group, groupRows);
  // The last group may have fewer row tiles.
  Value rowsLeft = arith::SubIOp::create(b, loc, rowTiles, firstRow);
  Value rows = arith::MinUIOp::create(b, loc, rowsLeft, groupRows);
  Value rowTile =
      k.idx.add(firstRow, arith::RemUIOp::create(b, loc, inGroup, rows));
  Value columnTile = arith::DivUIOp::create(b, loc, inGroup, rows);
  return {k.idx.mul(rowTile, index(tileM)),
          k.idx.mul(columnTile, index(tileN))};
}

LogicalResult mlir::fk::emitMatmulEpilogue(KernelContext &k,
                                           const MatmulShape &shape,
                                           Value tile, int64_t rows,
                                           int64_t columns, Value firstRow,
                                           Value firstColumn,
                                           ArrayRef<Value> batchCoords,
                                           int64_t threads, Value thread,
                                           bool swizzled, MatmulOp product) {
  ResultTile result;
  result.anchor = k.fusion.getMatmul();
  result.pairedAnchor = k.fusion.getPairedMatmul();
  if (product) {
    result.anchor = product;
    for (unsigned i = 0; i < k.fusion.getNumResults(); ++i)
      if (k.fusion.getResultMatmul(i) == product)
        result.results.push_back(i);
  }
  result.tile = tile;
  result.rows = rows;
  result.columns = columns;
  result.firstRow = firstRow;
  result.firstColumn = firstColumn;
  result.batchCoords.assign(batchCoords.begin(), batchCoords.end());
  result.rowBatchShape = shape.foldedBatch;
  result.threads = threads;
  result.thread = thread;
  result.swizzled = swizzled;
  return emitTileEpilogue(k, result);
}
