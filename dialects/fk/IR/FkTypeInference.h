//===- FkTypeInference.h - shape and dtype rules of fk ops ------*- C++ -*-===//
//
// The rules that decide each op's result type. The front end calls them to
// infer types while it builds ops, and the op verifiers call them to check;
// one implementation serves both, so the DSL and the IR cannot disagree.
// Each rule names the constraint of docs/language.md it checks, e.g.
// (matmul C3).
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKTYPEINFERENCE_H
#define FK_IR_FKTYPEINFERENCE_H

#include "fk/IR/FkSymbolicShape.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace mlir::fk {

/// Starts the diagnostic a failed rule reports. The verifier passes
/// `op->emitOpError()`; the front end an error at the DSL location that
/// already names the operation.
using EmitErrorFn = llvm::function_ref<InFlightDiagnostic()>;

/// The element types an operand may have.
enum class DtypeClass { Float, Numeric, Any };

/// True for the element types of the language: f32, f16, bf16, i32, i64, i1.
bool isFkElementType(Type type);

/// Checks that `elementType` belongs to `allowed`.
LogicalResult checkDtype(EmitErrorFn emitError, Type elementType,
                         DtypeClass allowed);

/// The number of elements of `shape`, or nullopt when it overflows int64.
std::optional<int64_t> elementCount(ArrayRef<int64_t> shape);

/// The most dimensions a tensor has; the runtime's manifest reader takes
/// no more (runtime/lib/Manifest.h, kMaxRank).
inline constexpr int64_t kMaxTensorRank = 16;

/// A tensor type of `dims`, or failure if a dimension is negative, the
/// rank is over kMaxTensorRank, or the element count or the size in bytes
/// overflows int64: every type fkc accepts is one the runtime loads. Of a
/// symbolic shape only the static part is checked here; binding checks
/// the sizes the symbols take.
FailureOr<RankedTensorType> makeTensorType(EmitErrorFn emitError,
                                           ArrayRef<Dim> dims,
                                           Type elementType);
FailureOr<RankedTensorType> makeTensorType(EmitErrorFn emitError,
                                           ArrayRef<int64_t> shape,
                                           Type elementType);

/// The numpy broadcast of two shapes; a symbolic dimension matches only
/// itself or a static 1 (symbolic S1).
FailureOr<SmallVector<Dim>> inferBroadcastShape(EmitErrorFn emitError,
                                                ArrayRef<Dim> lhs,
                                                ArrayRef<Dim> rhs);
FailureOr<SmallVector<int64_t>> inferBroadcastShape(EmitErrorFn emitError,
                                                    ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs);

/// Checks that `from` broadcasts to exactly `to` (broadcast C1, C2).
LogicalResult verifyBroadcastTo(EmitErrorFn emitError, ArrayRef<Dim> from,
                                ArrayRef<Dim> to);

/// Checks `0 <= axis < rank` (softmax C1, layernorm C1, iota C1, reduce C2).
LogicalResult verifyAxis(EmitErrorFn emitError, StringRef what, int64_t axis,
                         int64_t rank);

FailureOr<RankedTensorType> inferMatmulType(EmitErrorFn emitError,
                                            RankedTensorType lhs,
                                            RankedTensorType rhs);
FailureOr<RankedTensorType> inferReduceType(EmitErrorFn emitError,
                                            RankedTensorType operand,
                                            ArrayRef<int64_t> axes);
FailureOr<RankedTensorType> inferTransposeType(EmitErrorFn emitError,
                                               RankedTensorType operand,
                                               ArrayRef<int64_t> perm);
LogicalResult verifyReshape(EmitErrorFn emitError, RankedTensorType from,
                            RankedTensorType to);
/// Checks a normalization's parameter vector (`gamma`, `beta`) against the
/// normalized axis of `operand`.
LogicalResult verifyNormParameter(EmitErrorFn emitError, StringRef name,
                                  RankedTensorType operand, int64_t axis,
                                  RankedTensorType parameter);
LogicalResult verifyEpsilon(EmitErrorFn emitError, double eps);
/// The type of `gather(table, indices, axis)` (gather C2, C3; C1 is ODS's
/// and the front end's).
FailureOr<RankedTensorType> inferGatherType(EmitErrorFn emitError,
                                            RankedTensorType table,
                                            RankedTensorType indices,
                                            int64_t axis);
/// The i32 type of `argmax`/`argmin` of `operand` over `axis` (argmax C2,
/// C3).
FailureOr<RankedTensorType> inferArgReduceType(EmitErrorFn emitError,
                                               RankedTensorType operand,
                                               int64_t axis);
/// Checks a slice's start and step against its operand and result (slice
/// C1-C3): a negative start counts from the dimension's end; a symbolic
/// dimension's window must fit its smallest size under `lowerBounds` (the
/// graph's fk.dim_lower_bounds, or null).
LogicalResult verifySlice(EmitErrorFn emitError, RankedTensorType operand,
                          ArrayRef<int64_t> start, ArrayRef<int64_t> step,
                          RankedTensorType result,
                          DictionaryAttr lowerBounds);
/// The type of `operands` joined along `axis` (concat C1-C4).
FailureOr<RankedTensorType>
inferConcatType(EmitErrorFn emitError, ArrayRef<RankedTensorType> operands,
                int64_t axis);
/// The type of `operand` padded by `low` and `high` (pad C1, C2).
FailureOr<RankedTensorType> inferPadType(EmitErrorFn emitError,
                                         RankedTensorType operand,
                                         ArrayRef<int64_t> low,
                                         ArrayRef<int64_t> high);
/// Checks that the padding value is a value of `dtype` (pad C4).
LogicalResult verifyPadValue(EmitErrorFn emitError, double value, Type dtype);
/// Checks the start of a window of `window`'s shape in `full` (a
/// dynamic_slice's result in its operand, an update_slice's update in its
/// destination): one entry per dimension, static entries in
/// [0, full - window], as many dynamic entries (ShapedType::kDynamic) as
/// start operands `dynamicCount`, and a window of the same dtype and rank
/// that fits (dynamic_slice C1-C4, update_slice C1-C4): a symbolic
/// dimension of the window is the whole of the tensor's, or within one of
/// static size for every size `bounds` (the graph's fk.dim_bounds) allow.
LogicalResult verifyWindow(EmitErrorFn emitError, StringRef windowName,
                           RankedTensorType full, RankedTensorType window,
                           ArrayRef<int64_t> staticStart,
                           size_t dynamicCount, DictionaryAttr bounds);
FailureOr<RankedTensorType>
inferAttentionType(EmitErrorFn emitError, RankedTensorType query,
                   RankedTensorType key, RankedTensorType value,
                   std::optional<RankedTensorType> mask, double scale);

} // namespace mlir::fk

#endif // FK_IR_FKTYPEINFERENCE_H
