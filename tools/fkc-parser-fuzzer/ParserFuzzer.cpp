//===- ParserFuzzer.cpp - libFuzzer entry point over the .graph parser ----===//
//
// Feeds arbitrary bytes to the front end. Any input must end in a module or
// in diagnostics; a crash, a sanitizer report or a hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "Frontend/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    mlir::fk::registerImporterDialects(registry);
    auto *ctx = new mlir::MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.graph"),
      llvm::SMLoc());
  // Render every diagnostic as a user would see it, then drop it.
  std::string rendered;
  llvm::raw_string_ostream os(rendered);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, context, os);
  (void)mlir::fk::importGraphFile(sourceMgr, context);
  return 0;
}
