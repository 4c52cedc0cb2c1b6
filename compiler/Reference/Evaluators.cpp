//===- Evaluators.cpp - what each fk op computes, on the CPU --------------===//
//
// The reference evaluators of the fk ops. Elementwise ops are evaluated
// through their ScalarElementwiseOpInterface (evaluateElementwise), as
// constant folding does, so that folded constants and interpreted graphs
// agree, and need no registration;
// reductions and compound ops accumulate in double and round their result to
// its element type once. i32 and i64 sums and products wrap modulo 2^32 and
// 2^64, as their adds and multiplies do (i64 values beyond 2^53 are rounded
// doubles here, see FkScalarSemantics.h).
//
// The ops reach the evaluators verified, so operand counts, shapes and
// attributes already satisfy the constraints of docs/language.md.
//
//===----------------------------------------------------------------------===//

#include "Reference/Evaluators.h"
#include "Reference/Interpreter.h"
#include "fk/IR/FkGatherSemantics.h"
#include "fk/IR/FkNumerics.h"
#include "fk/IR/FkOps.h"
#include "fk/IR/FkScalarSemantics.h"

#include "llvm/ADT/APFloat.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::fk;

using Results = FailureOr<SmallVector<RefTensor>>;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Indexing helpers
//===----------------------------------------------------------------------===//

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The strides, one per dimension of `to`, that read a row-major tensor of
/// shape `from` broadcast numpy-style (right-aligned) to `to`: 0 where `from`
/// has no dimension or a dimension of 1.
static SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> from,
                                             ArrayRef<int64_t> to) {
  SmallVector<int64_t> fromStrides = rowMajorStrides(from);
  SmallVector<int64_t> strides(to.size(), 0);
  size_t offset = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1)
      strides[offset + d] = fromStrides[d];
  return strides;
}

/// The offset under `strides` of the element at row-major position `linear`
/// of a tensor of shape `shape`.
static int64_t stridedOffset(int64_t linear, ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    offset += (linear % shape[d]) * strides[d];
    linear /= shape[d];
  }
  return offset;
}

/// A zero-filled value for result `index` of `op`.
static RefTensor makeResult(Operation *op, unsigned index = 0) {
  auto type = cast<RankedTensorType>(op->getResult(index).getType());
  return {type, std::vector<double>(type.getNumElements())};
}

static Results single(RefTensor tensor) {
  SmallVector<RefTensor> results;
  results.push_back(std::move(tensor));
  return results;
}

/// The result of `op`: element `i` is element `stridedOffset(i, ...)` of
/// `operand`, for the strides of `operand` laid over the result's shape.
static Results gather(Operation *op, const RefTensor &operand,
                      ArrayRef<int64_t> strides) {
  RefTensor result = makeResult(op);
  ArrayRef<int64_t> shape = result.type.getShape();
  for (size_t i = 0; i < result.values.size(); ++i)
    result.values[i] = operand.values[stridedOffset(i, shape, strides)];
  return single(std::move(result));
}

/// Calls `fn(base, stride)` for each lane of `shape` along `axis`: lane
/// element `a` is at `base + a * stride` in row-major order.
static void forEachLane(ArrayRef<int64_t> shape, int64_t axis,
                        llvm::function_ref<void(int64_t, int64_t)> fn) {
  int64_t outer = product(shape.take_front(axis));
  int64_t inner = product(shape.drop_front(axis + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      fn(o * shape[axis] * inner + i, inner);
}

/// max and min that propagate NaN, as fk.max, fk.min and their reductions do.
static double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
}
static double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
}

/// The bits of an i32 or i64 value held as a double, for wrapping
/// arithmetic modulo 2^64; fromWrappedBits wraps the result to its type.
static uint64_t toWrapping(double value) {
  return static_cast<uint64_t>(wrapToInt64(value));
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

static Results evaluateConstant(ConstantOp op, ArrayRef<RefTensor>) {
  RefTensor result = makeResult(op);
  ElementsAttr value = op.getValue();
  // Dense attributes are read as APFloat/APInt, without an attribute per
  // element; other kinds of elements attributes through their attributes.
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    size_t i = 0;
    if (isa<FloatType>(dense.getElementType())) {
      for (llvm::APFloat element : dense.getValues<llvm::APFloat>()) {
        bool losesInfo;
        element.convert(llvm::APFloat::IEEEdouble(),
                        llvm::APFloat::rmNearestTiesToEven, &losesInfo);
        result.values[i++] = element.convertToDouble();
      }
    } else {
      bool isBool = dense.getElementType().isSignlessInteger(1);
      for (const llvm::APInt &element : dense.getValues<llvm::APInt>())
        result.values[i++] = isBool
                                 ? static_cast<double>(element.getZExtValue())
                                 : static_cast<double>(element.getSExtValue());
    }
    return single(std::move(result));
  }
  auto elements = value.tryGetValues<Attribute>();
  if (!elements)
    return op.emitError(
        "reference interpreter cannot read the elements of this constant");
  size_t i = 0;
  for (Attribute element : *elements)
    result.values[i++] = attributeToDouble(element);
  return single(std::move(result));
}

static Results evaluateIota(IotaOp op, ArrayRef<RefTensor>) {
  RefTensor result = makeResult(op);
  ArrayRef<int64_t> shape = result.type.getShape();
  int64_t dim = op.getDim();
  int64_t stride = rowMajorStrides(shape)[dim];
  for (size_t i = 0; i < result.values.size(); ++i)
    result.values[i] =
        roundToElementType(static_cast<double>((i / stride) % shape[dim]),
                           result.type.getElementType());
  return single(std::move(result));
}

Results mlir::fk::evaluateElementwiseOp(Operation *op,
                                       ArrayRef<RefTensor> operands) {
  RefTensor result = makeResult(op);
  SmallVector<double, 3> element(operands.size());
  for (size_t i = 0; i < result.values.size(); ++i) {
    for (auto [j, operand] : llvm::enumerate(operands))
      element[j] = operand.values[i];
    std::optional<double> value = evaluateElementwise(op, element);
    if (!value)
      return op->emitError() << "reference interpreter cannot evaluate '"
                             << op->getName() << "'";
    result.values[i] = *value;
  }
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class Reduction { Sum, Max, Min, Mean };

static Results reduce(Operation *op, const RefTensor &input,
                      ArrayRef<int64_t> axes, Reduction kind) {
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> shape = input.type.getShape();

  // Where each input element lands in the result: reduced axes get stride 0.
  SmallVector<int64_t> resultStrides(shape.size(), 0);
  int64_t stride = 1, count = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (llvm::is_contained(axes, d)) {
      count *= shape[d];
      continue;
    }
    resultStrides[d] = stride;
    stride *= shape[d];
  }
  auto target = [&](size_t i) {
    return stridedOffset(i, shape, resultStrides);
  };

  if (isIntegerNumber(elementType) && kind == Reduction::Sum) {
    std::vector<uint64_t> sums(result.values.size(), 0);
    for (size_t i = 0; i < input.values.size(); ++i)
      sums[target(i)] += toWrapping(input.values[i]);
    for (size_t j = 0; j < sums.size(); ++j)
      result.values[j] = fromWrappedBits(sums[j], elementType);
    return single(std::move(result));
  }

  // The identity of max/min on integers is a finite integer, so that an
  // empty reduction still rounds to one.
  double identity = kind == Reduction::Max   ? lowestValue(elementType)
                    : kind == Reduction::Min ? highestValue(elementType)
                                             : 0.0;
  std::vector<double> accumulators(result.values.size(), identity);
  for (size_t i = 0; i < input.values.size(); ++i) {
    double &acc = accumulators[target(i)];
    double x = input.values[i];
    switch (kind) {
    case Reduction::Sum:
    case Reduction::Mean:
      acc += x;
      break;
    case Reduction::Max:
      acc = nanMax(acc, x);
      break;
    case Reduction::Min:
      acc = nanMin(acc, x);
      break;
    }
  }
  for (size_t j = 0; j < accumulators.size(); ++j) {
    double value = accumulators[j];
    if (kind == Reduction::Mean)
      value /= static_cast<double>(count);
    result.values[j] = roundToElementType(value, elementType);
  }
  return single(std::move(result));
}

template <typename OpTy, Reduction kind>
static Results evaluateReduction(OpTy op, ArrayRef<RefTensor> operands) {
  return reduce(op, operands[0], op.getAxes(), kind);
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

static Results evaluateReshape(ReshapeOp op, ArrayRef<RefTensor> operands) {
  return single({cast<RankedTensorType>(op.getType()), operands[0].values});
}

static Results evaluateTranspose(TransposeOp op, ArrayRef<RefTensor> operands) {
  SmallVector<int64_t> operandStrides =
      rowMajorStrides(operands[0].type.getShape());
  // Result dimension i walks operand dimension perm[i].
  SmallVector<int64_t> strides;
  for (int64_t p : op.getPerm())
    strides.push_back(operandStrides[p]);
  return gather(op, operands[0], strides);
}

static Results evaluateBroadcast(BroadcastOp op, ArrayRef<RefTensor> operands) {
  return gather(
      op, operands[0],
      broadcastStrides(operands[0].type.getShape(),
                       cast<RankedTensorType>(op.getType()).getShape()));
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

static Results evaluateGather(GatherOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &table = operands[0], &indices = operands[1];
  RefTensor result = makeResult(op);
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> tableShape = table.type.getShape();
  // result[o, i, n] = table[o, index(i), n], each flattened row-major.
  int64_t outer = product(tableShape.take_front(axis));
  int64_t size = tableShape[axis];
  int64_t inner = product(tableShape.drop_front(axis + 1));
  int64_t count = static_cast<int64_t>(indices.values.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < count; ++i) {
      int64_t k = normalizeGatherIndex(indices.values[i], size);
      for (int64_t n = 0; n < inner; ++n)
        result.values[(o * count + i) * inner + n] =
            table.values[(o * size + k) * inner + n];
    }
  return single(std::move(result));
}

/// The first index of the maximum (`isMax`) or minimum along the axis; NaN
/// counts as the extreme, so the first NaN's index where there is one.
template <typename OpTy, bool isMax>
static Results evaluateArgReduce(OpTy op, ArrayRef<RefTensor> operands) {
  const RefTensor &input = operands[0];
  RefTensor result = makeResult(op);
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t axis = op.getAxis();
  size_t lane = 0;
  forEachLane(shape, axis, [&](int64_t base, int64_t stride) {
    int64_t best = 0;
    double bestValue = input.values[base];
    for (int64_t a = 1; a < shape[axis] && !std::isnan(bestValue); ++a) {
      double x = input.values[base + a * stride];
      if (std::isnan(x) || (isMax ? x > bestValue : x < bestValue))
        best = a, bestValue = x;
    }
    result.values[lane++] = static_cast<double>(best);
  });
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

/// Calls `fn(coords, linear)` for every element of `shape`, in row-major
/// order.
static void forEachElement(ArrayRef<int64_t> shape,
                           llvm::function_ref<void(ArrayRef<int64_t>, int64_t)> fn) {
  int64_t count = product(shape);
  SmallVector<int64_t> coords(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    fn(coords, linear);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++coords[d] < shape[d])
        break;
      coords[d] = 0;
    }
  }
}

/// The row-major position of `coords` in `shape`.
static int64_t linearIndex(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [coord, size] : llvm::zip(coords, shape))
    linear = linear * size + coord;
  return linear;
}

/// The start of a window of shape `window` in a tensor of shape `full`:
/// static entries as given, dynamic ones (ShapedType::kDynamic) from the
/// rank-0 tensors `dynamic` in order, each clamped into [0, full - window]
/// (docs/language.md, dynamic_slice).
static SmallVector<int64_t> windowStart(ArrayRef<int64_t> staticStart,
                                        ArrayRef<RefTensor> dynamic,
                                        ArrayRef<int64_t> full,
                                        ArrayRef<int64_t> window) {
  SmallVector<int64_t> start;
  size_t next = 0;
  for (auto [d, entry] : llvm::enumerate(staticStart)) {
    double value = entry == ShapedType::kDynamic ? dynamic[next++].values[0]
                                                 : static_cast<double>(entry);
    double limit = static_cast<double>(full[d] - window[d]);
    start.push_back(static_cast<int64_t>(std::clamp(value, 0.0, limit)));
  }
  return start;
}

static Results evaluateSlice(SliceOp op, ArrayRef<RefTensor> operands) {
  RefTensor result = makeResult(op);
  ArrayRef<int64_t> from = operands[0].type.getShape();
  SmallVector<int64_t> source(from.size());
  forEachElement(result.type.getShape(), [&](ArrayRef<int64_t> coords,
                                             int64_t linear) {
    // A negative start counts from the end of its dimension.
    for (size_t d = 0; d < coords.size(); ++d)
      source[d] = op.getStart()[d] + (op.getStart()[d] < 0 ? from[d] : 0) +
                  op.getStep()[d] * coords[d];
    result.values[linear] = operands[0].values[linearIndex(source, from)];
  });
  return single(std::move(result));
}

static Results evaluateConcat(ConcatOp op, ArrayRef<RefTensor> operands) {
  RefTensor result = makeResult(op);
  int64_t axis = op.getAxis();
  int64_t offset = 0;
  SmallVector<int64_t> target;
  for (const RefTensor &operand : operands) {
    ArrayRef<int64_t> shape = operand.type.getShape();
    forEachElement(shape, [&](ArrayRef<int64_t> coords, int64_t linear) {
      target.assign(coords.begin(), coords.end());
      target[axis] += offset;
      result.values[linearIndex(target, result.type.getShape())] =
          operand.values[linear];
    });
    offset += shape[axis];
  }
  return single(std::move(result));
}

static Results evaluatePad(PadOp op, ArrayRef<RefTensor> operands) {
  RefTensor result = makeResult(op);
  std::fill(result.values.begin(), result.values.end(),
            roundToElementType(op.getValue().convertToDouble(),
                               result.type.getElementType()));
  SmallVector<int64_t> target;
  forEachElement(operands[0].type.getShape(), [&](ArrayRef<int64_t> coords,
                                                  int64_t linear) {
    target.assign(coords.begin(), coords.end());
    for (size_t d = 0; d < target.size(); ++d)
      target[d] += op.getLow()[d];
    result.values[linearIndex(target, result.type.getShape())] =
        operands[0].values[linear];
  });
  return single(std::move(result));
}

static Results evaluateDynamicSlice(DynamicSliceOp op,
                                    ArrayRef<RefTensor> operands) {
  RefTensor result = makeResult(op);
  ArrayRef<int64_t> from = operands[0].type.getShape();
  SmallVector<int64_t> start =
      windowStart(op.getStaticStart(), operands.drop_front(), from,
                  result.type.getShape());
  SmallVector<int64_t> source(from.size());
  forEachElement(result.type.getShape(), [&](ArrayRef<int64_t> coords,
                                             int64_t linear) {
    for (size_t d = 0; d < coords.size(); ++d)
      source[d] = start[d] + coords[d];
    result.values[linear] = operands[0].values[linearIndex(source, from)];
  });
  return single(std::move(result));
}

static Results evaluateUpdateSlice(UpdateSliceOp op,
                                   ArrayRef<RefTensor> operands) {
  RefTensor result = operands[0];
  ArrayRef<int64_t> full = result.type.getShape();
  ArrayRef<int64_t> window = operands[1].type.getShape();
  SmallVector<int64_t> start = windowStart(
      op.getStaticStart(), operands.drop_front(2), full, window);
  SmallVector<int64_t> target(full.size());
  forEachElement(window, [&](ArrayRef<int64_t> coords, int64_t linear) {
    for (size_t d = 0; d < coords.size(); ++d)
      target[d] = start[d] + coords[d];
    result.values[linearIndex(target, full)] = operands[1].values[linear];
  });
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// Compound ops
//===----------------------------------------------------------------------===//

/// `values` (of f32s) reduced to TF32 as the tensor-core kernels do where
/// the module allows TF32 (fk/IR/FkNumerics.h).
static std::vector<double> reducedToTf32(const std::vector<double> &values,
                                         Tf32Rounding rounding) {
  std::vector<double> reduced;
  reduced.reserve(values.size());
  for (double v : values)
    reduced.push_back(reduceToTf32(static_cast<float>(v), rounding));
  return reduced;
}

static Results evaluateMatmul(MatmulOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &lhs = operands[0], &rhs = operands[1];
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> lhsShape = lhs.type.getShape(),
                    rhsShape = rhs.type.getShape();
  ArrayRef<int64_t> batch = result.type.getShape().drop_back(2);
  int64_t m = lhsShape[lhsShape.size() - 2], k = lhsShape.back(),
          n = rhsShape.back();
  SmallVector<int64_t> lhsStrides =
      broadcastStrides(lhsShape.drop_back(2), batch);
  SmallVector<int64_t> rhsStrides =
      broadcastStrides(rhsShape.drop_back(2), batch);
  bool isInteger = isIntegerNumber(elementType);
  // The tensor-core kernels reduce f32 operands to TF32 where the module
  // allows it.
  std::vector<double> lhsTf32, rhsTf32;
  if (Tf32Rounding rounding = getTf32Rounding(op);
      rounding != Tf32Rounding::None) {
    lhsTf32 = reducedToTf32(lhs.values, rounding);
    rhsTf32 = reducedToTf32(rhs.values, rounding);
  }
  const std::vector<double> &lhsValues = lhsTf32.empty() ? lhs.values : lhsTf32;
  const std::vector<double> &rhsValues = rhsTf32.empty() ? rhs.values : rhsTf32;

  for (int64_t b = 0, e = product(batch); b < e; ++b) {
    const double *a =
        lhsValues.data() + stridedOffset(b, batch, lhsStrides) * m * k;
    const double *c =
        rhsValues.data() + stridedOffset(b, batch, rhsStrides) * k * n;
    double *out = result.values.data() + b * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (isInteger) {
          uint64_t acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += toWrapping(a[i * k + p]) * toWrapping(c[p * n + j]);
          out[i * n + j] = fromWrappedBits(acc, elementType);
          continue;
        }
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a[i * k + p] * c[p * n + j];
        out[i * n + j] = roundToElementType(acc, elementType);
      }
    }
  }
  return single(std::move(result));
}

static Results evaluateSoftmax(SoftmaxOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &input = operands[0];
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t axis = op.getAxis(), length = shape[axis];
  std::vector<double> exps(length);
  forEachLane(shape, axis, [&](int64_t base, int64_t stride) {
    double maxValue = -kInfinity;
    for (int64_t a = 0; a < length; ++a)
      maxValue = nanMax(maxValue, input.values[base + a * stride]);
    double sum = 0;
    for (int64_t a = 0; a < length; ++a) {
      exps[a] = std::exp(input.values[base + a * stride] - maxValue);
      sum += exps[a];
    }
    for (int64_t a = 0; a < length; ++a)
      result.values[base + a * stride] =
          roundToElementType(exps[a] / sum, elementType);
  });
  return single(std::move(result));
}

static Results evaluateLayerNorm(LayerNormOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &input = operands[0];
  const std::vector<double> &gamma = operands[1].values,
                            &beta = operands[2].values;
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t axis = op.getAxis(), length = shape[axis];
  double eps = op.getEps().convertToDouble();
  forEachLane(shape, axis, [&](int64_t base, int64_t stride) {
    auto x = [&](int64_t a) { return input.values[base + a * stride]; };
    double sum = 0;
    for (int64_t a = 0; a < length; ++a)
      sum += x(a);
    double mean = sum / length;
    double squares = 0;
    for (int64_t a = 0; a < length; ++a)
      squares += (x(a) - mean) * (x(a) - mean);
    // The biased variance, as torch.nn.LayerNorm uses.
    double scale = 1.0 / std::sqrt(squares / length + eps);
    for (int64_t a = 0; a < length; ++a)
      result.values[base + a * stride] = roundToElementType(
          (x(a) - mean) * scale * gamma[a] + beta[a], elementType);
  });
  return single(std::move(result));
}

static Results evaluateRmsNorm(RmsNormOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &input = operands[0];
  const std::vector<double> &gamma = operands[1].values;
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t axis = shape.size() - 1, length = shape[axis];
  double eps = op.getEps().convertToDouble();
  forEachLane(shape, axis, [&](int64_t base, int64_t stride) {
    auto x = [&](int64_t a) { return input.values[base + a * stride]; };
    double squares = 0;
    for (int64_t a = 0; a < length; ++a)
      squares += x(a) * x(a);
    double scale = 1.0 / std::sqrt(squares / length + eps);
    for (int64_t a = 0; a < length; ++a)
      result.values[base + a * stride] =
          roundToElementType(x(a) * scale * gamma[a], elementType);
  });
  return single(std::move(result));
}

/// The flash kernel's tile of `op`, when it sits in a fusion tiled for it
/// (either form: wgmma or mma.sync compute the same online softmax).
static std::optional<TilingAttr> getFlashTiling(AttentionOp op) {
  auto fusion = op->getParentOfType<FusionOp>();
  if (!fusion)
    return std::nullopt;
  if (auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
      tiling && (tiling.getStrategy() == KernelStrategy::Flash ||
                 tiling.getStrategy() == KernelStrategy::WarpMmaFlash))
    return tiling;
  return std::nullopt;
}

/// One query row of attention in the online-softmax form of the flash
/// kernel (compiler/Codegen/FlashAttention.cpp), with its arithmetic: key
/// blocks of `keyBlock`, of which the first `blocks` are visited (under a
/// causal mask, those up to the last key the row's query block sees); per
/// block the running max m and sum l, rescaled by exp2((m - m') * c) with
/// c = scale * log2(e); P rounded by `roundP` (to the operands' element
/// type, or TF32) for the P V product; one division at the end. `score(j)` is q . k_j,
/// `maskInput(j)` the additive mask's value for key j (0 without a mask),
/// `visible(j)` whether key j is unmasked, `value(j, d)` element d of v_j.
static void onlineSoftmaxRow(int64_t keys, int64_t blocks, int64_t keyBlock,
                             double scale, bool hasMaskInput,
                             function_ref<double(double)> roundP,
                             function_ref<double(int64_t)> score,
                             function_ref<double(int64_t)> maskInput,
                             function_ref<bool(int64_t)> visible,
                             function_ref<double(int64_t, int64_t)> value,
                             MutableArrayRef<double> out) {
  const double log2e = 1.0 / std::log(2.0);
  // With a positive scale and no mask input the max of the raw scores is
  // taken and the scale folds into the exponent; otherwise the scores are
  // scaled and masked first.
  bool fold = scale > 0 && !hasMaskInput;
  double factor = fold ? scale * log2e : log2e;
  double m = -kInfinity, l = 0;
  std::fill(out.begin(), out.end(), 0.0);
  std::vector<double> s(keyBlock);
  for (int64_t block = 0; block < blocks; ++block) {
    double blockMax = -kInfinity;
    for (int64_t c = 0; c < keyBlock; ++c) {
      int64_t j = block * keyBlock + c;
      s[c] = -kInfinity;
      // A hidden score is -inf whatever q . k is, as in the kernel.
      if (j < keys && visible(j))
        s[c] = fold ? score(j) : score(j) * scale + maskInput(j);
      blockMax = std::fmax(blockMax, s[c]);
    }
    double newMax = std::fmax(m, blockMax);
    // A row with every score so far hidden subtracts 0, not -inf, so that
    // its P is 0 rather than NaN.
    double usable = newMax == -kInfinity ? 0 : newMax;
    double alpha = std::exp2(m * factor - usable * factor);
    l *= alpha;
    for (double &o : out)
      o *= alpha;
    for (int64_t c = 0; c < keyBlock; ++c) {
      int64_t j = block * keyBlock + c;
      double p = std::exp2(s[c] * factor - usable * factor);
      l += p;
      // Keys past the end are zeros in the kernel's V tile; a hidden key's
      // 0 still multiplies its V (0 * inf is NaN, as in the unfused graph).
      if (j >= keys)
        continue;
      double rounded = roundP(p);
      for (size_t d = 0; d < out.size(); ++d)
        out[d] += rounded * value(j, d);
    }
    m = newMax;
  }
  // A row that sees no key: 0 / 0, NaN, as the unfused softmax gives.
  for (double &o : out)
    o /= l;
}

/// softmax(scale * q @ k^T + mask) @ v for each batch and query. A masked
/// score is -inf, so a query whose keys are all hidden gets NaN, as the
/// unfused graph does (exp(-inf - -inf)); with no keys at all, 0. An attention tiled for the flash kernel is
/// computed in the kernel's online-softmax form instead (onlineSoftmaxRow),
/// so that `--verify-stages` compares that form with the unfused graph.
static Results evaluateAttention(AttentionOp op, ArrayRef<RefTensor> operands) {
  const RefTensor &q = operands[0], &k = operands[1], &v = operands[2];
  const RefTensor *mask = operands.size() > 3 ? &operands[3] : nullptr;
  RefTensor result = makeResult(op);
  Type elementType = result.type.getElementType();
  ArrayRef<int64_t> qShape = q.type.getShape(), kShape = k.type.getShape(),
                    vShape = v.type.getShape();
  ArrayRef<int64_t> batch = result.type.getShape().drop_back(2);
  int64_t nq = qShape[qShape.size() - 2], nk = kShape[kShape.size() - 2],
          d = qShape.back(), dv = vShape.back();
  double scale = op.getScale().convertToDouble();
  bool causal = op.getCausal();

  SmallVector<int64_t> qStrides = broadcastStrides(qShape.drop_back(2), batch);
  SmallVector<int64_t> kStrides = broadcastStrides(kShape.drop_back(2), batch);
  SmallVector<int64_t> vStrides = broadcastStrides(vShape.drop_back(2), batch);
  // The mask broadcasts to the scores, [batch..., nq, nk].
  SmallVector<int64_t> maskStrides;
  if (mask) {
    SmallVector<int64_t> scoresShape(batch);
    scoresShape.append({nq, nk});
    maskStrides = broadcastStrides(mask->type.getShape(), scoresShape);
  }

  // f32 on the flash kernel's mma.sync form where the module allows TF32:
  // Q, K, V and P rounded to TF32 (fk/IR/FkNumerics.h).
  Tf32Rounding rounding = getTf32Rounding(op);
  bool tf32 = rounding != Tf32Rounding::None;
  std::vector<double> qTf32, kTf32, vTf32;
  if (tf32) {
    qTf32 = reducedToTf32(q.values, rounding);
    kTf32 = reducedToTf32(k.values, rounding);
    vTf32 = reducedToTf32(v.values, rounding);
  }
  const std::vector<double> &qValues = tf32 ? qTf32 : q.values;
  const std::vector<double> &kValues = tf32 ? kTf32 : k.values;
  const std::vector<double> &vValues = tf32 ? vTf32 : v.values;
  Type operandType = q.type.getElementType();
  auto roundP = [&](double p) {
    return tf32 ? double(reduceToTf32(float(p), rounding))
                : roundToElementType(p, operandType);
  };

  // Without keys the softmax is empty and its product with v sums nothing:
  // zeros, as the unfused graph gives (a decode step over keys given at run
  // time may have none).
  if (nk == 0) {
    std::fill(result.values.begin(), result.values.end(), 0.0);
    return single(std::move(result));
  }
  std::vector<double> weights(nk);
  for (int64_t b = 0, e = product(batch); b < e; ++b) {
    const double *qb =
        qValues.data() + stridedOffset(b, batch, qStrides) * nq * d;
    const double *kb =
        kValues.data() + stridedOffset(b, batch, kStrides) * nk * d;
    const double *vb =
        vValues.data() + stridedOffset(b, batch, vStrides) * nk * dv;
    const double *maskb = nullptr;
    if (mask)
      maskb = mask->values.data() +
              stridedOffset(b, batch, ArrayRef(maskStrides).drop_back(2));
    if (std::optional<TilingAttr> flash = getFlashTiling(op)) {
      int64_t rows = flash->getTile()[0], keyBlock = flash->getTile()[1];
      int64_t keyBlocks = (nk + keyBlock - 1) / keyBlock;
      std::vector<double> out(dv);
      for (int64_t i = 0; i < nq; ++i) {
        int64_t blocks = keyBlocks;
        if (causal) {
          int64_t seen = std::max<int64_t>(i / rows * rows + rows + nk - nq, 0);
          blocks = std::min(blocks, (seen + keyBlock - 1) / keyBlock);
        }
        onlineSoftmaxRow(
            nk, blocks, keyBlock, scale, mask != nullptr, roundP,
            [&](int64_t j) {
              double dot = 0;
              for (int64_t c = 0; c < d; ++c)
                dot += qb[i * d + c] * kb[j * d + c];
              return dot;
            },
            [&](int64_t j) {
              return mask ? maskb[i * maskStrides[batch.size()] +
                                  j * maskStrides[batch.size() + 1]]
                          : 0.0;
            },
            [&](int64_t j) { return !causal || j <= i + nk - nq; },
            [&](int64_t j, int64_t c) { return vb[j * dv + c]; }, out);
        for (int64_t c = 0; c < dv; ++c)
          result.values[(b * nq + i) * dv + c] =
              roundToElementType(out[c], elementType);
      }
      continue;
    }
    for (int64_t i = 0; i < nq; ++i) {
      double maxScore = -kInfinity;
      for (int64_t j = 0; j < nk; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += qb[i * d + c] * kb[j * d + c];
        double score = scale * dot;
        if (mask)
          score += maskb[i * maskStrides[batch.size()] +
                         j * maskStrides[batch.size() + 1]];
        // Queries are aligned with the last keys: query i sees keys up to
        // i + nk - nq.
        if (causal && j > i + nk - nq)
          score += -kInfinity;
        weights[j] = score;
        maxScore = nanMax(maxScore, score);
      }
      double sum = 0;
      for (int64_t j = 0; j < nk; ++j) {
        weights[j] = std::exp(weights[j] - maxScore);
        sum += weights[j];
      }
      for (int64_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < nk; ++j)
          acc += weights[j] * vb[j * dv + c];
        result.values[(b * nq + i) * dv + c] =
            roundToElementType(acc / sum, elementType);
      }
    }
  }
  return single(std::move(result));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers `evaluate` for the ops of class `OpTy`.
template <typename OpTy>
static void add(ReferenceInterpreter &interpreter,
                Results (*evaluate)(OpTy, ArrayRef<RefTensor>)) {
  interpreter.registerEvaluator(
      OpTy::getOperationName(),
      [evaluate](ReferenceInterpreter &, Operation *op,
                 ArrayRef<RefTensor> operands) -> Results {
        return evaluate(cast<OpTy>(op), operands);
      });
}

void mlir::fk::registerFkEvaluators(ReferenceInterpreter &interpreter) {
  add<ConstantOp>(interpreter, evaluateConstant);
  add<IotaOp>(interpreter, evaluateIota);
  add<ReduceSumOp>(interpreter, evaluateReduction<ReduceSumOp, Reduction::Sum>);
  add<ReduceMaxOp>(interpreter, evaluateReduction<ReduceMaxOp, Reduction::Max>);
  add<ReduceMinOp>(interpreter, evaluateReduction<ReduceMinOp, Reduction::Min>);
  add<ReduceMeanOp>(interpreter,
                    evaluateReduction<ReduceMeanOp, Reduction::Mean>);
  add<ReshapeOp>(interpreter, evaluateReshape);
  add<TransposeOp>(interpreter, evaluateTranspose);
  add<BroadcastOp>(interpreter, evaluateBroadcast);
  add<GatherOp>(interpreter, evaluateGather);
  add<ArgMaxOp>(interpreter, evaluateArgReduce<ArgMaxOp, true>);
  add<ArgMinOp>(interpreter, evaluateArgReduce<ArgMinOp, false>);
  add<SliceOp>(interpreter, evaluateSlice);
  add<ConcatOp>(interpreter, evaluateConcat);
  add<PadOp>(interpreter, evaluatePad);
  add<DynamicSliceOp>(interpreter, evaluateDynamicSlice);
  add<UpdateSliceOp>(interpreter, evaluateUpdateSlice);
  add<MatmulOp>(interpreter, evaluateMatmul);
  add<SoftmaxOp>(interpreter, evaluateSoftmax);
  add<LayerNormOp>(interpreter, evaluateLayerNorm);
  add<RmsNormOp>(interpreter, evaluateRmsNorm);
  add<AttentionOp>(interpreter, evaluateAttention);
  // A fusion computes what its body computes.
  interpreter.registerEvaluator(
      FusionOp::getOperationName(),
      [](ReferenceInterpreter &self, Operation *op,
         ArrayRef<RefTensor> operands) -> Results {
        return self.evaluateBlock(cast<FusionOp>(op).getBody().front(),
                                  operands);
      });
}
