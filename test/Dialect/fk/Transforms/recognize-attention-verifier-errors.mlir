// A match that fk.attention cannot express is a near miss like the others:
// the graph stays as it is, and the pass emits no error. Two such graphs:
// an f32 mask added to f16 scores cast to f32 (attention C2: one dtype), and
// a division by zero (attention C7: a finite scale).
// RUN: fkc-opt %s --fk-recognize-attention 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG --allow-empty
// RUN: fkc %s --emit=canonical 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG --allow-empty
// DIAG-NOT: error
// RUN: fkc-opt %s --fk-recognize-attention | FileCheck %s
// With explain, each is a near miss with the verifier's reason (checked
// with FileCheck: expected-remark lines would make fkc-opt report errors in
// the runs above).
// RUN: fkc-opt %s --fk-recognize-attention=explain 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// REMARK: remark: attention not recognized: fk.attention cannot express it: query, key, value and mask must share one dtype
// REMARK: remark: attention not recognized: fk.attention cannot express it: query, key, value and mask must share one dtype
// REMARK: remark: attention not recognized: fk.attention cannot express it: scale must be finite, got inf

// CHECK-LABEL: func.func @f32_mask
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @f32_mask(%q: tensor<2x8x64xf16>, %k: tensor<2x8x64xf16>, %v: tensor<2x8x64xf16>, %m: tensor<2x8x8xf32>) -> tensor<2x8x64xf16> {
  %c = fk.constant dense<1.250000e-01> : tensor<2x8x8xf32>
  %kt = fk.transpose %k perm = [0, 2, 1] : tensor<2x8x64xf16> -> tensor<2x64x8xf16>
  %s = fk.matmul %q, %kt : tensor<2x8x64xf16>, tensor<2x64x8xf16> -> tensor<2x8x8xf16>
  %s32 = fk.cast %s : tensor<2x8x8xf16> -> tensor<2x8x8xf32>
  %ss = fk.mul %s32, %c : tensor<2x8x8xf32>
  %sm = fk.add %ss, %m : tensor<2x8x8xf32>
  %p32 = fk.softmax %sm axis = 2 : tensor<2x8x8xf32>
  %p = fk.cast %p32 : tensor<2x8x8xf32> -> tensor<2x8x8xf16>
  %o = fk.matmul %p, %v : tensor<2x8x8xf16>, tensor<2x8x64xf16> -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// The same with K passed transposed: nothing is added to the graph.
// CHECK-LABEL: func.func @f32_mask_key_pretransposed
// CHECK-NOT:     fk.transpose
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @f32_mask_key_pretransposed(%q: tensor<2x8x64xf16>, %kt: tensor<2x64x8xf16>, %v: tensor<2x8x64xf16>, %m: tensor<2x8x8xf32>) -> tensor<2x8x64xf16> {
  %s = fk.matmul %q, %kt : tensor<2x8x64xf16>, tensor<2x64x8xf16> -> tensor<2x8x8xf16>
  %s32 = fk.cast %s : tensor<2x8x8xf16> -> tensor<2x8x8xf32>
  %sm = fk.add %s32, %m : tensor<2x8x8xf32>
  %p32 = fk.softmax %sm axis = 2 : tensor<2x8x8xf32>
  %p = fk.cast %p32 : tensor<2x8x8xf32> -> tensor<2x8x8xf16>
  %o = fk.matmul %p, %v : tensor<2x8x8xf16>, tensor<2x8x64xf16> -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// CHECK-LABEL: func.func @zero_divisor
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @zero_divisor(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %zero = fk.constant dense<0.000000e+00> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ss = fk.div %s, %zero : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
