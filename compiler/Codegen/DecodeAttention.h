//===- DecodeAttention.h - attention with few query rows --------*- C++ -*-===//
//
// The kernel of an `attention` fusion with few query rows (a decode step:
// one row per sequence and head, or a handful when several tokens are
// checked at once), on every target. Such an attention reads each key and
// value once and does little arithmetic per byte: it is bound by memory
// bandwidth. So rather than tiling queries for tensor cores (the flash
// kernel's 64-row blocks would compute padding), it spreads the keys over
// enough threads and blocks to keep the memory system busy (the idea of
// FlashDecoding):
//
// - block (row block, batch, split) owns `rows` query rows of one batch and
//   split `split` of the keys; its threads form key slots of `lanesPerKey`
//   lanes, each lane reading `width` adjacent elements of a key row (16
//   bytes where the head dim allows);
// - slot s of split p reads keys ((i U + u) splits + p) slots + s for
//   rounds i and u < U (`keysInFlight`): a warp reads adjacent key rows, and
//   every split has keys all along the key axis; `splits` is the grid's z,
//   the run's own where sizes are given at run time;
// - per key, the slot's lanes add their partial dot products with each
//   query row by xor shuffles; the additive mask and the causal limit apply;
//   the slot's running max m, sum l and output o (f32 registers) take the
//   key as in an online softmax. A key that the mask input or the causal
//   limit hides from every row of the block is never read, so a decode step
//   over a cache whose mask hides the unfilled positions reads only the
//   filled ones;
// - keys given at run time (a decode step over the run's cache, `[B, H, L,
//   D]`) are read as far as the run's L: the loop runs ceil(L / keys per
//   round) rounds, and the splits and their partials are those of L's
//   bound; a run without keys stores zeros;
// - query rows given at run time (a row variant's kernel for runs of at
//   most 16 of a prefill's S, RowVariants.h) launch the row blocks of the
//   run's rows, their partials sized at the limit;
// - the slots combine through shared memory: M = max m, L = sum l 2^(m-M),
//   O = sum o 2^(m-M) (in log2 units). With one split the block stores
//   O / L through the fusion's epilogue (TileEpilogue). With several, it
//   writes M, L and O to workspace buffers, and a second kernel combines
//   the splits alike and runs the epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_DECODEATTENTION_H
#define FKC_CODEGEN_DECODEATTENTION_H

#include "Codegen/KernelBuilder.h"
#include "fk/IR/FkKernelLimits.h"

namespace mlir::fk {

/// How the decode kernel's lanes cover a key row, from the attention's head
/// dims and element type.
struct DecodeAttentionLayout {
  /// Adjacent elements a lane reads at once (16 bytes or fewer, dividing
  /// both head dims so that every access is aligned).
  int64_t width;
  /// Lanes that read one key row together (a power of two, at most 32).
  int64_t lanesPerKey;
  /// Accesses of `width` elements per lane for a query/key row and for a
  /// value row.
  int64_t keyChunks, valueChunks;
  /// Keys each slot loads before it uses the first.
  int64_t keysInFlight;

  static DecodeAttentionLayout get(AttentionOp attention);
  /// Key slots of a block of `threads` threads.
  int64_t getSlots(int64_t threads) const {
    return threads / 32 * (32 / lanesPerKey);
  }
};

/// A decode tiling: `#fk.tiling<decode, tile = [rows, splits], threads>`.
struct DecodeAttentionTiling {
  int64_t rows, splits, threads;

  static DecodeAttentionTiling get(TilingAttr tiling) {
    return {tiling.getTile()[0], tiling.getTile()[1], tiling.getThreads()};
  }
};

/// Whether the decode kernel beats the flash kernel on `attention` (which
/// both compute): where a mask input may hide keys (the decode kernel does
/// not read them: a decode step over a cache reads only its filled
/// positions), or where the flash kernel would have fewer blocks than the
/// SMs (the decode kernel splits the keys). Else the flash kernel's TMA ring
/// reads K and V faster (measured on an H100: docs/attention.md, "Decode").
bool prefersDecodeAttention(AttentionOp attention, TargetAttr target);

/// fk-tile's choice for `attention` (usesDecodeAttention) on `target`: all
/// its query rows up to kDecodeRowsPerBlock per block, and as many key
/// splits as one wave of resident blocks holds, each split keeping at least
/// two rounds of keys per slot (for sizes given at run time, those of the
/// bounds' keys and the fewest batches; each run launches its own, at most
/// these).
TilingAttr chooseDecodeAttentionTiling(AttentionOp attention,
                                       TargetAttr target);

/// Why `tiling` does not suit `attention`, or "".
std::string checkDecodeAttentionTiling(AttentionOp attention,
                                       TilingAttr tiling);

/// The workspace buffers that carry each split's max and sum
/// ([batch, Nq, splits, 2]) and output ([batch, Nq, splits, Dv]), f32, from
/// the split kernel to the combining kernel (used when splits > 1); batch
/// is the bound's batch count, or without a bound a placeholder: the
/// buffers are then sized per run and viewed as these types.
std::pair<MemRefType, MemRefType>
getDecodeAttentionPartialTypes(AttentionOp attention,
                               const DecodeAttentionTiling &tiling);

/// Fills `kernel` with the split kernel. Its arguments are, when
/// tiling.splits > 1, the two partial buffers then the fusion's input
/// buffers; else the fusion's input then result buffers (the block stores
/// the results itself).
FailureOr<LaunchShape>
buildDecodeAttentionKernel(FusionOp fusion, const DecodeAttentionTiling &tiling,
                           gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels);

/// Fills `kernel` with the kernel that combines the splits and runs the
/// epilogue. Its arguments are the two partial buffers, then the fusion's
/// input and result buffers.
FailureOr<LaunchShape>
buildDecodeAttentionCombineKernel(FusionOp fusion,
                                  const DecodeAttentionTiling &tiling,
                                  gpu::GPUFuncOp kernel,
                                  gpu::GPUModuleOp kernels);

} // namespace mlir::fk

#endif // FKC_CODEGEN_DECODEATTENTION_H
