// Tilings and promotions written by hand are checked before a kernel is
// built from them, tensor-core and flash ones for the module's target: a
// clear error, never a crash or a wrong kernel.
// RUN: fkc-opt %s --split-input-file --fk-lower-to-gpu --verify-diagnostics

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @tensor_core_loop(%x: tensor<64xf16>) -> tensor<64xf16> {
    // expected-error @+1 {{'fk.fusion' op has an unusable #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>: only matmul fusions run on tensor cores}}
    %0 = fk.fusion loop(%x) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      %e = fk.exp %a : tensor<64xf16>
      fk.yield %e : tensor<64xf16>
    }
    return %0 : tensor<64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @zero_run(%x: tensor<64xf16>) -> tensor<64xf16> {
    // expected-error @+1 {{tile sizes must be positive}}
    %0 = fk.fusion loop(%x) {fk.tiling = #fk.tiling<elements, tile = [0], threads = 256>} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      %e = fk.exp %a : tensor<64xf16>
      fk.yield %e : tensor<64xf16>
    }
    return %0 : tensor<64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @odd_threads(%x: tensor<64xf16>) -> tensor<64xf16> {
    // expected-error @+1 {{threads must be whole warps, 32 to 1024}}
    %0 = fk.fusion loop(%x) {fk.tiling = #fk.tiling<elements, tile = [8], threads = 100>} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      %e = fk.exp %a : tensor<64xf16>
      fk.yield %e : tensor<64xf16>
    }
    return %0 : tensor<64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @computed_operand(%x: tensor<128x64xf32>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{an operand is computed in the fusion (a prologue); tiled kernels copy tiles of fusion inputs only}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>} : (tensor<128x64xf32>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf32>, %b: tensor<64x128xf16>):
      %c = fk.cast %a : tensor<128x64xf32> -> tensor<128x64xf16>
      %m = fk.matmul %c, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @wrong_operands(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{has an unusable #fk.promotion<operands = [0, 7], copy = tma, stages = 3, swizzle = 128>: the tensor-core kernel reads operands [0, 1] by TMA, 128-byte swizzled, in 2 to 7 stages}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 7], copy = tma, stages = 3, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

// The tensor-core and flash kernels run on targets with wgmma only, and
// their rings hold what the target's shared memory does.
module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @tensor_core_sm80(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{has an unusable #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>: target sm_80 has no wgmma}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 3, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a", shared_memory_per_block = 101376, shared_memory_per_sm = 102400>} {
  func.func @stages_beyond_target(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{the tensor-core kernel reads operands [0, 1] by TMA, 128-byte swizzled, in 2 to 3 stages}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 4, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @one_stage(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{in 2 to 7 stages}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 1, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @flash_loop(%x: tensor<64xf16>) -> tensor<64xf16> {
    // expected-error @+1 {{only attention fusions run the flash kernel}}
    %0 = fk.fusion loop(%x) {fk.tiling = #fk.tiling<flash, tile = [128, 64, 64], threads = 256>} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      %e = fk.exp %a : tensor<64xf16>
      fk.yield %e : tensor<64xf16>
    }
    return %0 : tensor<64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @attention_elements(%q: tensor<2x100x64xf16>, %k: tensor<2x100x64xf16>, %v: tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    // expected-error @+1 {{an attention fusion runs on the flash or decode kernel only}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.tiling = #fk.tiling<elements, tile = [1], threads = 256>} : (tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    ^bb0(%a: tensor<2x100x64xf16>, %b: tensor<2x100x64xf16>, %c: tensor<2x100x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16> -> tensor<2x100x64xf16>
      fk.yield %o : tensor<2x100x64xf16>
    }
    return %0 : tensor<2x100x64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @flash_head_dim_tile(%q: tensor<2x100x64xf16>, %k: tensor<2x100x64xf16>, %v: tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    // expected-error @+1 {{the third tile size must be the head dim the wgmma form computes with (64)}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.tiling = #fk.tiling<flash, tile = [128, 64, 128], threads = 256>, fk.promotion = #fk.promotion<operands = [0, 1, 2], copy = tma, stages = 2, swizzle = 128>} : (tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    ^bb0(%a: tensor<2x100x64xf16>, %b: tensor<2x100x64xf16>, %c: tensor<2x100x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16> -> tensor<2x100x64xf16>
      fk.yield %o : tensor<2x100x64xf16>
    }
    return %0 : tensor<2x100x64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @flash_promotion(%q: tensor<2x100x64xf16>, %k: tensor<2x100x64xf16>, %v: tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    // expected-error @+1 {{the flash kernel reads operands [0, 1, 2] by TMA, 128-byte swizzled, in 2 to}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.tiling = #fk.tiling<flash, tile = [128, 64, 64], threads = 256>, fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 2, swizzle = 128>} : (tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16>) -> tensor<2x100x64xf16> {
    ^bb0(%a: tensor<2x100x64xf16>, %b: tensor<2x100x64xf16>, %c: tensor<2x100x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<2x100x64xf16> -> tensor<2x100x64xf16>
      fk.yield %o : tensor<2x100x64xf16>
    }
    return %0 : tensor<2x100x64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @flash_f32(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>) -> tensor<2x100x64xf32> {
    // expected-error @+1 {{the operands are f32 (the wgmma form takes 16-bit ones)}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.tiling = #fk.tiling<flash, tile = [128, 64, 64], threads = 256>} : (tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32>) -> tensor<2x100x64xf32> {
    ^bb0(%a: tensor<2x100x64xf32>, %b: tensor<2x100x64xf32>, %c: tensor<2x100x64xf32>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32> -> tensor<2x100x64xf32>
      fk.yield %o : tensor<2x100x64xf32>
    }
    return %0 : tensor<2x100x64xf32>
  }
}

// -----

// The mma.sync kernel: targets from sm_80, its tiles, its cp.async ring.
module attributes {fk.target = #fk.target<chip = "sm_75">} {
  func.func @mma_sync_sm75(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{has an unusable #fk.tiling<mma_sync, tile = [128, 128, 32], threads = 128>: target sm_75 predates sm_80 (mma.sync m16n8k16 and cp.async)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [128, 128, 32], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @mma_sync_wide_tile(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{tile N must be 64 or 128 (2 x 2 warps, B fragments 16 wide)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [128, 256, 32], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @mma_sync_split_k(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{expects tile sizes M,N,K (the mma.sync kernel does not split K)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [64, 64, 32, 2], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @mma_sync_tma(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
    // expected-error @+1 {{the mma.sync kernel reads operands [0, 1] by cp.async, 128-byte swizzled, in 2 to 10 stages}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [128, 128, 32], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 4, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}

// -----

// f32 on the mma.sync kernel is TF32, which the module must allow.
module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @mma_sync_f32_exact(%x: tensor<64x32xf32>, %w: tensor<32x64xf32>) -> tensor<64x64xf32> {
    // expected-error @+1 {{has an unusable #fk.tiling<mma_sync, tile = [64, 64, 16], threads = 128>: f32 operands run on TF32 tensor cores only where the module allows it ('fk.allow_tf32', fkc --allow-tf32)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [64, 64, 16], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> {
    ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>):
      %m = fk.matmul %a, %b : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
      fk.yield %m : tensor<64x64xf32>
    }
    return %0 : tensor<64x64xf32>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_80">, fk.allow_tf32} {
  func.func @mma_sync_f32_tile(%x: tensor<64x32xf32>, %w: tensor<32x64xf32>) -> tensor<64x64xf32> {
    // expected-error @+1 {{tile K must be 16 or 32 for f32 (16-byte pieces, TF32 mma.sync's K of 8)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<mma_sync, tile = [64, 64, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> {
    ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>):
      %m = fk.matmul %a, %b : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
      fk.yield %m : tensor<64x64xf32>
    }
    return %0 : tensor<64x64xf32>
  }
}

// -----

// The tiled CUDA-core kernel's i64 accumulator tile is 64 x 64.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @simt_i64_tile(%x: tensor<128x32xi64>, %w: tensor<32x128xi64>) -> tensor<128x128xi64> {
    // expected-error @+1 {{has an unusable #fk.tiling<simt, tile = [128, 128, 16], threads = 256>: i64 tiles must be 64 x 64 (the accumulator tile of a larger one exceeds sm_86's shared memory)}}
    %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<simt, tile = [128, 128, 16], threads = 256>, fk.promotion = #fk.promotion<operands = [0, 1], copy = cp_async, stages = 4, swizzle = 128>} : (tensor<128x32xi64>, tensor<32x128xi64>) -> tensor<128x128xi64> {
    ^bb0(%a: tensor<128x32xi64>, %b: tensor<32x128xi64>):
      %m = fk.matmul %a, %b : tensor<128x32xi64>, tensor<32x128xi64> -> tensor<128x128xi64>
      fk.yield %m : tensor<128x128xi64>
    }
    return %0 : tensor<128x128xi64>
  }
}

// -----

// The wgmma form computes head dim 96 as 128: its tile says so.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @flash_padded_head_dim_tile(%q: tensor<2x100x96xf16>, %k: tensor<2x100x96xf16>, %v: tensor<2x100x96xf16>) -> tensor<2x100x96xf16> {
    // expected-error @+1 {{the third tile size must be the head dim the wgmma form computes with (128)}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.tiling = #fk.tiling<flash, tile = [128, 64, 96], threads = 256>, fk.promotion = #fk.promotion<operands = [0, 1, 2], copy = tma, stages = 2, swizzle = 128>} : (tensor<2x100x96xf16>, tensor<2x100x96xf16>, tensor<2x100x96xf16>) -> tensor<2x100x96xf16> {
    ^bb0(%a: tensor<2x100x96xf16>, %b: tensor<2x100x96xf16>, %c: tensor<2x100x96xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x100x96xf16>, tensor<2x100x96xf16>, tensor<2x100x96xf16> -> tensor<2x100x96xf16>
      fk.yield %o : tensor<2x100x96xf16>
    }
    return %0 : tensor<2x100x96xf16>
  }
}

// -----

// Row variants (RowVariants.h) must have ascending row limits.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @variant_rows_descending(%x: tensor<?x256xf16, ["M"]>, %w: tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> attributes {fk.dim_bounds = {M = 8192 : i64}} {
    // expected-error @+1 {{'fk.fusion' op has a malformed fk.row_variants: expected an array of {rows = N : i64, tiling = #fk.tiling<...>[, promotion = #fk.promotion<...>]}, rows ascending and positive, on a matmul fusion whose rows or an attention fusion whose query rows are given at run time}}
    %0 = fk.fusion matmul(%x, %w) {fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 4, swizzle = 128>, fk.row_variants = [{rows = 4096 : i64, tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>}, {rows = 64 : i64, tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>}], fk.tiling = #fk.tiling<tensor_core, tile = [64, 128, 64], threads = 128>} : (tensor<?x256xf16, ["M"]>, tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> {
    ^bb0(%a: tensor<?x256xf16, ["M"]>, %b: tensor<256x128xf16>):
      %1 = fk.matmul %a, %b : tensor<?x256xf16, ["M"]>, tensor<256x128xf16> -> tensor<?x128xf16, ["M"]>
      fk.yield %1 : tensor<?x128xf16, ["M"]>
    }
    return %0 : tensor<?x128xf16, ["M"]>
  }
}

// -----

// Only a product whose rows are given at run time has row variants.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @variant_static_rows(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>) -> tensor<64x128xf16> {
    // expected-error @+1 {{'fk.fusion' op has a malformed fk.row_variants}}
    %0 = fk.fusion matmul(%x, %w) {fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 4, swizzle = 128>, fk.row_variants = [{rows = 64 : i64, tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>}], fk.tiling = #fk.tiling<tensor_core, tile = [64, 128, 64], threads = 128>} : (tensor<64x256xf16>, tensor<256x128xf16>) -> tensor<64x128xf16> {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<256x128xf16>):
      %1 = fk.matmul %a, %b : tensor<64x256xf16>, tensor<256x128xf16> -> tensor<64x128xf16>
      fk.yield %1 : tensor<64x128xf16>
    }
    return %0 : tensor<64x128xf16>
  }
}

// -----

// An attention has row variants only where its query rows are given at run
// time.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @variant_static_queries(%q: tensor<100x64xf16>, %k: tensor<96x64xf16>, %v: tensor<96x64xf16>) -> tensor<100x64xf16> {
    // expected-error @+1 {{'fk.fusion' op has a malformed fk.row_variants}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.promotion = #fk.promotion<operands = [0, 1, 2], copy = tma, stages = 2, swizzle = 128>, fk.row_variants = [{rows = 16 : i64, tiling = #fk.tiling<decode, tile = [4, 1], threads = 128>}], fk.tiling = #fk.tiling<flash, tile = [128, 128, 64], threads = 256>} : (tensor<100x64xf16>, tensor<96x64xf16>, tensor<96x64xf16>) -> tensor<100x64xf16> {
    ^bb0(%a: tensor<100x64xf16>, %b: tensor<96x64xf16>, %c: tensor<96x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<100x64xf16>, tensor<96x64xf16>, tensor<96x64xf16> -> tensor<100x64xf16>
      fk.yield %o : tensor<100x64xf16>
    }
    return %0 : tensor<100x64xf16>
  }
}

// -----

// The decode kernel takes at most 16 query rows: no variant of more runs
// on it.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @decode_variant_too_many_rows(%q: tensor<?x64xf16, ["S"]>, %k: tensor<96x64xf16>, %v: tensor<96x64xf16>) -> tensor<?x64xf16, ["S"]> attributes {fk.dim_bounds = {S = 512 : i64}} {
    // expected-error @+1 {{64 query rows, more than the 16 of the decode kernel}}
    %0 = fk.fusion attention(%q, %k, %v) {fk.promotion = #fk.promotion<operands = [0, 1, 2], copy = tma, stages = 2, swizzle = 128>, fk.row_variants = [{rows = 64 : i64, tiling = #fk.tiling<decode, tile = [4, 1], threads = 128>}], fk.tiling = #fk.tiling<flash, tile = [128, 128, 64], threads = 256>} : (tensor<?x64xf16, ["S"]>, tensor<96x64xf16>, tensor<96x64xf16>) -> tensor<?x64xf16, ["S"]> {
    ^bb0(%a: tensor<?x64xf16, ["S"]>, %b: tensor<96x64xf16>, %c: tensor<96x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<?x64xf16, ["S"]>, tensor<96x64xf16>, tensor<96x64xf16> -> tensor<?x64xf16, ["S"]>
      fk.yield %o : tensor<?x64xf16, ["S"]>
    }
    return %0 : tensor<?x64xf16, ["S"]>
  }
}

// -----

// A variant's tiling is checked as the fusion's own: a tensor-core tiling
// needs its promotion (fk-promote adds it).
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @variant_without_promotion(%x: tensor<?x256xf16, ["M"]>, %w: tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> attributes {fk.dim_bounds = {M = 8192 : i64}} {
    // expected-error @+1 {{fk.promotion}}
    %0 = fk.fusion matmul(%x, %w) {fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 4, swizzle = 128>, fk.row_variants = [{rows = 64 : i64, tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>}], fk.tiling = #fk.tiling<tensor_core, tile = [64, 128, 64], threads = 128>} : (tensor<?x256xf16, ["M"]>, tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> {
    ^bb0(%a: tensor<?x256xf16, ["M"]>, %b: tensor<256x128xf16>):
      %1 = fk.matmul %a, %b : tensor<?x256xf16, ["M"]>, tensor<256x128xf16> -> tensor<?x128xf16, ["M"]>
      fk.yield %1 : tensor<?x128xf16, ["M"]>
    }
    return %0 : tensor<?x128xf16, ["M"]>
  }
}

// -----

// fk.row_limit is fk-lower-to-gpu's own, on the copies a row variant's
// kernels are built from: on a graph's fusion it would leave rows past the
// limit uncomputed.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @row_limit_by_hand(%x: tensor<?x256xf16, ["M"]>, %w: tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> attributes {fk.dim_bounds = {M = 8192 : i64}} {
    // expected-error @+1 {{'fk.fusion' op carries fk.row_limit, which only fk-lower-to-gpu sets (on the copies it builds a row variant's kernels from); give the fusion fk.row_variants instead}}
    %0 = fk.fusion matmul(%x, %w) {fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 5, swizzle = 128>, fk.row_limit = 64 : i64, fk.tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>} : (tensor<?x256xf16, ["M"]>, tensor<256x128xf16>) -> tensor<?x128xf16, ["M"]> {
    ^bb0(%a: tensor<?x256xf16, ["M"]>, %b: tensor<256x128xf16>):
      %1 = fk.matmul %a, %b : tensor<?x256xf16, ["M"]>, tensor<256x128xf16> -> tensor<?x128xf16, ["M"]>
      fk.yield %1 : tensor<?x128xf16, ["M"]>
    }
    return %0 : tensor<?x128xf16, ["M"]>
  }
}
