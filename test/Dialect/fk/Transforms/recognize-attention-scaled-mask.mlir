// A scale applied after the mask scales the mask too: softmax((s + m) * c)
// is softmax(c * s + c * m), so it is an attention with mask m * c (an
// fk.mul in front of it); fk.attention with scale c and mask m computes
// another thing. A scale applied after a causal select scales its fill,
// which must still mask: -inf times a positive scale does, a finite fill
// brought above -1e4 or -inf times a negative scale does not.
// RUN: fkc-opt %s --fk-recognize-attention | FileCheck %s
// RUN: fkc-opt %s --fk-recognize-attention=explain -verify-diagnostics -o /dev/null
// RUN: fkc %s --emit=canonical --verify-stages --seed 3 | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: MISMATCH
// VERIFY: verify-stages @mask_then_scale result #0 at canonical: ok
// VERIFY: verify-stages @mask_then_divide result #0 at canonical: ok
// VERIFY: verify-stages @scale_mask_scale result #0 at canonical: ok
// VERIFY: verify-stages @mask_then_negative_scale result #0 at canonical: ok
// VERIFY: verify-stages @scale_then_mask result #0 at canonical: ok
// VERIFY: verify-stages @causal_then_scale result #0 at canonical: ok
// VERIFY: verify-stages @causal_big_negative_then_divide result #0 at canonical: ok
// VERIFY: verify-stages @causal_weak_after_scale result #0 at canonical: ok
// VERIFY: verify-stages @causal_then_negative_scale result #0 at canonical: ok

// (s + m) * c: the mask is scaled by c.
// CHECK-LABEL: func.func @mask_then_scale
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<8x8xf32>)
// CHECK:         %[[C:.+]] = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %[[MC:.+]] = fk.mul %[[M]], %[[C]] : tensor<8x8xf32>
// CHECK-NEXT:    fk.attention %{{.+}}, %{{.+}}, %{{.+}} mask %[[MC]] : tensor<8x8xf32> scale = 1.250000e-01 causal = false
// CHECK-NOT:     fk.softmax
// CHECK:         return
func.func @mask_then_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %c = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %m : tensor<8x8xf32>
  %ss = fk.mul %sm, %c : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T + 1.250000e-01 * mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// (s + m) / 8, the mask broadcast over the batch: the mask, as the
// addition broadcast it (the attention broadcasts it), is scaled by 1/8.
// CHECK-LABEL: func.func @mask_then_divide
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<8x8xf32>)
// CHECK:         %[[C:.+]] = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %[[MC:.+]] = fk.mul %[[M]], %[[C]] : tensor<8x8xf32>
// CHECK-NEXT:    fk.attention %{{.+}}, %{{.+}}, %{{.+}} mask %[[MC]] : tensor<8x8xf32> scale = 1.250000e-01 causal = false
func.func @mask_then_divide(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>, %m: tensor<8x8xf32>) -> tensor<2x8x16xf32> {
  %eight = fk.constant dense<8.000000e+00> : tensor<2x8x8xf32>
  %kt = fk.transpose %k perm = [0, 2, 1] : tensor<2x8x16xf32> -> tensor<2x16x8xf32>
  %s = fk.matmul %q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32> -> tensor<2x8x8xf32>
  %mb = fk.broadcast %m : tensor<8x8xf32> -> tensor<2x8x8xf32>
  %sm = fk.add %s, %mb : tensor<2x8x8xf32>
  %ss = fk.div %sm, %eight : tensor<2x8x8xf32>
  %p = fk.softmax %ss axis = 2 : tensor<2x8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T + 1.250000e-01 * mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// (s * 0.5 + m) * 0.25: the scores are scaled by both, the mask by the
// scale after it only.
// CHECK-LABEL: func.func @scale_mask_scale
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<8x8xf32>)
// CHECK:         %[[C:.+]] = fk.constant dense<2.500000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %[[MC:.+]] = fk.mul %[[M]], %[[C]] : tensor<8x8xf32>
// CHECK-NEXT:    fk.attention %{{.+}}, %{{.+}}, %{{.+}} mask %[[MC]] : tensor<8x8xf32> scale = 1.250000e-01 causal = false
func.func @scale_mask_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %half = fk.constant dense<5.000000e-01> : tensor<8x8xf32>
  %quarter = fk.constant dense<2.500000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sh = fk.mul %s, %half : tensor<8x8xf32>
  %sm = fk.add %m, %sh : tensor<8x8xf32>
  %ss = fk.mul %quarter, %sm : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T + 2.500000e-01 * mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A negative scale after the mask: (s + m) * -0.5 is -0.5 * s + (-0.5 * m)
// as well (an additive mask is any tensor; no sign is assumed).
// CHECK-LABEL: func.func @mask_then_negative_scale
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<8x8xf32>)
// CHECK:         %[[C:.+]] = fk.constant dense<-5.000000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %[[MC:.+]] = fk.mul %[[M]], %[[C]] : tensor<8x8xf32>
// CHECK-NEXT:    fk.attention %{{.+}}, %{{.+}}, %{{.+}} mask %[[MC]] : tensor<8x8xf32> scale = -5.000000e-01 causal = false
func.func @mask_then_negative_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %c = fk.constant dense<-5.000000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %m : tensor<8x8xf32>
  %ss = fk.mul %sm, %c : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(-5.000000e-01 * q @ k^T + -5.000000e-01 * mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// s * c + m, the usual order: the mask is taken as it is, nothing is added.
// CHECK-LABEL: func.func @scale_then_mask
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<8x8xf32>)
// CHECK-NEXT:    fk.attention %{{.+}}, %{{.+}}, %{{.+}} mask %[[M]] : tensor<8x8xf32> scale = 1.250000e-01 causal = false
// CHECK-NEXT:    return
func.func @scale_then_mask(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %c = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ss = fk.mul %s, %c : tensor<8x8xf32>
  %sm = fk.add %ss, %m : tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T + mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A positive scale after a causal select of -inf: the fill stays -inf.
// CHECK-LABEL: func.func @causal_then_scale
// CHECK:         fk.attention %{{.+}}, %{{.+}}, %{{.+}} scale = 1.250000e-01 causal = true
func.func @causal_then_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %ninf = fk.constant dense<0xFF800000> : tensor<8x8xf32>
  %c = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %ninf : tensor<8x8xi1>, tensor<8x8xf32>
  %ss = fk.mul %sm, %c : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T), causal @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A fill of -1e9 divided by 8 is still far below -1e4.
// CHECK-LABEL: func.func @causal_big_negative_then_divide
// CHECK:         fk.attention %{{.+}}, %{{.+}}, %{{.+}} scale = 1.250000e-01 causal = true
func.func @causal_big_negative_then_divide(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %fill = fk.constant dense<-1.000000e+09> : tensor<8x8xf32>
  %eight = fk.constant dense<8.000000e+00> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %hidden = fk.compare gt, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %hidden, %fill, %s : tensor<8x8xi1>, tensor<8x8xf32>
  %ss = fk.div %sm, %eight : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T), causal @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a fill of -1e4 times 0.125 after the select is -1250, which
// does not hide a score as -inf does.
// CHECK-LABEL: func.func @causal_weak_after_scale
// CHECK-NOT:     fk.attention
// CHECK:         fk.select
func.func @causal_weak_after_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %fill = fk.constant dense<-1.000000e+04> : tensor<8x8xf32>
  %c = fk.constant dense<1.250000e-01> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %fill : tensor<8x8xi1>, tensor<8x8xf32>
  %ss = fk.mul %sm, %c : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the causal select's fill is not -inf or a large negative constant (at most -1e4) once scaled by 1.250000e-01, the scale applied after it}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a negative scale after the select turns its -inf fill into
// +inf, which does not hide the score but takes the whole row.
// CHECK-LABEL: func.func @causal_then_negative_scale
// CHECK-NOT:     fk.attention
// CHECK:         fk.select
func.func @causal_then_negative_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %ninf = fk.constant dense<0xFF800000> : tensor<8x8xf32>
  %c = fk.constant dense<-1.000000e+00> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %ninf : tensor<8x8xi1>, tensor<8x8xf32>
  %ss = fk.mul %sm, %c : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the causal select's fill is not -inf or a large negative constant (at most -1e4) once scaled by -1.000000e+00, the scale applied after it}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
