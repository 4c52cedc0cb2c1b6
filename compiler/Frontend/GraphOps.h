//===- GraphOps.h - the catalogue of .graph operations ----------*- C++ -*-===//
//
// Every operation a .graph file can call: its operand count, its keyword
// attributes, and how it becomes fk ops. The builder checks calls against
// this table before building, so each op's code sees well-formed calls.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_FRONTEND_GRAPHOPS_H
#define FKC_FRONTEND_GRAPHOPS_H

#include "Frontend/GraphBuilder.h"

namespace mlir::fk::frontend {

struct AttrSpec {
  llvm::StringRef name;
  AttrKind kind;
};

/// The `maxOperands` of an op that takes any number of operands.
inline constexpr unsigned kUnboundedOperands = ~0u;

struct OpSpec {
  llvm::StringRef name;
  unsigned minOperands;
  unsigned maxOperands;
  llvm::ArrayRef<AttrSpec> attrs;
  Expr (*build)(GraphBuilder &, const CallSite &);
};

/// The spec of the operation called `name`, or null.
const OpSpec *lookupOpSpec(llvm::StringRef name);

/// Every operation of the language.
llvm::ArrayRef<OpSpec> getOpSpecs();

} // namespace mlir::fk::frontend

#endif // FKC_FRONTEND_GRAPHOPS_H
