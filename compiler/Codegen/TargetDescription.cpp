//===- TargetDescription.cpp - what the tiling heuristics know of a GPU ---===//

#include "Codegen/TargetDescription.h"

#include <vector>

using namespace mlir::fk;

namespace {
struct Row {
  const char *chip;
  int64_t capability, sms, perBlockKiB, perSmKiB;
};
} // namespace

// From the CUDA C++ Programming Guide's table of compute capabilities; SM
// counts of V100, Xavier, T4, A100, A6000, Orin, L40, H100/H200 SXM, B200
// and RTX 5090. The one list of the targets fkc supports.
static const Row kTargets[] = {
    {"sm_70", 70, 80, 96, 96},       {"sm_72", 72, 8, 48, 96},
    {"sm_75", 75, 40, 64, 64},       {"sm_80", 80, 108, 163, 164},
    {"sm_86", 86, 84, 99, 100},      {"sm_87", 87, 16, 163, 164},
    {"sm_89", 89, 142, 99, 100},     {"sm_90", 90, 132, 227, 228},
    {"sm_90a", 90, 132, 227, 228},   {"sm_100", 100, 148, 227, 228},
    {"sm_100a", 100, 148, 227, 228}, {"sm_120", 120, 170, 99, 100},
    {"sm_120a", 120, 170, 99, 100}};

llvm::ArrayRef<llvm::StringRef> mlir::fk::getSupportedChips() {
  static const std::vector<llvm::StringRef> chips = [] {
    std::vector<llvm::StringRef> names;
    for (const Row &row : kTargets)
      names.push_back(row.chip);
    return names;
  }();
  return chips;
}

std::optional<TargetDescription>
mlir::fk::getTargetDescription(llvm::StringRef chip) {
  for (const Row &row : kTargets) {
    if (chip != row.chip)
      continue;
    TargetDescription target;
    target.chip = row.chip;
    target.computeCapability = row.capability;
    target.smCount = row.sms;
    target.sharedMemoryPerBlock = row.perBlockKiB * 1024;
    target.sharedMemoryPerSm = row.perSmKiB * 1024;
    target.hasWarpgroupMma = chip == "sm_90a";
    target.hasTma = row.capability >= 90;
    return target;
  }
  return std::nullopt;
}
