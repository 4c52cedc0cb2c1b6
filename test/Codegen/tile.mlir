// fk-tile gives every fusion a kernel strategy and its tiles for the
// module's target: loop fusions run elements in 16-byte runs, row
// reductions one block per row, matmuls wgmma tiles where the target
// (sm_90a) and the operands allow and mma.sync tiles on the other targets
// from sm_80, attentions the flash kernel's tiles.
// RUN: fkc-opt %s --split-input-file --fk-tile | FileCheck %s
// RUN: not fkc-opt %s --split-input-file --fk-tile="matmul-tile=64,256,64" 2>/dev/null | FileCheck %s --check-prefix=TILE
// RUN: not fkc-opt %s --split-input-file --fk-tile="matmul-tile=64,256,64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE-ERROR
// RUN: fkc-opt %s --split-input-file --fk-tile="explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// A matmul tile is one of the target's matmul kernel: the sm_90 module's
// mma.sync kernel takes no 256-wide tile.
// TILE-ERROR: error: fk-tile: matmul-tile: tile N must be 64 or 128 (2 x 2 warps, B fragments 16 wide)

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  // CHECK-LABEL: func.func @loop
  // CHECK: fk.tiling = #fk.tiling<elements, tile = [8], threads = 256>
  func.func @loop(%x: tensor<4x64xf16>) -> tensor<4x64xf16> {
    %0 = fk.fusion loop(%x) : (tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%a: tensor<4x64xf16>):
      %e = fk.exp %a : tensor<4x64xf16>
      fk.yield %e : tensor<4x64xf16>
    }
    return %0 : tensor<4x64xf16>
  }

  // A row of 1024 f32 in runs of 4: 256 runs, two per thread.
  // CHECK-LABEL: func.func @rows
  // CHECK: fk.tiling = #fk.tiling<rows, tile = [4], threads = 128>
  func.func @rows(%x: tensor<8x1024xf32>) -> tensor<8xf32> {
    %0 = fk.fusion reduction(%x) : (tensor<8x1024xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<8x1024xf32>):
      %s = fk.reduce_sum %a axes = [1] : tensor<8x1024xf32> -> tensor<8xf32>
      fk.yield %s : tensor<8xf32>
    }
    return %0 : tensor<8xf32>
  }

  // Two 128 x 128 tiles would leave most SMs idle: 64 x 64 tiles, and no
  // split of its one K tile.
  // CHECK-LABEL: func.func @gemm
  // CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [64, 64, 64], threads = 128>
  // TILE-LABEL: func.func @gemm
  // TILE: fk.tiling = #fk.tiling<tensor_core, tile = [64, 256, 64], threads = 128>
  func.func @gemm(%x: tensor<100x64xbf16>, %w: tensor<64x72xbf16>) -> tensor<100x72xbf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<100x64xbf16>, tensor<64x72xbf16>) -> tensor<100x72xbf16> {
    ^bb0(%a: tensor<100x64xbf16>, %b: tensor<64x72xbf16>):
      %m = fk.matmul %a, %b : tensor<100x64xbf16>, tensor<64x72xbf16> -> tensor<100x72xbf16>
      fk.yield %m : tensor<100x72xbf16>
    }
    return %0 : tensor<100x72xbf16>
  }

  // A wave of 128 x 256 tiles and 64 K tiles: the warp-specialized kernel,
  // a producer and two consumer warpgroups.
  // CHECK-LABEL: func.func @long_k
  // CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [128, 256, 64], threads = 384>
  func.func @long_k(%x: tensor<4096x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
    ^bb0(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>):
      %m = fk.matmul %a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16> -> tensor<4096x4096xf16>
      fk.yield %m : tensor<4096x4096xf16>
    }
    return %0 : tensor<4096x4096xf16>
  }

  // 8 K tiles over many tiles: 64 x 256 tiles on ping-pong consumers, one
  // consumer's epilogue under the other's main loop (prefersPingPong).
  // CHECK-LABEL: func.func @short_k
  // CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [64, 256, 64], threads = 384>
  func.func @short_k(%x: tensor<4096x512xf16>, %w: tensor<512x4096xf16>) -> tensor<4096x4096xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<4096x512xf16>, tensor<512x4096xf16>) -> tensor<4096x4096xf16> {
    ^bb0(%a: tensor<4096x512xf16>, %b: tensor<512x4096xf16>):
      %m = fk.matmul %a, %b : tensor<4096x512xf16>, tensor<512x4096xf16> -> tensor<4096x4096xf16>
      fk.yield %m : tensor<4096x4096xf16>
    }
    return %0 : tensor<4096x4096xf16>
  }

  // Ping-pong up to 32 K tiles (K = 2048), the cooperative 128 x 256 kernel
  // from 33 on (docs/tiling.md, "The warpgroup index, warp-uniform").
  // CHECK-LABEL: func.func @k_32_tiles
  // CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [64, 256, 64], threads = 384>
  func.func @k_32_tiles(%x: tensor<4096x2048xf16>, %w: tensor<2048x4096xf16>) -> tensor<4096x4096xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<4096x2048xf16>, tensor<2048x4096xf16>) -> tensor<4096x4096xf16> {
    ^bb0(%a: tensor<4096x2048xf16>, %b: tensor<2048x4096xf16>):
      %m = fk.matmul %a, %b : tensor<4096x2048xf16>, tensor<2048x4096xf16> -> tensor<4096x4096xf16>
      fk.yield %m : tensor<4096x4096xf16>
    }
    return %0 : tensor<4096x4096xf16>
  }

  // CHECK-LABEL: func.func @k_33_tiles
  // CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [128, 256, 64], threads = 384>
  func.func @k_33_tiles(%x: tensor<4096x2112xf16>, %w: tensor<2112x4096xf16>) -> tensor<4096x4096xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<4096x2112xf16>, tensor<2112x4096xf16>) -> tensor<4096x4096xf16> {
    ^bb0(%a: tensor<4096x2112xf16>, %b: tensor<2112x4096xf16>):
      %m = fk.matmul %a, %b : tensor<4096x2112xf16>, tensor<2112x4096xf16> -> tensor<4096x4096xf16>
      fk.yield %m : tensor<4096x4096xf16>
    }
    return %0 : tensor<4096x4096xf16>
  }

  // An operand computed in the fusion is not a tile a tensor-core kernel can
  // copy.
  // CHECK-LABEL: func.func @prologue
  // CHECK: fk.tiling = #fk.tiling<elements, tile = [1], threads = 256>
  // WHY: remark: matmul on the element-per-thread kernel, not tensor cores: an operand is computed in the fusion (a prologue); tiled kernels copy tiles of fusion inputs only
  func.func @prologue(%x: tensor<16x64xf32>, %w: tensor<64x16xf16>) -> tensor<16x16xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<16x64xf32>, tensor<64x16xf16>) -> tensor<16x16xf16> {
    ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x16xf16>):
      %c = fk.cast %a : tensor<16x64xf32> -> tensor<16x64xf16>
      %m = fk.matmul %c, %b : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf16>
      fk.yield %m : tensor<16x16xf16>
    }
    return %0 : tensor<16x16xf16>
  }
}

// -----

// The same matmul on sm_90, which has no wgmma: the mma.sync kernel, whose
// tiles a matmul tile must then be (the error, on stderr, comes first).
// CHECK-LABEL: func.func @gemm_sm90
// CHECK: fk.tiling = #fk.tiling<mma_sync, tile = [64, 64, 32], threads = 128>
// WHY: remark: matmul on the mma.sync tensor-core kernel (sm_80 and later), not wgmma (target sm_90 has no wgmma): tiles of 64 x 64, K in steps of 32 through a cp.async ring
module attributes {fk.target = #fk.target<chip = "sm_90">} {
  func.func @gemm_sm90(%x: tensor<100x64xbf16>, %w: tensor<64x72xbf16>) -> tensor<100x72xbf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<100x64xbf16>, tensor<64x72xbf16>) -> tensor<100x72xbf16> {
    ^bb0(%a: tensor<100x64xbf16>, %b: tensor<64x72xbf16>):
      %m = fk.matmul %a, %b : tensor<100x64xbf16>, tensor<64x72xbf16> -> tensor<100x72xbf16>
      fk.yield %m : tensor<100x72xbf16>
    }
    return %0 : tensor<100x72xbf16>
  }
}

// -----

// Key blocks of 128 where two blocks of the flash kernel fit on an SM (at
// head dim 64, 2 x 83 KiB on sm_90a's 228 KiB); on a made-up sm_90a with
// 160 KiB per SM they do not, and the key block is 64.
// CHECK-LABEL: func.func @attention
// CHECK: fk.tiling = #fk.tiling<flash, tile = [128, 128, 64], threads = 256>
// CHECK-LABEL: func.func @attention_small_sm
// CHECK: fk.tiling = #fk.tiling<flash, tile = [128, 64, 64], threads = 256>
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @attention(%q: tensor<2x200x64xf16>, %k: tensor<2x200x64xf16>, %v: tensor<2x200x64xf16>) -> tensor<2x200x64xf16> {
    %0 = fk.fusion attention(%q, %k, %v) : (tensor<2x200x64xf16>, tensor<2x200x64xf16>, tensor<2x200x64xf16>) -> tensor<2x200x64xf16> {
    ^bb0(%a: tensor<2x200x64xf16>, %b: tensor<2x200x64xf16>, %c: tensor<2x200x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x200x64xf16>, tensor<2x200x64xf16>, tensor<2x200x64xf16> -> tensor<2x200x64xf16>
      fk.yield %o : tensor<2x200x64xf16>
    }
    return %0 : tensor<2x200x64xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a", shared_memory_per_block = 163840, shared_memory_per_sm = 163840>} {
  func.func @attention_small_sm(%q: tensor<2x200x64xf16>, %k: tensor<2x200x64xf16>, %v: tensor<2x200x64xf16>) -> tensor<2x200x64xf16> {
    %0 = fk.fusion attention(%q, %k, %v) : (tensor<2x200x64xf16>, tensor<2x200x64xf16>, tensor<2x200x64xf16>) -> tensor<2x200x64xf16> {
    ^bb0(%a: tensor<2x200x64xf16>, %b: tensor<2x200x64xf16>, %c: tensor<2x200x64xf16>):
      %o = fk.attention %a, %b, %c scale = 1.250000e-01 causal = false : tensor<2x200x64xf16>, tensor<2x200x64xf16>, tensor<2x200x64xf16> -> tensor<2x200x64xf16>
      fk.yield %o : tensor<2x200x64xf16>
    }
    return %0 : tensor<2x200x64xf16>
  }
}

// -----

// A matmul pair (fk-pair-matmuls) on sm_90a takes a wgmma tile of 128 or
// 256 columns (half of them each product's); on sm_80 neither the mma.sync
// nor the CUDA-core kernel computes pairs, and it runs on the
// element-per-thread kernel, each matmul evaluated in the epilogue.
// CHECK-LABEL: func.func @pair_wgmma
// CHECK: fk.tiling = #fk.tiling<tensor_core, tile = [64, 128, 64], threads = 128>
// CHECK-LABEL: func.func @pair_sm80
// CHECK: fk.tiling = #fk.tiling<elements, tile = [1], threads = 256>
// WHY: remark: matmul on the element-per-thread kernel, not tensor cores: a matmul pair runs on the wgmma kernel only
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @pair_wgmma(%x: tensor<64x256xf16>, %wg: tensor<256x256xf16>, %wu: tensor<256x256xf16>) -> tensor<64x256xf16> {
    %0 = fk.fusion matmul(%x, %wg, %wu) : (tensor<64x256xf16>, tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<64x256xf16> {
    ^bb0(%a: tensor<64x256xf16>, %g: tensor<256x256xf16>, %u: tensor<256x256xf16>):
      %p = fk.matmul %a, %g : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf16>
      %q = fk.matmul %a, %u : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf16>
      %y = fk.mul %p, %q : tensor<64x256xf16>
      fk.yield %y : tensor<64x256xf16>
    }
    return %0 : tensor<64x256xf16>
  }
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_80">} {
  func.func @pair_sm80(%x: tensor<64x256xf16>, %wg: tensor<256x256xf16>, %wu: tensor<256x256xf16>) -> tensor<64x256xf16> {
    %0 = fk.fusion matmul(%x, %wg, %wu) : (tensor<64x256xf16>, tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<64x256xf16> {
    ^bb0(%a: tensor<64x256xf16>, %g: tensor<256x256xf16>, %u: tensor<256x256xf16>):
      %p = fk.matmul %a, %g : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf16>
      %q = fk.matmul %a, %u : tensor<64x256xf16>, tensor<256x256xf16> -> tensor<64x256xf16>
      %y = fk.mul %p, %q : tensor<64x256xf16>
      fk.yield %y : tensor<64x256xf16>
    }
    return %0 : tensor<64x256xf16>
  }
}
