// fk-decompose{keep-attention} (what the pipeline asks for on targets with
// wgmma) keeps the attentions the flash kernel computes (whyNotFlashAttention:
// f16/bf16, head dim 64 or 128, ...) and decomposes the others; with explain,
// each attention decomposed all the same gets a remark with the reason.
// These options may give way to a module-level target attribute; the cases
// are kept here, apart from decompose.mlir.
// RUN: fkc-opt %s --fk-decompose=keep-attention | FileCheck %s
// RUN: fkc-opt %s --fk-decompose="keep-attention explain" -verify-diagnostics -o /dev/null
// Without keep-attention every attention is decomposed, and explain says
// nothing.
// RUN: fkc-opt %s --fk-decompose | FileCheck %s --check-prefix=ALL
// RUN: fkc-opt %s --fk-decompose=explain 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark:

// f16, head dim 64: kept whole for the flash kernel.
// CHECK-LABEL: func.func @flash
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} scale = 1.250000e-01 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
// CHECK-NEXT:    return %[[O]]
// ALL-LABEL: func.func @flash
// ALL-NOT:     fk.attention
// ALL:         fk.matmul
// ALL:         fk.matmul
// ALL:         return
func.func @flash(%q: tensor<2x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>) -> tensor<2x128x64xf16> {
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16> -> tensor<2x128x64xf16>
  return %0 : tensor<2x128x64xf16>
}

// f32: decomposed (wgmma reads 16-bit tiles).
// CHECK-LABEL: func.func @f32
// CHECK-NOT:     fk.attention
// CHECK:         fk.matmul
// CHECK:         fk.matmul
// CHECK-NOT:     fk.softmax
// CHECK:         fk.reduce_sum
// CHECK-NOT:     fk.softmax
// CHECK:         return
// ALL-LABEL: func.func @f32
// ALL-NOT:     fk.attention
func.func @f32(%q: tensor<2x128x64xf32>, %k: tensor<2x128x64xf32>, %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
  // expected-remark @+1 {{attention decomposed into its naive kernels, not the flash kernel: the operands are not f16 or bf16 (wgmma reads 16-bit tiles)}}
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x64xf32>, tensor<2x128x64xf32>, tensor<2x128x64xf32> -> tensor<2x128x64xf32>
  // Other composite ops are decomposed as always.
  %1 = fk.softmax %0 axis = 2 : tensor<2x128x64xf32>
  return %1 : tensor<2x128x64xf32>
}

// bf16 with head dim 32: decomposed.
// CHECK-LABEL: func.func @head_dim_32
// CHECK-NOT:     fk.attention
// CHECK:         fk.cast
// CHECK:         fk.matmul
// ALL-LABEL: func.func @head_dim_32
// ALL-NOT:     fk.attention
func.func @head_dim_32(%q: tensor<2x128x32xbf16>, %k: tensor<2x128x32xbf16>, %v: tensor<2x128x32xbf16>) -> tensor<2x128x32xbf16> {
  // expected-remark @+1 {{attention decomposed into its naive kernels, not the flash kernel: the head dim is 32, not 64 or 128 (one or two 128-byte swizzled rows)}}
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<2x128x32xbf16>, tensor<2x128x32xbf16>, tensor<2x128x32xbf16> -> tensor<2x128x32xbf16>
  return %0 : tensor<2x128x32xbf16>
}
