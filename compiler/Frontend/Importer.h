//===- Importer.h - .graph files to the fk dialect --------------*- C++ -*-===//

#ifndef FKC_FRONTEND_IMPORTER_H
#define FKC_FRONTEND_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::fk {

/// Parses the main buffer of `sourceMgr`, a .graph file, into a module with
/// one `func.func` per graph. Every error is reported as an MLIR diagnostic
/// at its `file:line:col`; parsing recovers and goes on so that one run
/// reports every error it can. Returns null if there was any error.
OwningOpRef<ModuleOp> importGraphFile(llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context);

/// Registers the dialects the importer creates ops of.
void registerImporterDialects(DialectRegistry &registry);

} // namespace mlir::fk

#endif // FKC_FRONTEND_IMPORTER_H
