//===- FkInout.h - parameters updated in place ------------------*- C++ -*-===//
//
// A graph parameter marked `inout` (`k_cache: inout f16[...]`) is returned
// updated: the result that carries its new value is tied to it, and the
// runtime writes that result into the caller's input buffer (docs/language.md,
// "Parameters updated in place"; docs/artifact.md, `aliases`). Both marks
// are attributes of the graph's func.func:
//
//   func.func @step(%cache: tensor<...> {fk.inout}, ...)
//       -> (tensor<...> {fk.updates = 0 : i64}, ...)
//
// and, once lowered to a host function whose outputs are arguments, the
// output argument carries `fk.updates` itself.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKINOUT_H
#define FK_IR_FKINOUT_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::fk {

/// A unit attribute on a parameter updated in place.
inline constexpr llvm::StringLiteral kInoutAttrName = "fk.inout";
/// On a result (or an output argument): the index of the `fk.inout`
/// parameter whose new value it is.
inline constexpr llvm::StringLiteral kUpdatesAttrName = "fk.updates";

/// On a loop fusion whose one result is `fk.update_slice` of an inout
/// parameter, written into the parameter's buffer: its kernel writes only
/// the window (the rest of the buffer already holds the parameter).
inline constexpr llvm::StringLiteral kWindowInPlaceAttrName =
    "fk.window_in_place";

/// The parameter result `index` of `function` updates, if any.
std::optional<unsigned> getUpdatedParameter(FunctionOpInterface function,
                                            unsigned resultIndex);

/// Checks `fk.inout` on argument `argIndex` of `op`.
LogicalResult verifyInoutArgument(Operation *op, unsigned argIndex,
                                  NamedAttribute attribute);

/// Checks `fk.updates` on result (or, `isArgument`, argument) `index` of
/// `op`: it names an `fk.inout` parameter of the same type that nothing
/// else updates.
LogicalResult verifyUpdates(Operation *op, unsigned index, bool isArgument,
                            NamedAttribute attribute);

} // namespace mlir::fk

#endif // FK_IR_FKINOUT_H
