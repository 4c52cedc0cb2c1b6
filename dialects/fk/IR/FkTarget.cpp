//===- FkTarget.cpp - the GPU a module is compiled for --------------------===//

#include "fk/IR/FkTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::fk;

namespace {
/// What a target is after its chip, in the order #fk.target prints it.
struct Facts {
  int64_t computeCapability = 0;
  int64_t smCount = 0;
  int64_t sharedMemoryPerBlock = 0;
  int64_t sharedMemoryPerSm = 0;
  int64_t registersPerThread = 0;
  bool wgmma = false;
  bool tma = false;
};

/// The keywords of #fk.target's parameters after `chip`.
struct IntegerFact {
  llvm::StringLiteral keyword;
  int64_t Facts::*field;
};
struct FlagFact {
  llvm::StringLiteral keyword;
  bool Facts::*field;
};

struct Row {
  const char *chip;
  int64_t capability, sms, perBlockKiB, perSmKiB;
};
} // namespace

static const IntegerFact kIntegerFacts[] = {
    {"compute_capability", &Facts::computeCapability},
    {"sm_count", &Facts::smCount},
    {"shared_memory_per_block", &Facts::sharedMemoryPerBlock},
    {"shared_memory_per_sm", &Facts::sharedMemoryPerSm},
    {"registers_per_thread", &Facts::registersPerThread}};
static const FlagFact kFlagFacts[] = {{"wgmma", &Facts::wgmma},
                                      {"tma", &Facts::tma}};

// From the CUDA C++ Programming Guide's table of compute capabilities; SM
// counts of V100, Xavier, T4, A100, A6000, Orin, L40, H100/H200 SXM, B200
// and RTX 5090. The one list of the targets fkc supports.
static const Row kChips[] = {
    {"sm_70", 70, 80, 96, 96},       {"sm_72", 72, 8, 48, 96},
    {"sm_75", 75, 40, 64, 64},       {"sm_80", 80, 108, 163, 164},
    {"sm_86", 86, 84, 99, 100},      {"sm_87", 87, 16, 163, 164},
    {"sm_89", 89, 142, 99, 100},     {"sm_90", 90, 132, 227, 228},
    {"sm_90a", 90, 132, 227, 228},   {"sm_100", 100, 148, 227, 228},
    {"sm_100a", 100, 148, 227, 228}, {"sm_120", 120, 170, 99, 100},
    {"sm_120a", 120, 170, 99, 100}};

static std::optional<Facts> lookUpChip(llvm::StringRef chip) {
  for (const Row &row : kChips) {
    if (chip != row.chip)
      continue;
    Facts facts;
    facts.computeCapability = row.capability;
    facts.smCount = row.sms;
    facts.sharedMemoryPerBlock = row.perBlockKiB * 1024;
    facts.sharedMemoryPerSm = row.perSmKiB * 1024;
    facts.registersPerThread = 255;
    // wgmma is an architecture-specific feature: PTX for sm_90a runs on
    // sm_90 parts alone.
    facts.wgmma = chip == "sm_90a";
    facts.tma = row.capability >= 90;
    return facts;
  }
  return std::nullopt;
}

static Facts getFacts(TargetAttr target) {
  return {target.getComputeCapability(), target.getSmCount(),
          target.getSharedMemoryPerBlock(), target.getSharedMemoryPerSm(),
          target.getRegistersPerThread(), target.getWgmma(), target.getTma()};
}

llvm::ArrayRef<llvm::StringRef> mlir::fk::getSupportedChips() {
  static const std::vector<llvm::StringRef> chips = [] {
    std::vector<llvm::StringRef> names;
    for (const Row &row : kChips)
      names.push_back(row.chip);
    return names;
  }();
  return chips;
}

bool mlir::fk::isSupportedChip(llvm::StringRef chip, std::string &message) {
  if (llvm::is_contained(getSupportedChips(), chip))
    return true;
  message = "unsupported chip '" + chip.str() + "'; expected one of " +
            llvm::join(getSupportedChips(), ", ");
  return false;
}

TargetAttr mlir::fk::getTargetDescription(MLIRContext *context,
                                          llvm::StringRef chip) {
  std::optional<Facts> facts = lookUpChip(chip);
  if (!facts)
    return {};
  return TargetAttr::get(context, chip, facts->computeCapability,
                         facts->smCount, facts->sharedMemoryPerBlock,
                         facts->sharedMemoryPerSm, facts->registersPerThread,
                         facts->wgmma, facts->tma);
}

FailureOr<TargetAttr> mlir::fk::getTarget(Operation *op, llvm::StringRef user) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (module)
    if (auto target = module->getAttrOfType<TargetAttr>(kTargetAttrName))
      return target;
  return op->emitError() << "'" << user
                         << "' needs the module's 'fk.target' attribute";
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, int64_t computeCapability,
                                 int64_t smCount, int64_t sharedMemoryPerBlock,
                                 int64_t sharedMemoryPerSm,
                                 int64_t registersPerThread, bool wgmma,
                                 bool tma) {
  std::string message;
  if (!isSupportedChip(chip, message))
    return emitError() << message;
  Facts facts = *lookUpChip(chip);
  if (computeCapability != facts.computeCapability)
    return emitError() << "compute_capability " << computeCapability
                       << " is not that of '" << chip << "' ("
                       << facts.computeCapability << ")";
  // A made-up target may lack what its chip has, but the PTX generated for
  // the chip cannot use instructions the chip lacks.
  if (wgmma && !facts.wgmma)
    return emitError() << "'" << chip << "' has no wgmma";
  if (tma && !facts.tma)
    return emitError() << "'" << chip << "' has no TMA";
  if (smCount < 1 || sharedMemoryPerBlock < 1 || registersPerThread < 1)
    return emitError() << "sm_count, shared_memory_per_block and "
                          "registers_per_thread must be positive";
  if (sharedMemoryPerBlock > sharedMemoryPerSm)
    return emitError()
           << "shared_memory_per_block exceeds shared_memory_per_sm";
  if (registersPerThread > 255)
    return emitError() << "registers_per_thread exceeds 255, the most PTX "
                          "gives a thread";
  return success();
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string chip;
  if (parser.parseLess() || parser.parseKeyword("chip") ||
      parser.parseEqual() || parser.parseString(&chip))
    return {};
  std::string message;
  if (!isSupportedChip(chip, message)) {
    parser.emitError(loc) << message;
    return {};
  }
  // Facts not given are the chip's.
  Facts facts = *lookUpChip(chip);
  SmallVector<StringRef> given;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keywordLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword) || parser.parseEqual())
      return {};
    if (llvm::is_contained(given, keyword)) {
      parser.emitError(keywordLoc) << "'" << keyword << "' is given twice";
      return {};
    }
    given.push_back(keyword);
    const auto *integer =
        llvm::find_if(kIntegerFacts, [&](const IntegerFact &fact) {
          return fact.keyword == keyword;
        });
    const auto *flag = llvm::find_if(kFlagFacts, [&](const FlagFact &fact) {
      return fact.keyword == keyword;
    });
    if (integer != std::end(kIntegerFacts)) {
      if (parser.parseInteger(facts.*(integer->field)))
        return {};
    } else if (flag != std::end(kFlagFacts)) {
      if (succeeded(parser.parseOptionalKeyword("true"))) {
        facts.*(flag->field) = true;
      } else if (succeeded(parser.parseOptionalKeyword("false"))) {
        facts.*(flag->field) = false;
      } else {
        parser.emitError(parser.getCurrentLocation())
            << "expected 'true' or 'false'";
        return {};
      }
    } else {
      parser.emitError(keywordLoc)
          << "unknown target parameter '" << keyword << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return TargetAttr::getChecked(
      [&] { return parser.emitError(loc); }, parser.getContext(),
      StringRef(chip),
      facts.computeCapability, facts.smCount, facts.sharedMemoryPerBlock,
      facts.sharedMemoryPerSm, facts.registersPerThread, facts.wgmma,
      facts.tma);
}

void TargetAttr::print(AsmPrinter &printer) const {
  Facts facts = getFacts(*this);
  printer << "<chip = ";
  printer.printString(getChip());
  for (const IntegerFact &fact : kIntegerFacts)
    printer << ", " << fact.keyword << " = " << facts.*(fact.field);
  for (const FlagFact &fact : kFlagFacts)
    printer << ", " << fact.keyword << " = "
            << (facts.*(fact.field) ? "true" : "false");
  printer << ">";
}

LogicalResult FkDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attribute) {
  // The other fk.* attributes (fk.tiling, fk.promotion) are checked where
  // kernels are built from them.
  if (attribute.getName() != kTargetAttrName)
    return success();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'fk.target' belongs on the builtin module";
  if (!isa<TargetAttr>(attribute.getValue()))
    return op->emitError() << "'fk.target' must be a #fk.target attribute";
  return success();
}
