// fk-promote puts both operands of a tensor-core matmul in a TMA-filled,
// 128-byte-swizzled shared-memory ring: as deep as fits with two blocks per
// SM of the module's target (3 stages of 32 KiB on sm_90a), never deeper
// than the K steps + 1, and at least deep enough to hold the f32
// accumulator tile for the epilogue. Elements and rows kernels promote
// nothing. Then fk-lower-to-gpu reads the operands through fk.tensor_map
// descriptors. The matmuls here are small enough that fk-tile would choose
// 64 x 64 tiles and split K (split-k-matmul.graph); they take 128 x 128.
// RUN: fkc-opt %s --split-input-file --fk-tile="matmul-tile=128,128,64" --fk-promote | FileCheck %s
// RUN: fkc-opt %s --split-input-file --fk-tile="matmul-tile=128,128,64" --fk-promote="stages=4" | FileCheck %s --check-prefix=FIXED
// RUN: fkc-opt %s --split-input-file --fk-tile="matmul-tile=128,128,64" --fk-promote --fk-lower-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: fkc-opt %s --split-input-file --fk-tile="matmul-tile=128,128,64" --fk-promote --fk-lower-to-gpu | fkc-opt --split-input-file | FileCheck %s --check-prefix=GPU

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  // CHECK-LABEL: func.func @deep
  // CHECK: fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 3, swizzle = 128>
  // FIXED-LABEL: func.func @deep
  // FIXED: stages = 4
  // GPU-LABEL: func.func @deep
  // GPU: %[[A:.+]] = fk.tensor_map %arg0 dims [4096, 256] strides [8192] box [64, 128] swizzle 128 : memref<256x4096xf16> -> !llvm.ptr
  // GPU: %[[B:.+]] = fk.tensor_map %arg1 dims [128, 4096] strides [256] box [64, 64] swizzle 128 : memref<4096x128xf16> -> !llvm.ptr
  // GPU: gpu.launch_func @fk_kernels::@deep_k0 blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %{{.*}} args(%[[A]] : !llvm.ptr, %[[B]] : !llvm.ptr,
  func.func @deep(%x: tensor<256x4096xf16>, %w: tensor<4096x128xf16>) -> tensor<256x128xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<256x4096xf16>, tensor<4096x128xf16>) -> tensor<256x128xf16> {
    ^bb0(%a: tensor<256x4096xf16>, %b: tensor<4096x128xf16>):
      %m = fk.matmul %a, %b : tensor<256x4096xf16>, tensor<4096x128xf16> -> tensor<256x128xf16>
      fk.yield %m : tensor<256x128xf16>
    }
    return %0 : tensor<256x128xf16>
  }

  // One K step: two stages (the accumulator tile needs 64 KiB).
  // CHECK-LABEL: func.func @shallow
  // CHECK: fk.promotion = #fk.promotion<operands = [1, 0], copy = tma, stages = 2, swizzle = 128>
  // The batches of a matmul whose right operand has none are rows of one
  // product: a two-dimensional tensor map of 3 x 100 rows (a batched right
  // operand gives each map a third dimension: tensor-core-matmul.graph).
  // GPU-LABEL: func.func @shallow
  // GPU: fk.tensor_map %arg1 dims [32, 300] strides [64] box [64, 128] swizzle 128
  func.func @shallow(%w: tensor<32x64xbf16>, %x: tensor<3x100x32xbf16>) -> tensor<3x100x64xbf16> {
    %0 = fk.fusion matmul(%w, %x) : (tensor<32x64xbf16>, tensor<3x100x32xbf16>) -> tensor<3x100x64xbf16> {
    ^bb0(%b: tensor<32x64xbf16>, %a: tensor<3x100x32xbf16>):
      %m = fk.matmul %a, %b : tensor<3x100x32xbf16>, tensor<32x64xbf16> -> tensor<3x100x64xbf16>
      fk.yield %m : tensor<3x100x64xbf16>
    }
    return %0 : tensor<3x100x64xbf16>
  }

  // CHECK-LABEL: func.func @loop
  // CHECK-NOT: fk.promotion
  // CHECK: return
  func.func @loop(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = fk.fusion loop(%x) : (tensor<64xf32>) -> tensor<64xf32> {
    ^bb0(%a: tensor<64xf32>):
      %e = fk.exp %a : tensor<64xf32>
      fk.yield %e : tensor<64xf32>
    }
    return %0 : tensor<64xf32>
  }
}

// -----

// On a made-up sm_90a with 160 KiB of shared memory per SM, two blocks
// hold 2 stages each.
// CHECK-LABEL: func.func @deep_small_sm
// CHECK: fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 2, swizzle = 128>
module attributes {fk.target = #fk.target<chip = "sm_90a", shared_memory_per_block = 163840, shared_memory_per_sm = 163840>} {
  func.func @deep_small_sm(%x: tensor<256x4096xf16>, %w: tensor<4096x128xf16>) -> tensor<256x128xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<256x4096xf16>, tensor<4096x128xf16>) -> tensor<256x128xf16> {
    ^bb0(%a: tensor<256x4096xf16>, %b: tensor<4096x128xf16>):
      %m = fk.matmul %a, %b : tensor<256x4096xf16>, tensor<4096x128xf16> -> tensor<256x128xf16>
      fk.yield %m : tensor<256x128xf16>
    }
    return %0 : tensor<256x128xf16>
  }
}
