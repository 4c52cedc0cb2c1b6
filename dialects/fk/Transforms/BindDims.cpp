//===- BindDims.cpp - symbolic dimensions given their sizes ---------------===//
//
// The `graph` stage of a graph with symbolic dimensions is one graph for
// every size; the passes after it build kernels for static sizes, so this
// pass gives every symbol the size of a binding (one artifact per binding).
// Symbols live only in tensor types (FkSymbolicShape.h), so binding is a
// rewrite of types; the ops are unchanged and verified again.
//
//===----------------------------------------------------------------------===//

#include "fk/IR/FkOps.h"
#include "fk/IR/FkSymbolicShape.h"
#include "fk/IR/FkTypeInference.h"
#include "fk/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::fk {
#define GEN_PASS_DEF_FKBINDDIMS
#include "fk/Transforms/Passes.h.inc"
} // namespace mlir::fk

using namespace mlir;
using namespace mlir::fk;

/// The symbols of the types `function` holds: its signature, block
/// arguments and op results, in order of first appearance.
static SmallVector<std::string> collectFunctionSymbols(func::FuncOp function) {
  SmallVector<std::string> symbols;
  for (Type type : function.getArgumentTypes())
    collectSymbols(type, symbols);
  for (Type type : function.getResultTypes())
    collectSymbols(type, symbols);
  collectSymbols(function.getOperation(), symbols);
  return symbols;
}

/// The sizes of `bindings` as dimensions.
static DimSubstitution asSubstitution(const DimBindings &bindings) {
  DimSubstitution substitution;
  for (const auto &entry : bindings)
    substitution[entry.getKey()] = Dim(entry.getValue());
  return substitution;
}

/// Checks that every symbolic type of `function` has sizes that fit: each
/// dimension and its element count and bytes in int64.
static LogicalResult checkSizes(func::FuncOp function,
                                const DimBindings &sizes) {
  auto check = [&](Location loc, Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !isSymbolic(tensor))
      return success();
    auto emitError = [&]() {
      return mlir::emitError(loc) << "with the sizes bound, ";
    };
    std::optional<Type> bound = substitute(tensor, asSubstitution(sizes));
    if (!bound)
      return emitError() << "a dimension of " << tensor
                         << " overflows a 64-bit size";
    // A type left symbolic is checked per run, by the runtime.
    if (isSymbolic(*bound))
      return success();
    auto static_ = cast<RankedTensorType>(*bound);
    return makeTensorType(emitError, static_.getShape(),
                          static_.getElementType());
  };
  for (Type type : function.getArgumentTypes())
    if (failed(check(function.getLoc(), type)))
      return failure();
  WalkResult result = function.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (failed(check(op->getLoc(), type)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct BindDimsPass : public fk::impl::FkBindDimsBase<BindDimsPass> {
  using FkBindDimsBase::FkBindDimsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<DimBindings> parsed = parseSizes(module);
    if (failed(parsed))
      return signalPassFailure();
    const DimBindings &bindings = *parsed;

    bool valid = true;
    llvm::StringSet<> used;
    for (auto function : module.getOps<func::FuncOp>()) {
      SmallVector<std::string> symbols = collectFunctionSymbols(function);
      SmallVector<std::string> unbound;
      for (const std::string &symbol : symbols) {
        used.insert(symbol);
        if (!bindings.count(symbol))
          unbound.push_back(symbol);
      }
      if (!unbound.empty() && !runtimeSizes) {
        function.emitError()
            << "graph '" << function.getName() << "' has symbolic dimensions "
            << llvm::join(unbound, ", ")
            << " without sizes; bind them (--bind " << formatBindHint(unbound)
            << "): the reference interpreter runs graphs of known sizes";
        valid = false;
        continue;
      }
      valid &= succeeded(checkBounds(function, bindings));
      valid &= succeeded(checkSizes(function, bindings));
    }
    for (const auto &entry : bindings)
      if (!used.contains(entry.getKey())) {
        module.emitError() << "a size is given for '" << entry.getKey()
                           << "', but no graph has a dimension of that name";
        valid = false;
      }
    if (!valid)
      return signalPassFailure();
    // A static module without sizes: nothing to bind.
    if (used.empty())
      return markAllAnalysesPreserved();

    // Symbols without a size stay (runtime-sizes): a partial substitution.
    DimSubstitution substitution = asSubstitution(bindings);
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](RankedTensorType type) -> std::optional<Type> {
      if (!isSymbolic(type))
        return std::nullopt;
      return substitute(type, substitution);
    });
    for (auto function : module.getOps<func::FuncOp>()) {
      function.setType(cast<FunctionType>(
          replacer.replace(static_cast<Type>(function.getFunctionType()))));
      keepUnboundBounds(function, bindings);
    }
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    // A size can break a rule the symbols kept (an argmax over an axis
    // bound to 0): the static rules judge the bound graph.
    if (failed(verify(module)))
      return signalPassFailure();
  }

  /// `sizes` as a binding: NAME=INT each, INT >= 0, each NAME once.
  FailureOr<DimBindings> parseSizes(ModuleOp module) {
    DimBindings bindings;
    for (const std::string &entry : sizes) {
      auto [name, text] = llvm::StringRef(entry).split('=');
      int64_t size;
      name = name.trim();
      if (name.empty() || text.trim().getAsInteger(10, size) || size < 0) {
        module.emitError() << "the size '" << entry
                           << "' is not NAME=INT with INT >= 0";
        return failure();
      }
      if (!bindings.try_emplace(name, size).second) {
        module.emitError() << "'" << name << "' is given a size twice";
        return failure();
      }
    }
    return bindings;
  }

  /// Keeps the bounds of the symbols left to run time; drops the others'
  /// (and the attribute, when none is left).
  static void keepUnboundBounds(func::FuncOp function,
                                const DimBindings &bindings) {
    for (StringRef attrName : {kDimBoundsAttrName, kDimLowerBoundsAttrName}) {
      auto bounds = function->getAttrOfType<DictionaryAttr>(attrName);
      if (!bounds)
        continue;
      SmallVector<NamedAttribute> kept;
      for (NamedAttribute bound : bounds)
        if (!bindings.count(bound.getName().getValue()))
          kept.push_back(bound);
      if (kept.empty())
        function->removeAttr(attrName);
      else
        function->setAttr(attrName,
                          DictionaryAttr::get(function.getContext(), kept));
    }
  }

  /// Checks the bindings against the graph's bounds (`where 1 <= S <=
  /// 4096`).
  static LogicalResult checkBounds(func::FuncOp function,
                                   const DimBindings &bindings) {
    for (const SymbolBound &bound : getSymbolBounds(function)) {
      auto it = bindings.find(bound.symbol);
      if (it == bindings.end() || bound.admits(it->second))
        continue;
      return function.emitError()
             << "the size " << it->second << " of '" << bound.symbol
             << "' is " << bound.describe() << " in graph '"
             << function.getName() << "'";
    }
    return success();
  }
};
} // namespace
