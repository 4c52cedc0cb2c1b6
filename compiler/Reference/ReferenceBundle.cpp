//===- ReferenceBundle.cpp - reference results as a tensor bundle ---------===//

#include "Reference/ReferenceBundle.h"
#include "Reference/Interpreter.h"
#include "fk/IR/FkScalarSemantics.h"

#include "fkrt/bundle.hpp"
#include "llvm/ADT/APFloat.h"
#include <cstring>

using namespace mlir;
using namespace mlir::fk;

fkrt_dtype mlir::fk::getBundleDtype(Type elementType) {
  if (elementType.isF32())
    return FKRT_F32;
  if (elementType.isF16())
    return FKRT_F16;
  if (elementType.isBF16())
    return FKRT_BF16;
  if (elementType.isSignlessInteger(32))
    return FKRT_I32;
  if (elementType.isSignlessInteger(64))
    return FKRT_I64;
  return FKRT_I1;
}

/// The little-endian storage bytes of `value` (exactly representable in the
/// dtype) appended to `out`.
static void appendElement(std::vector<uint8_t> &out, fkrt_dtype dtype,
                          double value) {
  auto append = [&](uint64_t bits, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i)
      out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  };
  auto narrow = [&](const llvm::fltSemantics &semantics) {
    llvm::APFloat f(value);
    bool losesInfo;
    f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    append(f.bitcastToAPInt().getZExtValue(), 2);
  };
  switch (dtype) {
  case FKRT_F32: {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    append(bits, 4);
    return;
  }
  case FKRT_F16:
    return narrow(llvm::APFloat::IEEEhalf());
  case FKRT_BF16:
    return narrow(llvm::APFloat::BFloat());
  case FKRT_I32:
    append(static_cast<uint32_t>(static_cast<int32_t>(value)), 4);
    return;
  case FKRT_I64:
    append(static_cast<uint64_t>(wrapToInt64(value)), 8);
    return;
  case FKRT_I1:
    append(value != 0 ? 1 : 0, 1);
    return;
  }
}

fkrt::bundle::Tensor mlir::fk::toBundleTensor(const RefTensor &tensor,
                                              std::string name) {
  fkrt::bundle::Tensor result;
  result.name = std::move(name);
  result.dtype = getBundleDtype(tensor.type.getElementType());
  result.shape.assign(tensor.type.getShape().begin(),
                      tensor.type.getShape().end());
  result.data.reserve(tensor.values.size() * fkrt::bundle::dtypeSize(result.dtype));
  for (double value : tensor.values)
    appendElement(result.data, result.dtype, value);
  return result;
}

/// The value of the little-endian element of `dtype` at `p`: exact for
/// every dtype but i64 beyond 2^53, which rounds as the interpreter's i64
/// values do.
static double readElement(fkrt_dtype dtype, const uint8_t *p) {
  auto load = [&](size_t bytes) {
    uint64_t bits = 0;
    for (size_t i = 0; i < bytes; ++i)
      bits |= static_cast<uint64_t>(p[i]) << (8 * i);
    return bits;
  };
  auto widen = [&](const llvm::fltSemantics &semantics) {
    llvm::APFloat f(semantics, llvm::APInt(16, load(2)));
    return f.convertToDouble();
  };
  switch (dtype) {
  case FKRT_F32: {
    uint32_t bits = static_cast<uint32_t>(load(4));
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
  case FKRT_F16:
    return widen(llvm::APFloat::IEEEhalf());
  case FKRT_BF16:
    return widen(llvm::APFloat::BFloat());
  case FKRT_I32:
    return static_cast<int32_t>(static_cast<uint32_t>(load(4)));
  case FKRT_I64:
    return static_cast<double>(static_cast<int64_t>(load(8)));
  case FKRT_I1:
    return p[0] != 0 ? 1 : 0;
  }
  return 0;
}

RefTensor mlir::fk::fromBundleTensor(const fkrt::bundle::Tensor &tensor,
                                     RankedTensorType type) {
  RefTensor result{type, std::vector<double>(tensor.elementCount())};
  size_t size = fkrt::bundle::dtypeSize(tensor.dtype);
  for (size_t i = 0; i < result.values.size(); ++i)
    result.values[i] = readElement(tensor.dtype, tensor.data.data() + i * size);
  return result;
}

/// The `fk.name` of a graph argument or result, or a positional name.
static std::string tensorName(DictionaryAttr attrs, const char *prefix,
                              unsigned index) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("fk.name"))
      return name.str();
  return prefix + std::to_string(index);
}

std::string mlir::fk::getArgumentName(func::FuncOp fn, unsigned index) {
  return tensorName(fn.getArgAttrDict(index), "arg", index);
}

std::string mlir::fk::getResultName(func::FuncOp fn, unsigned index) {
  return tensorName(fn.getResultAttrDict(index), "result", index);
}

LogicalResult
mlir::fk::writeReferenceBundle(ModuleOp module, ArrayRef<func::FuncOp> graphs,
                               ArrayRef<SmallVector<RefTensor>> inputs,
                               uint64_t seed, llvm::StringRef path) {
  fkrt::bundle::Bundle bundle;
  ReferenceInterpreter interpreter;
  for (auto [graphOp, graphInputs] : llvm::zip(graphs, inputs)) {
    func::FuncOp fn = graphOp;
    FailureOr<SmallVector<RefTensor>> outputs =
        interpreter.run(fn, graphInputs);
    if (failed(outputs))
      return failure();
    fkrt::bundle::Graph graph;
    graph.name = fn.getSymName().str();
    graph.seed = seed;
    for (auto [i, input] : llvm::enumerate(graphInputs))
      graph.inputs.push_back(toBundleTensor(input, getArgumentName(fn, i)));
    for (auto [i, output] : llvm::enumerate(*outputs))
      graph.outputs.push_back(toBundleTensor(output, getResultName(fn, i)));
    bundle.graphs.push_back(std::move(graph));
  }
  std::string error;
  if (!fkrt::bundle::write(path.str(), bundle, error))
    return module.emitError() << "cannot write the reference bundle: "
                              << error;
  return success();
}
