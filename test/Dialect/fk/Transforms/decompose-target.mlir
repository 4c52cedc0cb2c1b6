// fk-decompose keeps the attentions the flash kernel computes on the
// module's target (whyNotFlashAttention: a target with wgmma and TMA,
// f16/bf16/f32, head dims that are multiples of 16, ...) and decomposes the others; with
// explain, each attention decomposed gets a remark with the reason. It needs
// the target only for a function that holds an attention.
// RUN: fkc-opt %s --split-input-file --fk-decompose=explain -verify-diagnostics | FileCheck %s

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  // f16, head dim 64: kept whole for the flash kernel.
  // CHECK-LABEL: func.func @flash
  // CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} scale = 1.250000e-01 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
  // CHECK-NEXT:    return %[[O]]
  func.func @flash(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
    return %0 : tensor<2x128x64xf16>
  }

  // f32: kept (the mma.sync form's TF32 products).
  // CHECK-LABEL: func.func @f32
  // CHECK:         fk.attention
  // CHECK-NOT:     fk.softmax
  // CHECK:         fk.reduce_sum
  // CHECK-NOT:     fk.softmax
  // CHECK:         return
  func.func @f32(%q: tensor<2x128x64xf32>, %k: tensor<2x128x64xf32>, %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x64xf32>, tensor<2x128x64xf32>, tensor<2x128x64xf32> -> tensor<2x128x64xf32>
    // Other composite ops are decomposed as always.
    %1 = fk.softmax %0 axis = 2 : tensor<2x128x64xf32>
    return %1 : tensor<2x128x64xf32>
  }

  // bf16 with head dim 40 (not a multiple of mma.sync's K step): decomposed.
  // CHECK-LABEL: func.func @head_dim_40
  // CHECK-NOT:     fk.attention
  // CHECK:         fk.cast
  // CHECK:         fk.matmul
  func.func @head_dim_40(%q: tensor<2x128x40xbf16>, %k: tensor<2x128x40xbf16>, %v: tensor<2x128x40xbf16>) -> tensor<2x128x40xbf16> {
    // expected-remark @+1 {{attention decomposed into its naive kernels, not the flash kernel: the head dim is 40, not a multiple of 16 up to 256 (mma.sync's K step)}}
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x40xbf16>, tensor<2x128x40xbf16>, tensor<2x128x40xbf16> -> tensor<2x128x40xbf16>
    return %0 : tensor<2x128x40xbf16>
  }

  // Head dim 32 stays whole: the flash kernel's mma.sync form takes it.
  // CHECK-LABEL: func.func @head_dim_32
  // CHECK:         fk.attention
  func.func @head_dim_32(%q: tensor<2x128x32xbf16>, %k: tensor<2x128x32xbf16>, %v: tensor<2x128x32xbf16>) -> tensor<2x128x32xbf16> {
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x32xbf16>, tensor<2x128x32xbf16>, tensor<2x128x32xbf16> -> tensor<2x128x32xbf16>
    return %0 : tensor<2x128x32xbf16>
  }
}

// -----

// On sm_90, which has no wgmma, the flash kernel runs on mma.sync: the
// attention stays whole.
// CHECK-LABEL: func.func @sm90
// CHECK:         fk.attention
// CHECK:         return
module attributes {fk.target = #fk.target<chip = "sm_90">} {
  func.func @sm90(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
    return %0 : tensor<2x128x64xf16>
  }
}

// -----

// A made-up sm_90a without TMA takes the mma.sync form too.
// CHECK-LABEL: func.func @no_tma
// CHECK:         fk.attention
// CHECK:         return
module attributes {fk.target = #fk.target<chip = "sm_90a", tma = false>} {
  func.func @no_tma(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
    return %0 : tensor<2x128x64xf16>
  }
}

// -----

// sm_75 predates mma.sync m16n8k16: its attentions are decomposed.
// CHECK-LABEL: func.func @sm75
// CHECK-NOT:     fk.attention
// CHECK:         fk.matmul
// CHECK:         fk.matmul
// CHECK:         return
module attributes {fk.target = #fk.target<chip = "sm_75">} {
  func.func @sm75(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
    // expected-remark @+1 {{attention decomposed into its naive kernels, not the flash kernel: target sm_75 has neither wgmma nor mma.sync m16n8k16 (sm_80)}}
    %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
    return %0 : tensor<2x128x64xf16>
  }
}

// -----

// Without a target: composite ops other than attention need none...
// CHECK-LABEL: func.func @softmax_without_target
// CHECK-NOT:     fk.softmax
// CHECK:         return
func.func @softmax_without_target(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = fk.softmax %x axis = 1 : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// ...an attention does.
func.func @attention_without_target(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
  // expected-error @+1 {{'fk-decompose' needs the module's 'fk.target' attribute}}
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
  return %0 : tensor<2x128x64xf16>
}
