// A spelled-out softmax must divide each row by its own sum (and subtract
// its own max): the reduced values must come back along the rows, as
// reshape [..., N] -> [..., N, 1] and broadcast. broadcast([N] -> [N, N])
// without the reshape aligns them with the columns instead (numpy
// broadcasting), which is not a softmax: no attention.
// RUN: fkc-opt %s --fk-recognize-attention | FileCheck %s
// RUN: fkc-opt %s --fk-recognize-attention=explain -verify-diagnostics -o /dev/null
// RUN: fkc %s --emit=canonical --verify-stages --seed 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: MISMATCH
// VERIFY: verify-stages @column_sums result #0 at canonical: ok
// VERIFY: verify-stages @column_maxima result #0 at canonical: ok
// VERIFY: verify-stages @column_sums_reshaped result #0 at canonical: ok

// e / sum(e, axes=[-1]) without keepdims: each column divided by a row's sum.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @column_sums(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %e = fk.exp %s : tensor<8x8xf32>
  %sum = fk.reduce_sum %e axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %sumb = fk.broadcast %sum : tensor<8xf32> -> tensor<8x8xf32>
  %p = fk.div %e, %sumb : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax's sum over the key axis is not brought back along the rows it reduces (kept as size 1 and broadcast along the key axis)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// The same for the max: exp(s - max) with the maxima along the columns is
// not a shift of each row by a constant.
// CHECK-LABEL: func.func @column_maxima
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @column_maxima(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %max = fk.reduce_max %s axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %maxb = fk.broadcast %max : tensor<8xf32> -> tensor<8x8xf32>
  %d = fk.sub %s, %maxb : tensor<8x8xf32>
  %e = fk.exp %d : tensor<8x8xf32>
  %sum = fk.reduce_sum %e axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %sumr = fk.reshape %sum : tensor<8xf32> -> tensor<8x1xf32>
  %sumb = fk.broadcast %sumr : tensor<8x1xf32> -> tensor<8x8xf32>
  %p = fk.div %e, %sumb : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax's maximum over the key axis is not brought back along the rows it reduces (kept as size 1 and broadcast along the key axis)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A reshape that puts the unit dim in front, [N] -> [1, N], is no keepdims:
// the sums still come back along the columns.
// CHECK-LABEL: func.func @column_sums_reshaped
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @column_sums_reshaped(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %e = fk.exp %s : tensor<8x8xf32>
  %sum = fk.reduce_sum %e axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %sumr = fk.reshape %sum : tensor<8xf32> -> tensor<1x8xf32>
  %sumb = fk.broadcast %sumr : tensor<1x8xf32> -> tensor<8x8xf32>
  %p = fk.div %e, %sumb : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax's sum over the key axis is not brought back along the rows it reduces (kept as size 1 and broadcast along the key axis)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
