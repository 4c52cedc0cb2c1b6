//===- RowVariants.cpp - kernels for runs of few rows ---------------------===//

#include "Codegen/RowVariants.h"
#include "Codegen/AttentionShape.h"
#include "Codegen/MatmulShape.h"
#include "fk/IR/FkKernelLimits.h"

using namespace mlir;
using namespace mlir::fk;

/// The row limits tried, ascending: one 64-row tile (a decode step's
/// tokens), then 4x apart, which keeps a run's rows within 4x of those its
/// tiles were chosen for.
static constexpr int64_t kRowVariantLimits[] = {64, 256, 1024, 4096};

/// The query-row limits tried for an attention: the decode kernel's most
/// rows (a decode step's or a short prompt's), then one warpgroup's 64 rows
/// (the flash kernel's smaller blocks).
static constexpr int64_t kAttentionRowLimits[] = {kDecodeMaxQueries,
                                                  kFlashRowsPerWarpgroup};

/// Whether `fusion` is an attention fusion whose query rows are given at
/// run time.
static bool hasRuntimeQueryRows(FusionOp fusion) {
  AttentionOp attention = fusion.getAttention();
  return attention && !AttentionShape(attention).queryRows.isStatic();
}

SmallVector<int64_t> mlir::fk::getRowVariantLimits(FusionOp fusion) {
  if (fusion->hasAttr(kRowLimitAttrName))
    return {};
  ArrayRef<int64_t> tried;
  int64_t largest = 0;
  if (hasRuntimeQueryRows(fusion)) {
    // Query rows without a bound get every limit's variant.
    tried = kAttentionRowLimits;
    largest = AttentionShape(fusion.getAttention()).queries;
  } else {
    MatmulOp matmul = fusion.getMatmul();
    if (fusion.getKind() != FusionKind::Matmul || !matmul ||
        !whyNotTiledAtRuntimeSizes(matmul).empty())
      return {};
    // Rows without a bound are tiled for kUnboundedSizeGuess (MatmulShape):
    // every limit below gets its variant.
    MatmulShape shape(matmul);
    if (!shape.hasRuntimeRows())
      return {};
    tried = kRowVariantLimits;
    largest = shape.m;
  }
  SmallVector<int64_t> limits;
  for (int64_t limit : tried)
    if (limit < largest)
      limits.push_back(limit);
  return limits;
}

FailureOr<SmallVector<RowVariant>> mlir::fk::getRowVariants(FusionOp fusion) {
  SmallVector<RowVariant> variants;
  Attribute attr = fusion->getAttr(kRowVariantsAttrName);
  if (!attr)
    return variants;
  auto malformed = [&]() {
    return fusion.emitOpError()
           << "has a malformed " << kRowVariantsAttrName
           << ": expected an array of {rows = N : i64, tiling = "
              "#fk.tiling<...>[, promotion = #fk.promotion<...>]}, rows "
              "ascending and positive, on a matmul fusion whose rows or an "
              "attention fusion whose query rows are given at run time";
  };
  auto list = dyn_cast<ArrayAttr>(attr);
  bool runtimeRows =
      hasRuntimeQueryRows(fusion) ||
      (fusion.getMatmul() && MatmulShape(fusion.getMatmul()).hasRuntimeRows());
  if (!list || !runtimeRows)
    return malformed();
  for (Attribute element : list) {
    auto entry = dyn_cast<DictionaryAttr>(element);
    auto rows = entry ? entry.getAs<IntegerAttr>("rows") : IntegerAttr();
    auto tiling = entry ? entry.getAs<TilingAttr>("tiling") : TilingAttr();
    Attribute promotion = entry ? entry.get("promotion") : Attribute();
    if (!rows || !tiling || rows.getInt() <= 0 ||
        (promotion && !isa<PromotionAttr>(promotion)) ||
        (!variants.empty() && rows.getInt() <= variants.back().rows))
      return malformed();
    variants.push_back({rows.getInt(), tiling,
                        cast_if_present<PromotionAttr>(promotion)});
  }
  return variants;
}

void mlir::fk::setRowVariants(FusionOp fusion, ArrayRef<RowVariant> variants) {
  if (variants.empty()) {
    fusion->removeAttr(kRowVariantsAttrName);
    return;
  }
  Builder b(fusion.getContext());
  SmallVector<Attribute> list;
  for (const RowVariant &variant : variants) {
    SmallVector<NamedAttribute> entry = {
        b.getNamedAttr("rows", b.getI64IntegerAttr(variant.rows)),
        b.getNamedAttr("tiling", variant.tiling)};
    if (variant.promotion)
      entry.push_back(b.getNamedAttr("promotion", variant.promotion));
    list.push_back(b.getDictionaryAttr(entry));
  }
  fusion->setAttr(kRowVariantsAttrName, b.getArrayAttr(list));
}

FusionOp mlir::fk::cloneRowVariant(FusionOp fusion,
                                   const RowVariant &variant) {
  OpBuilder b(fusion);
  auto clone = cast<FusionOp>(b.clone(*fusion));
  clone->removeAttr(kRowVariantsAttrName);
  clone->setAttr(kRowLimitAttrName, b.getI64IntegerAttr(variant.rows));
  clone->setAttr(kTilingAttrName, variant.tiling);
  if (variant.promotion)
    clone->setAttr(kPromotionAttrName, variant.promotion);
  else
    clone->removeAttr(kPromotionAttrName);
  return clone;
}

Dim mlir::fk::getVariantRows(FusionOp fusion) {
  if (AttentionOp attention = fusion.getAttention())
    return AttentionShape(attention).queryRows;
  return MatmulShape(fusion.getMatmul()).rows;
}
