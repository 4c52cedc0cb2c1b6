//===- DiagnosticPrinter.cpp - diagnostics with their source line ---------===//

#include "Driver/DiagnosticPrinter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fk;

/// Lines longer than this show a window of this many characters around the
/// column.
static constexpr size_t kMaxShownCharacters = 160;

static bool isContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// The file position a diagnostic is about: the first file location found
/// through names, call sites and fusions of locations.
static std::optional<FileLineColLoc> findFileLocation(Location loc) {
  return llvm::TypeSwitch<LocationAttr, std::optional<FileLineColLoc>>(loc)
      .Case([](FileLineColLoc file) { return file; })
      .Case([](NameLoc name) { return findFileLocation(name.getChildLoc()); })
      .Case([](CallSiteLoc call) { return findFileLocation(call.getCallee()); })
      .Case([](FusedLoc fused) -> std::optional<FileLineColLoc> {
        for (Location inner : fused.getLocations())
          if (std::optional<FileLineColLoc> file = findFileLocation(inner))
            return file;
        return std::nullopt;
      })
      .Default([](LocationAttr) { return std::nullopt; });
}

/// The text of line `line` (1-based) of `buffer`, without its line break
/// or a leading byte order mark.
static std::optional<llvm::StringRef> getLine(llvm::StringRef buffer,
                                              unsigned line) {
  if (line == 0)
    return std::nullopt;
  size_t start = 0;
  for (unsigned i = 1; i < line; ++i) {
    start = buffer.find('\n', start);
    if (start == llvm::StringRef::npos)
      return std::nullopt;
    ++start;
  }
  llvm::StringRef text = buffer.substr(start);
  text = text.take_until([](char c) { return c == '\n' || c == '\r'; });
  if (line == 1 && text.starts_with("\xEF\xBB\xBF"))
    text = text.drop_front(3);
  return text;
}

/// Splits `text` into characters (UTF-8 sequences, or single bytes where
/// the text is not UTF-8).
static SmallVector<llvm::StringRef> splitCharacters(llvm::StringRef text) {
  SmallVector<llvm::StringRef> characters;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i + 1;
    while (end < text.size() && isContinuationByte(text[end]))
      ++end;
    characters.push_back(text.slice(i, end));
    i = end;
  }
  return characters;
}

DiagnosticPrinter::DiagnosticPrinter(llvm::SourceMgr &sourceMgr,
                                     MLIRContext *context,
                                     llvm::raw_ostream &os)
    : ScopedDiagnosticHandler(context), sourceMgr(sourceMgr), os(os) {
  setHandler([this](Diagnostic &diag) {
    print(diag);
    return success();
  });
}

/// The calls through which `loc` was inlined (fk-inline-calls), innermost
/// first: the callers of its call sites.
static void collectCallers(Location loc, SmallVectorImpl<Location> &callers) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return collectCallers(name.getChildLoc(), callers);
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collectCallers(call.getCallee(), callers);
    callers.push_back(call.getCaller());
  }
}

void DiagnosticPrinter::print(Diagnostic &diag) {
  printOne(diag.getLocation(), diag.getSeverity(), diag.str());
  // A diagnostic about a graph's statement inlined at a call says where it
  // was called from, since the statement's own line serves every call.
  SmallVector<Location> callers;
  collectCallers(diag.getLocation(), callers);
  for (Location caller : callers)
    printOne(caller, DiagnosticSeverity::Note, "inlined from the call here");
  for (Diagnostic &note : diag.getNotes())
    printOne(note.getLocation(), note.getSeverity(), note.str());
  os.flush();
}

void DiagnosticPrinter::printOne(Location loc, DiagnosticSeverity severity,
                                 llvm::StringRef message) {
  std::optional<FileLineColLoc> file = findFileLocation(loc);
  if (file)
    os << file->getFilename().getValue() << ":" << file->getLine() << ":"
       << file->getColumn() << ": ";
  else if (!isa<UnknownLoc>(loc))
    os << loc << ": ";
  switch (severity) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  }
  os << message << "\n";
  if (!file)
    return;

  const llvm::MemoryBuffer *buffer = nullptr;
  for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id)
    if (sourceMgr.getMemoryBuffer(id)->getBufferIdentifier() ==
        file->getFilename().getValue())
      buffer = sourceMgr.getMemoryBuffer(id);
  if (!buffer)
    return;
  std::optional<llvm::StringRef> line =
      getLine(buffer->getBuffer(), file->getLine());
  if (!line)
    return;

  // Tabs become spaces up to the next multiple of 8, in the line and under
  // it, so that the caret stays in place.
  SmallVector<llvm::StringRef> characters = splitCharacters(*line);
  size_t caret = std::min<size_t>(
      file->getColumn() > 0 ? file->getColumn() - 1 : 0, characters.size());
  size_t first = 0, last = characters.size();
  if (characters.size() > kMaxShownCharacters) {
    first = caret > kMaxShownCharacters / 2 ? caret - kMaxShownCharacters / 2
                                            : 0;
    last = std::min(characters.size(), first + kMaxShownCharacters);
  }
  std::string shown, marker;
  size_t displayColumn = 0;
  if (first > 0) {
    shown += "...";
    marker += "   ";
    displayColumn = 3;
  }
  for (size_t i = first; i < last; ++i) {
    size_t width = 1;
    if (characters[i] == "\t") {
      width = 8 - displayColumn % 8;
      shown.append(width, ' ');
    } else {
      shown += characters[i].str();
    }
    displayColumn += width;
    if (i < caret)
      marker.append(width, ' ');
  }
  if (caret >= last)
    marker.append(caret - last, ' ');
  if (last < characters.size())
    shown += "...";
  os << shown << "\n" << marker << "^\n";
}
