//===- FlashAttention.h - which attentions stay whole -----------*- C++ -*-===//
//
// The attentions the flash-attention kernel (compiler/Codegen/FlashAttention.cpp)
// computes. fk-decompose keeps exactly these `fk.attention` ops whole when
// asked to (targets with wgmma); every other attention becomes the naive
// kernels of its definition.
//
//===----------------------------------------------------------------------===//

#ifndef FK_TRANSFORMS_FLASHATTENTION_H
#define FK_TRANSFORMS_FLASHATTENTION_H

#include "fk/IR/FkOps.h"

#include <string>

namespace mlir::fk {

/// The query rows one warpgroup of the flash kernel owns.
inline constexpr int64_t kFlashRowsPerWarpgroup = 64;

/// Why the flash kernel cannot compute `attention`, or "" if it can.
std::string whyNotFlashAttention(AttentionOp attention);

} // namespace mlir::fk

#endif // FK_TRANSFORMS_FLASHATTENTION_H
