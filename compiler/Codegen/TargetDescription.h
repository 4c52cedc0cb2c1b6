//===- TargetDescription.h - what the tiling heuristics know of a GPU -*- C++ -*-===//
//
// The facts about a target architecture that tile sizes and shared-memory
// promotion depend on. The table holds the flagship part of each
// architecture (SM counts differ between parts of one architecture). Today
// the heuristics read the shared memory per block and per SM and whether
// the target has wgmma; the SM count and register budget are recorded for
// grid sizing and register-aware tiles to come.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TARGETDESCRIPTION_H
#define FKC_CODEGEN_TARGETDESCRIPTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fk {

struct TargetDescription {
  std::string chip;
  /// The compute capability times ten (90 for sm_90a).
  int64_t computeCapability = 0;
  int64_t smCount = 0;
  /// Shared memory one block may use (opted in) and one SM holds, in bytes.
  int64_t sharedMemoryPerBlock = 0;
  int64_t sharedMemoryPerSm = 0;
  int64_t registersPerThread = 255;
  /// Hopper's warpgroup MMA (wgmma): only the sm_90a target, whose PTX runs
  /// on sm_90 parts alone, may use it.
  bool hasWarpgroupMma = false;
  /// The tensor memory accelerator (cp.async.bulk.tensor): sm_90 and later.
  bool hasTma = false;
};

/// The architectures fkc generates PTX for, oldest first.
llvm::ArrayRef<llvm::StringRef> getSupportedChips();

/// The description of `chip` (one of getSupportedChips()), or none.
std::optional<TargetDescription> getTargetDescription(llvm::StringRef chip);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TARGETDESCRIPTION_H
