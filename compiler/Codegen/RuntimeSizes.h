//===- RuntimeSizes.h - kernels over sizes given at run time ----*- C++ -*-===//
//
// A graph compiled without sizes for some of its symbols (docs/language.md
// "Symbolic dimensions") has kernels that read those sizes at run time. A
// kernel takes the size of each symbol its fusion's types name as a trailing
// i64 argument, in the order getFusionSymbols gives, and computes every
// symbolic dimension (a monomial such as `B*S`) from them once, at its
// entry. A buffer of symbolic shape is passed as a bare pointer too, so its
// memref has a static shape: its dimensions up to the last symbolic one are
// collapsed into one leading extent (large enough for every legal size),
// and the kernel linearizes those coordinates itself.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_RUNTIMESIZES_H
#define FKC_CODEGEN_RUNTIMESIZES_H

#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace mlir::fk {

/// The size a heuristic weighs for a dimension given at run time without a
/// bound (a matmul's rows, an attention's lengths): a large one, since
/// the row variants (RowVariants.h) serve the small runs.
inline constexpr int64_t kUnboundedSizeGuess = 1 << 16;

/// The name of the gpu.launch_func attribute that lists the sizes given at
/// run time its kernel computes only up to a limit: a dictionary from a
/// symbolic dimension's text (`2*S`) to its largest size, i64. The
/// manifest states them as the launch's `limits`, which the runtime checks
/// per run (docs/artifact.md, R63).
inline constexpr llvm::StringLiteral kSizeLimitsAttrName = "fk.size_limits";

/// The name of the gpu.launch_func attribute of a row variant's launches
/// (RowVariants.h): [the fusion's index in its graph, the rows its runs
/// exceed]. Two launches of one fusion's different variants never both
/// have blocks in a run.
inline constexpr llvm::StringLiteral kRunVariantAttrName = "fk.run_variant";

/// The name of the gpu.launch_func attribute of a persistent kernel's
/// launch: [the target's SM count, the blocks of a cluster]. Its kernel
/// walks its work (output tiles) with a stride of the grid's x, which is
/// min(work, SM count): any count of whole clusters computes the same
/// result. The manifest states it as the launch's `persistent`, and the
/// runtime launches as many blocks as the device has SMs (docs/artifact.md,
/// R64).
inline constexpr llvm::StringLiteral kPersistentGridAttrName =
    "fk.persistent_grid";

/// The symbols of every type of `fusion` (inputs, results and body),
/// sorted: its kernel's trailing i64 arguments, in this order.
SmallVector<std::string> getFusionSymbols(FusionOp fusion);

/// Whether a tensor of `type` has no elements for every size of its
/// symbols (a static dimension is 0). A symbolic tensor may be empty at run
/// time only; its kernel then runs no work item.
bool isStaticallyEmpty(RankedTensorType type);

/// The rank of the memref a kernel reads a tensor of symbolic `type`
/// through: its dimensions after the last symbolic one, plus one.
int64_t getCollapsedRank(RankedTensorType type);

/// The leading extent of a kernel's statically shaped view of a buffer
/// whose leading dimension has no bound, rows of `elementsPerRow` elements
/// each: one whose bytes stay far below 2^63.
int64_t getPlaceholderExtent(int64_t elementsPerRow);

/// The static memref through which a kernel reads a tensor of symbolic
/// `type` (i1 stored as `storedElement`): the dimensions up to the last
/// symbolic one collapsed into one extent, their largest element count
/// under `bounds` (a placeholder as large as 64-bit byte offsets allow when
/// a symbol is unbounded: the kernel never reads past the run's sizes).
MemRefType getKernelBufferType(RankedTensorType type, Type storedElement,
                               DictionaryAttr bounds);

/// The index value of `dim` built at `b`'s insertion point from the index
/// values of its symbols.
Value buildSize(OpBuilder &b, Location loc, const Dim &dim,
                const llvm::StringMap<Value> &symbols);

/// The buffer a kernel operand passes: the operand, or the buffer beneath
/// the collapsed, statically shaped view of a symbolic buffer, or beneath a
/// reshaped view (a fusion that only reshapes, GraphLowering).
Value getViewedBuffer(Value operand);

/// What a kernel knows of the sizes given at run time: the index value of
/// each symbolic dimension, built from the symbol arguments at the kernel's
/// entry, and which of its buffers hold tensors of symbolic shape.
class RuntimeSizes {
public:
  /// `symbols` name `arguments` (i64 kernel arguments) one to one; values
  /// are built at the start of `entry`.
  RuntimeSizes(Block *entry, Location loc, ArrayRef<std::string> symbols,
               ValueRange arguments);

  /// The index value of `dim`, built once per kernel.
  Value get(const Dim &dim);

  /// Records that `buffer` (a kernel argument) holds a tensor of `type`.
  void addBuffer(Value buffer, RankedTensorType type);
  /// The symbolic tensor type `buffer` holds, or null.
  RankedTensorType getBufferTensor(Value buffer) const {
    return bufferTensors.lookup(buffer);
  }

private:
  /// The builder, after the values built so far (all at the entry, before
  /// the kernel's body).
  OpBuilder &atEnd();

  Block *entry;
  OpBuilder b;
  Operation *last = nullptr;
  Location loc;
  llvm::StringMap<Value> values;
  DenseMap<Value, RankedTensorType> bufferTensors;
};

} // namespace mlir::fk

#endif // FKC_CODEGEN_RUNTIMESIZES_H
