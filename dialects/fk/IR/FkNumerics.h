//===- FkNumerics.h - how f32 products may be computed ----------*- C++ -*-===//
//
// A module computes f32 matmuls in exact f32 unless it carries the unit
// attribute `fk.allow_tf32` (set by `fkc --allow-tf32`, the analogue of
// PyTorch's `torch.backends.cuda.matmul.allow_tf32`): then f32 matmuls may
// run on TF32 tensor cores, their operands reduced to 10-bit mantissas and
// their products accumulated in f32. The mma.sync kernels round operands as
// they load them (to nearest, ties away from zero: cvt.rna.tf32.f32); wgmma
// reads them from shared memory as they are, and the tensor cores ignore
// the 13 low mantissa bits (truncation). fk-tile reads the attribute to
// choose a tensor-core kernel for f32 matmuls (`#fk.tiling<mma_sync>` or
// `#fk.tiling<tensor_core>` on f32 operands means TF32) and 1 TF32 product
// instead of 3 in f32 attention on the flash kernel; the reference
// interpreter models each kernel's rounding in fusions tiled so; the
// artifact's manifest records it (`allow_tf32`), so that whoever checks the
// results knows their precision.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKNUMERICS_H
#define FK_IR_FKNUMERICS_H

#include "fk/IR/FkOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace mlir::fk {

/// The name of the module attribute that allows TF32.
inline constexpr llvm::StringLiteral kAllowTf32AttrName = "fk.allow_tf32";

/// Whether the nearest module that is or holds `op` allows f32 matmuls on
/// TF32 tensor cores.
inline bool allowsTf32(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  return module && module->hasAttr(kAllowTf32AttrName);
}

/// Why f32 operands near `op` cannot run on TF32 tensor cores (the module
/// does not allow it), or "".
inline std::string whyNoTf32(Operation *op) {
  if (allowsTf32(op))
    return "";
  return "f32 operands run on TF32 tensor cores only where the module "
         "allows it ('" + kAllowTf32AttrName.str() + "', fkc --allow-tf32)";
}

/// `value`, an f32, rounded to TF32 as cvt.rna.tf32.f32 does: to the
/// nearest number of 10 mantissa bits, ties away from zero (the magnitude's
/// 13 dropped bits rounded up from half); infinities and NaNs stay.
inline float roundToTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

/// `value`, an f32, as wgmma reads it as TF32: its 13 low mantissa bits
/// dropped (toward zero); infinities and NaNs stay.
inline float truncateToTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits &= ~0x1fffu;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

/// How a kernel reduces f32 operands to TF32.
enum class Tf32Rounding {
  /// Exact f32 (or three TF32 products that are as precise).
  None,
  /// To nearest, ties away from zero (the mma.sync kernels, roundToTf32).
  Nearest,
  /// Low bits dropped (wgmma, truncateToTf32).
  Truncate,
};

/// How `op`, a matmul or an attention, reduces its f32 operands to TF32: in
/// a module that allows TF32, to nearest in a fusion tiled for an mma.sync
/// kernel (`mma_sync`, `flash_mma_sync`), by truncation in one tiled for
/// wgmma (`tensor_core`); else not at all. (An f32 attention on the flash
/// kernel's mma.sync form in a module that does not allow TF32 computes
/// each product as three TF32 products, big * big + big * small + small *
/// big of each operand split in a TF32 part and the TF32 rest: as precise
/// as f32.)
Tf32Rounding getTf32Rounding(Operation *op);

/// `value` reduced to TF32 as `rounding` says.
inline float reduceToTf32(float value, Tf32Rounding rounding) {
  switch (rounding) {
  case Tf32Rounding::None:
    return value;
  case Tf32Rounding::Nearest:
    return roundToTf32(value);
  case Tf32Rounding::Truncate:
    return truncateToTf32(value);
  }
  return value;
}

/// The relative L2 error an f32 result computed with TF32 products is
/// checked at: operands rounded to 2^-11 of their size err by about 3e-4
/// each on random inputs, and a sum of such products by about as much.
inline constexpr double kTf32Tolerance = 2e-3;

} // namespace mlir::fk

#endif // FK_IR_FKNUMERICS_H
