//===- AttentionShape.h - the shapes an attention kernel reads ---*- C++ -*-===//
//
// What the attention kernels (FlashAttention.cpp, DecodeAttention.cpp) read
// of an `fk.attention` whose operands are fusion inputs: sizes, batch dims
// of the result and of each operand (which broadcast; symbolic ones are
// sizes the kernels read at run time), the additive mask's shape, element
// type, scale and causality.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_ATTENTIONSHAPE_H
#define FKC_CODEGEN_ATTENTIONSHAPE_H

#include "Codegen/KernelBuilder.h"
#include "Codegen/KernelEmission.h"
#include "Codegen/RuntimeSizes.h"
#include "fk/IR/FkKernelLimits.h"
#include "fk/IR/FkOps.h"

namespace mlir::fk {

struct AttentionShape {
  /// Query rows and keys: their sizes, or where given at run time their
  /// largest under the graph's bounds (kUnboundedSizeGuess without one; a
  /// row variant's query rows at most its limit), for the heuristics and
  /// workspaces; `queryRows` and `keyRows` are what the kernels read.
  int64_t queries, keys, headDim, valueHeadDim;
  Dim queryRows, keyRows;
  /// Batch dims of the result and of each operand (the kernels take
  /// symbols in these only: whyNotRuntimeSizedAttention).
  SmallVector<Dim> batch, queryBatch, keyBatch, valueBatch;
  /// The heads of the query, key and value when they are head splits read
  /// in place (see getHeadSplitInput: [..., H, T, D] tiles of a
  /// [..., T, H, D] layout), else 0.
  int64_t queryHeads, keyHeads, valueHeads;
  /// The additive mask's dims, which broadcast to [batch..., Nq, Nk] (see
  /// `masked`); symbolic ones are read at run time.
  SmallVector<Dim> maskDims;
  bool masked = false;
  /// The graph's bounds of its symbols (getDimBounds).
  DictionaryAttr bounds;
  Type elementType;
  double scale;
  bool causal;

  explicit AttentionShape(AttentionOp attention) {
    auto shape = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape();
    };
    auto batchDims = [](Value v) {
      SmallVector<Dim> dims = getDims(cast<RankedTensorType>(v.getType()));
      dims.truncate(dims.size() - 2);
      return dims;
    };
    ArrayRef<int64_t> q = shape(attention.getQuery()),
                      k = shape(attention.getKey()),
                      v = shape(attention.getValue());
    queryRows = getDim(cast<RankedTensorType>(attention.getQuery().getType()),
                       q.size() - 2);
    keyRows = getDim(cast<RankedTensorType>(attention.getKey().getType()),
                     k.size() - 2);
    bounds = getDimBounds(attention);
    queries = getLargestSize(queryRows, bounds).value_or(kUnboundedSizeGuess);
    keys = getLargestSize(keyRows, bounds).value_or(kUnboundedSizeGuess);
    // The kernel of a row variant serves runs of at most its limit's query
    // rows (RowVariants.h), and as many keys in a self-attention.
    if (auto fusion = attention->getParentOfType<FusionOp>())
      if (auto limit = fusion->getAttrOfType<IntegerAttr>(kRowLimitAttrName)) {
        queries = std::min(queries, limit.getInt());
        if (keyRows == queryRows)
          keys = std::min(keys, limit.getInt());
      }
    headDim = q.back();
    valueHeadDim = v.back();
    batch = batchDims(attention.getResult());
    queryBatch = batchDims(attention.getQuery());
    keyBatch = batchDims(attention.getKey());
    valueBatch = batchDims(attention.getValue());
    queryHeads = splitHeads(attention.getQuery());
    keyHeads = splitHeads(attention.getKey());
    valueHeads = splitHeads(attention.getValue());
    elementType =
        cast<RankedTensorType>(attention.getQuery().getType()).getElementType();
    scale = attention.getScale().convertToDouble();
    causal = attention.getCausal();
    if (Value mask = attention.getMask()) {
      masked = true;
      maskDims = getDims(cast<RankedTensorType>(mask.getType()));
    }
  }
  int64_t elementBytes() const {
    return elementType.getIntOrFloatBitWidth() / 8;
  }
  /// The number of batches (a monomial when symbolic).
  Dim getBatchCount() const { return *elementCount(batch); }
  /// The batch count for the tiling heuristics: its size, or with each
  /// symbol at 1 (the fewest batches of a nonempty run).
  int64_t getFewestBatches() const {
    return getBatchCount().getCoefficient();
  }
  /// The batch count as a grid's y, computed per run when symbolic.
  void setBatchGrid(LaunchShape &launch) const {
    Dim count = getBatchCount();
    launch.grid[1] = count.isStatic() ? count.getCoefficient() : 1;
    if (!count.isStatic())
      launch.gridBatches = count;
  }

  /// Limits `launch` to lengths the kernels index (kMaxAttentionLength)
  /// where they are given at run time and the bounds do not keep them
  /// below.
  void limitLengths(LaunchShape &launch) const {
    for (const Dim &length : {queryRows, keyRows}) {
      std::optional<int64_t> largest = getLargestSize(length, bounds);
      bool listed = llvm::any_of(launch.sizeLimits, [&](const auto &limit) {
        return limit.first == length;
      });
      if (!length.isStatic() && !listed &&
          (!largest || *largest > kMaxAttentionLength))
        launch.sizeLimits.push_back({length, kMaxAttentionLength});
    }
  }

  /// The mask's row-major element strides aligned with [batch..., Nq, Nk]:
  /// 0 along the dims it broadcasts (those it lacks or has as 1), products
  /// of its symbolic dims after a dim where it has them.
  SmallVector<Dim> getMaskStrides() const {
    SmallVector<Dim> strides(batch.size() + 2, Dim(0));
    int64_t pad = strides.size() - maskDims.size();
    Dim stride(1);
    for (int64_t d = maskDims.size() - 1; d >= 0; --d) {
      bool broadcast = maskDims[d].isStatic() && maskDims[d].getCoefficient() == 1;
      strides[pad + d] = broadcast ? Dim(0) : stride;
      // (A buffer's element count fits in 64 bits: so do its strides.)
      stride = elementCount({stride, maskDims[d]}).value_or(Dim(0));
    }
    return strides;
  }

  /// The mask input `buffer` read as one dimension (a scalar mask stays
  /// rank 0): `batchOffset` is the element offset of the block's batch
  /// `batchCoords`, and (row, key) is at batchOffset + row * rowStride + key
  /// * keyStride, the strides 0 where the mask broadcasts and read at run
  /// time where its dims are.
  struct MaskAddressing {
    Value flat, batchOffset, rowStride, keyStride;
  };
  MaskAddressing addressMask(IndexBuilder &idx, Value buffer,
                             ArrayRef<Value> batchCoords) const {
    SmallVector<Dim> strides = getMaskStrides();
    MaskAddressing mask;
    mask.batchOffset = idx.constant(0);
    for (auto [d, coord] : llvm::enumerate(batchCoords))
      if (strides[d] != Dim(0))
        mask.batchOffset = idx.add(mask.batchOffset,
                                   idx.mul(coord, idx.sizeValue(strides[d])));
    mask.rowStride = idx.sizeValue(strides[batchCoords.size()]);
    mask.keyStride = idx.sizeValue(strides[batchCoords.size() + 1]);
    mask.flat = collapseToOneDim(idx.b, idx.loc, buffer);
    return mask;
  }

private:
  /// The heads H of a head split [..., H1, ..., Hk, T, D] (whose batch dims
  /// a reshape may regroup: the linear batch is the same), H1 * ... * Hk, or
  /// 0.
  static int64_t splitHeads(Value operand) {
    TransposeOp split;
    if (!getHeadSplitInput(operand, &split))
      return 0;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(split.getResult().getType()).getShape();
    int64_t rows = shape.size() - 2, heads = getHeadSplitDims(split);
    return ShapedType::getNumElements(shape.slice(rows - heads, heads));
  }
};

} // namespace mlir::fk

#endif // FKC_CODEGEN_ATTENTIONSHAPE_H
