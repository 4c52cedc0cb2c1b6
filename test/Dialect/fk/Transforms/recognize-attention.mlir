// fk-recognize-attention alone, on canonical-stage IR (after canonicalize
// and cse, as the pipeline runs it): softmax(scale * Q @ K^T + mask) @ V
// written as plain ops becomes one fk.attention, in each spelling; near
// misses stay as they are. recognize-attention.graph checks the same
// through the driver, from the language.
// RUN: fkc-opt %s --fk-recognize-attention | FileCheck %s
// With explain, each recognition and each near miss (once a softmax is
// found) is a remark at the P @ V matmul; a plain matmul says nothing.
// RUN: fkc-opt %s --fk-recognize-attention=explain -verify-diagnostics -o /dev/null
// Without explain the pass says nothing.
// RUN: fkc-opt %s --fk-recognize-attention 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark:
// Each replacement computes what the ops computed (the canonical stage
// against the graph on seeded random inputs, reference interpreter).
// RUN: fkc %s --emit=canonical --verify-stages --seed 11 | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: MISMATCH
// VERIFY: verify-stages @softmax_op result #0 at canonical: ok
// VERIFY: verify-stages @gqa_broadcast result #0 at canonical: ok

// fk.softmax over the last axis, the scale a literal on the scores, rank 4,
// K transposed in the graph.
// CHECK-LABEL: func.func @softmax_op
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x4x40x64xf16>, %[[K:[a-z0-9_]+]]: tensor<2x4x40x64xf16>, %[[V:[a-z0-9_]+]]: tensor<2x4x40x64xf16>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = false : tensor<2x4x40x64xf16>, tensor<2x4x40x64xf16>, tensor<2x4x40x64xf16> -> tensor<2x4x40x64xf16>
// CHECK-NEXT:    return %[[O]]
func.func @softmax_op(%q: tensor<2x4x40x64xf16>, %k: tensor<2x4x40x64xf16>, %v: tensor<2x4x40x64xf16>) -> tensor<2x4x40x64xf16> {
  %c = fk.constant dense<1.250000e-01> : tensor<2x4x40x40xf16>
  %kt = fk.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x40x64xf16> -> tensor<2x4x64x40xf16>
  %s = fk.matmul %q, %kt : tensor<2x4x40x64xf16>, tensor<2x4x64x40xf16> -> tensor<2x4x40x40xf16>
  %ss = fk.mul %s, %c : tensor<2x4x40x40xf16>
  %p = fk.softmax %ss axis = 3 : tensor<2x4x40x40xf16>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<2x4x40x40xf16>, tensor<2x4x40x64xf16> -> tensor<2x4x40x64xf16>
  return %o : tensor<2x4x40x64xf16>
}

// The softmax spelled out, exp(s - max(s)) / sum(...), the scale a
// division, rank 3, more keys than queries.
// CHECK-LABEL: func.func @spelled_out
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<3x17x8xf32>, %[[K:[a-z0-9_]+]]: tensor<3x19x8xf32>, %[[V:[a-z0-9_]+]]: tensor<3x19x5xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = false : tensor<3x17x8xf32>, tensor<3x19x8xf32>, tensor<3x19x5xf32> -> tensor<3x17x5xf32>
// CHECK-NEXT:    return %[[O]]
func.func @spelled_out(%q: tensor<3x17x8xf32>, %k: tensor<3x19x8xf32>, %v: tensor<3x19x5xf32>) -> tensor<3x17x5xf32> {
  %eight = fk.constant dense<8.000000e+00> : tensor<3x17x19xf32>
  %kt = fk.transpose %k perm = [0, 2, 1] : tensor<3x19x8xf32> -> tensor<3x8x19xf32>
  %s = fk.matmul %q, %kt : tensor<3x17x8xf32>, tensor<3x8x19xf32> -> tensor<3x17x19xf32>
  %ss = fk.div %s, %eight : tensor<3x17x19xf32>
  %max = fk.reduce_max %ss axes = [2] : tensor<3x17x19xf32> -> tensor<3x17xf32>
  %maxr = fk.reshape %max : tensor<3x17xf32> -> tensor<3x17x1xf32>
  %maxb = fk.broadcast %maxr : tensor<3x17x1xf32> -> tensor<3x17x19xf32>
  %d = fk.sub %ss, %maxb : tensor<3x17x19xf32>
  %e = fk.exp %d : tensor<3x17x19xf32>
  %sum = fk.reduce_sum %e axes = [2] : tensor<3x17x19xf32> -> tensor<3x17xf32>
  %sumr = fk.reshape %sum : tensor<3x17xf32> -> tensor<3x17x1xf32>
  %sumb = fk.broadcast %sumr : tensor<3x17x1xf32> -> tensor<3x17x19xf32>
  %p = fk.div %e, %sumb : tensor<3x17x19xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<3x17x19xf32>, tensor<3x19x5xf32> -> tensor<3x17x5xf32>
  return %o : tensor<3x17x5xf32>
}

// Spelled out without the max; the scale a constant on the left, c * s.
// CHECK-LABEL: func.func @no_max
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} scale = 2.500000e-01 causal = false : tensor<9x16xf32>, tensor<11x16xf32>, tensor<11x16xf32> -> tensor<9x16xf32>
// CHECK-NEXT:    return %[[O]]
func.func @no_max(%q: tensor<9x16xf32>, %k: tensor<11x16xf32>, %v: tensor<11x16xf32>) -> tensor<9x16xf32> {
  %c = fk.constant dense<2.500000e-01> : tensor<9x11xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<11x16xf32> -> tensor<16x11xf32>
  %s = fk.matmul %q, %kt : tensor<9x16xf32>, tensor<16x11xf32> -> tensor<9x11xf32>
  %ss = fk.mul %c, %s : tensor<9x11xf32>
  %e = fk.exp %ss : tensor<9x11xf32>
  %sum = fk.reduce_sum %e axes = [1] : tensor<9x11xf32> -> tensor<9xf32>
  %sumr = fk.reshape %sum : tensor<9xf32> -> tensor<9x1xf32>
  %sumb = fk.broadcast %sumr : tensor<9x1xf32> -> tensor<9x11xf32>
  %p = fk.div %e, %sumb : tensor<9x11xf32>
  // expected-remark @+1 {{attention recognized: softmax(2.500000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<9x11xf32>, tensor<11x16xf32> -> tensor<9x16xf32>
  return %o : tensor<9x16xf32>
}

// f16 scores cast to f32 around the softmax and back; no scale (1).
// CHECK-LABEL: func.func @f16_casts
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x33x64xf16>, %[[K:[a-z0-9_]+]]: tensor<2x33x64xf16>, %[[V:[a-z0-9_]+]]: tensor<2x33x64xf16>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.000000e+00 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @f16_casts(%q: tensor<2x33x64xf16>, %k: tensor<2x33x64xf16>, %v: tensor<2x33x64xf16>) -> tensor<2x33x64xf16> {
  %kt = fk.transpose %k perm = [0, 2, 1] : tensor<2x33x64xf16> -> tensor<2x64x33xf16>
  %s = fk.matmul %q, %kt : tensor<2x33x64xf16>, tensor<2x64x33xf16> -> tensor<2x33x33xf16>
  %s32 = fk.cast %s : tensor<2x33x33xf16> -> tensor<2x33x33xf32>
  %p32 = fk.softmax %s32 axis = 2 : tensor<2x33x33xf32>
  %p = fk.cast %p32 : tensor<2x33x33xf32> -> tensor<2x33x33xf16>
  // expected-remark @+1 {{attention recognized: softmax(1.000000e+00 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<2x33x33xf16>, tensor<2x33x64xf16> -> tensor<2x33x64xf16>
  return %o : tensor<2x33x64xf16>
}

// The scale on Q.
// CHECK-LABEL: func.func @scale_on_query
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<8x16xf32>, %[[K:[a-z0-9_]+]]: tensor<8x16xf32>, %[[V:[a-z0-9_]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 2.500000e-01 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @scale_on_query(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c = fk.constant dense<2.500000e-01> : tensor<8x16xf32>
  %qs = fk.mul %q, %c : tensor<8x16xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %qs, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %p = fk.softmax %s axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(2.500000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A scale on K (before its transpose) and one on the scores multiply.
// CHECK-LABEL: func.func @scale_on_key_and_scores
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<8x16xf32>, %[[K:[a-z0-9_]+]]: tensor<8x16xf32>, %[[V:[a-z0-9_]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @scale_on_key_and_scores(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %half = fk.constant dense<5.000000e-01> : tensor<8x8xf32>
  %quarter = fk.constant dense<2.500000e-01> : tensor<8x16xf32>
  %ks = fk.mul %k, %quarter : tensor<8x16xf32>
  %kt = fk.transpose %ks perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ss = fk.mul %s, %half : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// K passed already transposed ([..., D, Nk]): the pass inserts the
// transpose that fk.attention's K layout needs.
// CHECK-LABEL: func.func @key_pretransposed
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x10x16xf32>, %[[KT:[a-z0-9_]+]]: tensor<2x16x24xf32>, %[[V:[a-z0-9_]+]]: tensor<2x24x16xf32>)
// CHECK-NEXT:    %[[K:[a-z0-9_]+]] = fk.transpose %[[KT]] perm = [0, 2, 1] : tensor<2x16x24xf32> -> tensor<2x24x16xf32>
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.000000e+00 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @key_pretransposed(%q: tensor<2x10x16xf32>, %kt: tensor<2x16x24xf32>, %v: tensor<2x24x16xf32>) -> tensor<2x10x16xf32> {
  %s = fk.matmul %q, %kt : tensor<2x10x16xf32>, tensor<2x16x24xf32> -> tensor<2x10x24xf32>
  %p = fk.softmax %s axis = 2 : tensor<2x10x24xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.000000e+00 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<2x10x24xf32>, tensor<2x24x16xf32> -> tensor<2x10x16xf32>
  return %o : tensor<2x10x16xf32>
}

// An additive mask, broadcast over batch and heads, added to the scaled
// scores: the mask operand, as the addition broadcast it (the attention
// broadcasts its mask itself).
// CHECK-LABEL: func.func @additive_mask
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x4x12x64xf32>, %[[K:[a-z0-9_]+]]: tensor<2x4x20x64xf32>, %[[V:[a-z0-9_]+]]: tensor<2x4x20x64xf32>, %[[M:[a-z0-9_]+]]: tensor<12x20xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<12x20xf32> scale = 1.250000e-01 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @additive_mask(%q: tensor<2x4x12x64xf32>, %k: tensor<2x4x20x64xf32>, %v: tensor<2x4x20x64xf32>, %m: tensor<12x20xf32>) -> tensor<2x4x12x64xf32> {
  %c = fk.constant dense<1.250000e-01> : tensor<2x4x12x20xf32>
  %kt = fk.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x20x64xf32> -> tensor<2x4x64x20xf32>
  %s = fk.matmul %q, %kt : tensor<2x4x12x64xf32>, tensor<2x4x64x20xf32> -> tensor<2x4x12x20xf32>
  %ss = fk.mul %s, %c : tensor<2x4x12x20xf32>
  %mb = fk.broadcast %m : tensor<12x20xf32> -> tensor<2x4x12x20xf32>
  %sm = fk.add %ss, %mb : tensor<2x4x12x20xf32>
  %p = fk.softmax %sm axis = 3 : tensor<2x4x12x20xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T + mask) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<2x4x12x20xf32>, tensor<2x4x20x64xf32> -> tensor<2x4x12x64xf32>
  return %o : tensor<2x4x12x64xf32>
}

// A causal mask: select(j <= i, s, -inf) of iotas.
// CHECK-LABEL: func.func @causal_select
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<8x16xf32>, %[[K:[a-z0-9_]+]]: tensor<8x16xf32>, %[[V:[a-z0-9_]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.000000e+00 causal = true
// CHECK-NEXT:    return %[[O]]
func.func @causal_select(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %neginf = fk.constant dense<0xFF800000> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %neginf : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.000000e+00 * q @ k^T), causal @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A causal mask written the other way round, select(j > i + Nk - Nq, fill,
// s), with a large negative fill, broadcast over batch and heads; the scores
// scaled before the mask.
// CHECK-LABEL: func.func @causal_hidden_first
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<1x4x6x32xf32>, %[[K:[a-z0-9_]+]]: tensor<1x4x10x32xf32>, %[[V:[a-z0-9_]+]]: tensor<1x4x10x32xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 5.000000e-01 causal = true
// CHECK-NEXT:    return %[[O]]
func.func @causal_hidden_first(%q: tensor<1x4x6x32xf32>, %k: tensor<1x4x10x32xf32>, %v: tensor<1x4x10x32xf32>) -> tensor<1x4x6x32xf32> {
  %fill = fk.constant dense<-1.000000e+09> : tensor<1x4x6x10xf32>
  %half = fk.constant dense<5.000000e-01> : tensor<1x4x6x10xf32>
  %four = fk.constant dense<4> : tensor<6x10xi32>
  %kt = fk.transpose %k perm = [0, 1, 3, 2] : tensor<1x4x10x32xf32> -> tensor<1x4x32x10xf32>
  %s = fk.matmul %q, %kt : tensor<1x4x6x32xf32>, tensor<1x4x32x10xf32> -> tensor<1x4x6x10xf32>
  %j = fk.iota dim = 1 : tensor<6x10xi32>
  %i = fk.iota dim = 0 : tensor<6x10xi32>
  %last = fk.add %i, %four : tensor<6x10xi32>
  %hidden = fk.compare gt, %j, %last : tensor<6x10xi32> -> tensor<6x10xi1>
  %hb = fk.broadcast %hidden : tensor<6x10xi1> -> tensor<1x4x6x10xi1>
  %ss = fk.mul %s, %half : tensor<1x4x6x10xf32>
  %sm = fk.select %hb, %fill, %ss : tensor<1x4x6x10xi1>, tensor<1x4x6x10xf32>
  %p = fk.softmax %sm axis = 3 : tensor<1x4x6x10xf32>
  // expected-remark @+1 {{attention recognized: softmax(5.000000e-01 * q @ k^T), causal @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<1x4x6x10xf32>, tensor<1x4x10x32xf32> -> tensor<1x4x6x32xf32>
  return %o : tensor<1x4x6x32xf32>
}

// Grouped-query attention through the matmuls' batch broadcasting: K and V
// have one head for four query heads.
// CHECK-LABEL: func.func @gqa
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<1x4x30x64xf32>, %[[K:[a-z0-9_]+]]: tensor<1x1x30x64xf32>, %[[V:[a-z0-9_]+]]: tensor<1x1x30x64xf32>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = false : tensor<1x4x30x64xf32>, tensor<1x1x30x64xf32>, tensor<1x1x30x64xf32> -> tensor<1x4x30x64xf32>
// CHECK-NEXT:    return %[[O]]
func.func @gqa(%q: tensor<1x4x30x64xf32>, %k: tensor<1x1x30x64xf32>, %v: tensor<1x1x30x64xf32>) -> tensor<1x4x30x64xf32> {
  %c = fk.constant dense<1.250000e-01> : tensor<1x4x30x30xf32>
  %kt = fk.transpose %k perm = [0, 1, 3, 2] : tensor<1x1x30x64xf32> -> tensor<1x1x64x30xf32>
  %s = fk.matmul %q, %kt : tensor<1x4x30x64xf32>, tensor<1x1x64x30xf32> -> tensor<1x4x30x30xf32>
  %ss = fk.mul %s, %c : tensor<1x4x30x30xf32>
  %p = fk.softmax %ss axis = 3 : tensor<1x4x30x30xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<1x4x30x30xf32>, tensor<1x1x30x64xf32> -> tensor<1x4x30x64xf32>
  return %o : tensor<1x4x30x64xf32>
}

// Grouped-query attention with K and V broadcast over the heads as ops:
// the attention takes the unbroadcast K and V and broadcasts them itself.
// CHECK-LABEL: func.func @gqa_broadcast
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x4x16x64xf16>, %[[K:[a-z0-9_]+]]: tensor<2x1x16x64xf16>, %[[V:[a-z0-9_]+]]: tensor<2x1x16x64xf16>)
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = false : tensor<2x4x16x64xf16>, tensor<2x1x16x64xf16>, tensor<2x1x16x64xf16> -> tensor<2x4x16x64xf16>
// CHECK-NEXT:    return %[[O]]
func.func @gqa_broadcast(%q: tensor<2x4x16x64xf16>, %k: tensor<2x1x16x64xf16>, %v: tensor<2x1x16x64xf16>) -> tensor<2x4x16x64xf16> {
  %c = fk.constant dense<1.250000e-01> : tensor<2x4x16x16xf16>
  %kb = fk.broadcast %k : tensor<2x1x16x64xf16> -> tensor<2x4x16x64xf16>
  %vb = fk.broadcast %v : tensor<2x1x16x64xf16> -> tensor<2x4x16x64xf16>
  %kt = fk.transpose %kb perm = [0, 1, 3, 2] : tensor<2x4x16x64xf16> -> tensor<2x4x64x16xf16>
  %s = fk.matmul %q, %kt : tensor<2x4x16x64xf16>, tensor<2x4x64x16xf16> -> tensor<2x4x16x16xf16>
  %ss = fk.mul %s, %c : tensor<2x4x16x16xf16>
  %p = fk.softmax %ss axis = 3 : tensor<2x4x16x16xf16>
  // expected-remark @+1 {{attention recognized: softmax(1.250000e-01 * q @ k^T) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %vb : tensor<2x4x16x16xf16>, tensor<2x4x16x64xf16> -> tensor<2x4x16x64xf16>
  return %o : tensor<2x4x16x64xf16>
}

// Not attention: a matmul whose left operand is no softmax stays, silently.
// CHECK-LABEL: func.func @plain_matmul
// CHECK-NEXT:    fk.exp
// CHECK-NEXT:    fk.matmul
// CHECK-NEXT:    return
func.func @plain_matmul(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %e = fk.exp %a : tensor<8x16xf32>
  %o = fk.matmul %e, %b : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  return %o : tensor<8x8xf32>
}

// Near miss: the softmax is over the queries.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT:     fk.attention
// CHECK:         fk.softmax
// CHECK-NEXT:    fk.matmul
func.func @softmax_over_queries(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %kt = fk.transpose %k perm = [0, 2, 1] : tensor<2x8x16xf32> -> tensor<2x16x8xf32>
  %s = fk.matmul %q, %kt : tensor<2x8x16xf32>, tensor<2x16x8xf32> -> tensor<2x8x8xf32>
  %p = fk.softmax %s axis = 1 : tensor<2x8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax is over axis 1, not the key axis (2)}}
  %o = fk.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// Near miss: a spelled-out softmax that sums over the queries.
// CHECK-LABEL: func.func @sum_over_queries
// CHECK-NOT:     fk.attention
// CHECK:         fk.reduce_sum {{.*}} axes = [0]
func.func @sum_over_queries(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %e = fk.exp %s : tensor<8x8xf32>
  %sum = fk.reduce_sum %e axes = [0] : tensor<8x8xf32> -> tensor<8xf32>
  %sumr = fk.reshape %sum : tensor<8xf32> -> tensor<1x8xf32>
  %sumb = fk.broadcast %sumr : tensor<1x8xf32> -> tensor<8x8xf32>
  %p = fk.div %e, %sumb : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax reduces axes other than the key axis (1)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: exp(s) divided by the sum of something else.
// CHECK-LABEL: func.func @sum_of_other
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @sum_of_other(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %other: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %e = fk.exp %s : tensor<8x8xf32>
  %sum = fk.reduce_sum %other axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %sumr = fk.reshape %sum : tensor<8xf32> -> tensor<8x1xf32>
  %sumb = fk.broadcast %sumr : tensor<8x1xf32> -> tensor<8x8xf32>
  %p = fk.div %e, %sumb : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the softmax divides by the sum of other values}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: the scores multiplied by a tensor.
// CHECK-LABEL: func.func @tensor_scale
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @tensor_scale(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %w: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ss = fk.mul %s, %w : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores are multiplied by a value that is not a scalar constant}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: the scores divided by a tensor.
// CHECK-LABEL: func.func @tensor_divisor
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @tensor_divisor(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %w: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ss = fk.div %s, %w : tensor<8x8xf32>
  %p = fk.softmax %ss axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores are divided by a value that is not a scalar constant}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: the "mask" is the value itself.
// CHECK-LABEL: func.func @mask_from_value
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @mask_from_value(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %v : tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the mask depends on the value}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %o : tensor<8x8xf32>
}

// Near miss: the mask is computed from the key (a bias per key, the sum of
// its row), without a matmul.
// CHECK-LABEL: func.func @mask_from_key
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @mask_from_key(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ks = fk.reduce_sum %k axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %kb = fk.broadcast %ks : tensor<8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %kb : tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the mask depends on the key}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: the same with K passed transposed; no transpose is left
// behind.
// CHECK-LABEL: func.func @mask_from_pretransposed_key
// CHECK-NOT:     fk.transpose
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @mask_from_pretransposed_key(%q: tensor<8x16xf32>, %kt: tensor<16x8xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ks = fk.reduce_sum %kt axes = [0] : tensor<16x8xf32> -> tensor<8xf32>
  %kb = fk.broadcast %ks : tensor<8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %kb : tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the mask depends on the key}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: two additive masks.
// CHECK-LABEL: func.func @two_masks
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @two_masks(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<8x8xf32>, %n: tensor<8x8xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %m : tensor<8x8xf32>
  %smn = fk.add %sm, %n : tensor<8x8xf32>
  %p = fk.softmax %smn axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores get two additive masks}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: both sides of the addition come from matmuls.
// CHECK-LABEL: func.func @mask_from_matmul
// CHECK-NOT:     fk.attention
// CHECK:         return
func.func @mask_from_matmul(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ab = fk.matmul %a, %b : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %sm = fk.add %s, %ab : tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: neither side of the scores' addition is a mask}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a causal select whose fill (-1) does not mask.
// CHECK-LABEL: func.func @weak_fill
// CHECK-NOT:     fk.attention
// CHECK:         fk.select
func.func @weak_fill(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %fill = fk.constant dense<-1.000000e+00> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %visible = fk.compare le, %j, %i : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %fill : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the causal select's fill is not -inf or a large negative constant (at most -1e4)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A boolean mask: a select on an argument becomes the additive mask
// select(m, 0, -inf).
// CHECK-LABEL: func.func @select_of_argument
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<8x16xf32>, %[[K:[a-z0-9_]+]]: tensor<8x16xf32>, %[[V:[a-z0-9_]+]]: tensor<8x16xf32>, %[[C:[a-z0-9_]+]]: tensor<8x8xi1>)
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = fk.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK-DAG:     %[[NEGINF:[a-z0-9_]+]] = fk.constant dense<0xFF800000> : tensor<8x8xf32>
// CHECK:         %[[M:[a-z0-9_]+]] = fk.select %[[C]], %[[ZERO]], %[[NEGINF]] : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<8x8xf32> scale = 1.000000e+00 causal = false
// CHECK-NEXT:    return %[[O]]
func.func @select_of_argument(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %c: tensor<8x8xi1>) -> tensor<8x16xf32> {
  %neginf = fk.constant dense<0xFF800000> : tensor<8x8xf32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %sm = fk.select %c, %s, %neginf : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.000000e+00 * q @ k^T + (m ? 0 : -inf)) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// A select of iotas off the causal diagonal (j <= i + 1 while Nk - Nq is
// 0) is no causal mask, but still a boolean one.
// CHECK-LABEL: func.func @shifted_diagonal
// CHECK:         %[[M:[a-z0-9_]+]] = fk.select %{{.+}} : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK-NEXT:    fk.attention %{{.+}} mask %[[M]] : tensor<8x8xf32> scale = 1.000000e+00 causal = false
func.func @shifted_diagonal(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %neginf = fk.constant dense<0xFF800000> : tensor<8x8xf32>
  %one = fk.constant dense<1> : tensor<8x8xi32>
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %j = fk.iota dim = 1 : tensor<8x8xi32>
  %i = fk.iota dim = 0 : tensor<8x8xi32>
  %last = fk.add %i, %one : tensor<8x8xi32>
  %visible = fk.compare le, %j, %last : tensor<8x8xi32> -> tensor<8x8xi1>
  %sm = fk.select %visible, %s, %neginf : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention recognized: softmax(1.000000e+00 * q @ k^T + (m ? 0 : -inf)) @ v becomes one fk.attention}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a select whose branches both come from the scores.
// CHECK-LABEL: func.func @select_of_scores
// CHECK-NOT:     fk.attention
// CHECK:         fk.select
func.func @select_of_scores(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %c: tensor<8x8xi1>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %ns = fk.neg %s : tensor<8x8xf32>
  %sm = fk.select %c, %s, %ns : tensor<8x8xi1>, tensor<8x8xf32>
  %p = fk.softmax %sm axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores go through a select that is not a mask: both or neither of its branches are computed from a matmul}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a softmax of an argument.
// CHECK-LABEL: func.func @scores_from_argument
// CHECK-NEXT:    fk.softmax
// CHECK-NEXT:    fk.matmul
func.func @scores_from_argument(%s: tensor<8x8xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %p = fk.softmax %s axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores are not computed by a matmul (found an argument)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// Near miss: a softmax of exp(Q @ K^T).
// CHECK-LABEL: func.func @scores_from_exp
// CHECK-NOT:     fk.attention
// CHECK:         fk.softmax
func.func @scores_from_exp(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %kt = fk.transpose %k perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = fk.matmul %q, %kt : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %e = fk.exp %s : tensor<8x8xf32>
  %p = fk.softmax %e axis = 1 : tensor<8x8xf32>
  // expected-remark @+1 {{attention not recognized: the scores are not computed by a matmul (found fk.exp)}}
  %o = fk.matmul %p, %v : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
