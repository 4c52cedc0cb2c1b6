// A causal select is a mask only with a fill of -inf or at most -1e4; a NaN
// fill makes the hidden scores NaN (and every row NaN), so it is no causal
// mask: no attention.
// RUN: fkc-opt %s --fk-recognize-attention | FileCheck %s
// RUN: fkc-opt %s --fk-recognize-attention=explain -verify-diagnostics -o /dev/null
// RUN: fkc %s --emit=canonical --verify-stages --seed 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: MISMATCH
// VERIFY: verify-stages @nan_fill result #0 at canonical: ok

// CHECK-LABEL: func.func @nan_fill
// CHECK-NOT:     fk.attention
// CHECK:         fk.select
func.func @nan_fill(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %nan = fk.constant dense<0x7FC00000> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %nan : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the causal select's fill is not -inf or a large negative constant (at most -1e4)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
