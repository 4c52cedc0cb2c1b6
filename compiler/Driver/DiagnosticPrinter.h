//===- DiagnosticPrinter.h - diagnostics with their source line -*- C++ -*-===//
//
// Prints each diagnostic as `file:line:col: error: message`, then the source
// line and a caret under the column, then its notes the same way; one about
// an op inlined from a call of a graph gets a note at each call it came
// through. Unlike
// llvm::SourceMgr's printer, it puts the caret on lines with non-ASCII text
// too (columns count characters, as the front end's locations do), leaves a
// byte order mark out, and shows a window of a very long line rather than
// all of it.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_DRIVER_DIAGNOSTICPRINTER_H
#define FKC_DRIVER_DIAGNOSTICPRINTER_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::fk {

/// Prints every diagnostic of `context` to `os` while it lives, with the
/// source lines of the files in `sourceMgr`.
class DiagnosticPrinter : public ScopedDiagnosticHandler {
public:
  DiagnosticPrinter(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                    llvm::raw_ostream &os = llvm::errs());

  /// Prints one diagnostic and its notes.
  void print(Diagnostic &diag);

private:
  void printOne(Location loc, DiagnosticSeverity severity,
                llvm::StringRef message);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
};

} // namespace mlir::fk

#endif // FKC_DRIVER_DIAGNOSTICPRINTER_H
