// fk.attention computes softmax(scale * q @ k^T + mask) @ v with numpy batch broadcasting; causal query i sees keys j <= i + Nk - Nq, and a query that sees no key gives nan.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// fk-decompose (the decomposition test runs it on these) needs the module's
// target to decide on attentions; these are decomposed on any target.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {

// Scores [1, 0] weigh the rows of v by [0.731059, 0.268941].
// CHECK: @attention result #0: tensor<1x2xf32> {{\[\[}}1.53788, 2.53788]]
func.func @attention() -> tensor<1x2xf32> {
  %q = fk.constant dense<[[1.0, 0.0]]> : tensor<1x2xf32>
  %k = fk.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %v = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = fk.attention %q, %k, %v scale = 1.0 causal = false
      : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// A [1, 2] mask broadcast over the batch of 2 queries is added to the
// scores: [1, 0] + [0, 1] and [0, 1] + [0, 1].
// CHECK: @attention_mask result #0: tensor<2x1x2xf32> {{\[\[\[}}2, 3]], {{\[\[}}2.76159, 3.76159]]]
func.func @attention_mask() -> tensor<2x1x2xf32> {
  %q = fk.constant dense<[[[1.0, 0.0]], [[0.0, 1.0]]]> : tensor<2x1x2xf32>
  %k = fk.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %v = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = fk.constant dense<[[0.0, 1.0]]> : tensor<1x2xf32>
  %r = fk.attention %q, %k, %v mask %m : tensor<1x2xf32> scale = 1.0
      causal = false
      : tensor<2x1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x1x2xf32>
  return %r : tensor<2x1x2xf32>
}

// The second query is masked from every key.
// CHECK: @attention_masked_row result #0: tensor<2x2xf32> {{\[\[}}1, 2], [nan, nan]]
func.func @attention_masked_row() -> tensor<2x2xf32> {
  %q = fk.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %k = fk.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %v = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = fk.constant dense<[[0.0, 0xFF800000], [0xFF800000, 0xFF800000]]>
      : tensor<2x2xf32>
  %r = fk.attention %q, %k, %v mask %m : tensor<2x2xf32> scale = 1.0
      causal = false
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// With equal scores each query averages the values it sees. Nq = 2 < Nk = 3:
// query 0 sees keys 0 and 1, query 1 all three. Nq = 3 > Nk = 2: query 0
// sees no key (nan), query 1 key 0, query 2 keys 0 and 1.
// CHECK:      @attention_causal result #0: tensor<2x1xf32> {{\[\[}}1.5], [3]]
// CHECK-NEXT: @attention_causal result #1: tensor<3x1xf32> {{\[\[}}nan], [1], [2]]
func.func @attention_causal() -> (tensor<2x1xf32>, tensor<3x1xf32>) {
  %q2 = fk.constant dense<0.0> : tensor<2x1xf32>
  %k3 = fk.constant dense<0.0> : tensor<3x1xf32>
  %v3 = fk.constant dense<[[1.0], [2.0], [6.0]]> : tensor<3x1xf32>
  %r = fk.attention %q2, %k3, %v3 scale = 1.0 causal = true
      : tensor<2x1xf32>, tensor<3x1xf32>, tensor<3x1xf32> -> tensor<2x1xf32>
  %q3 = fk.constant dense<0.0> : tensor<3x1xf32>
  %k2 = fk.constant dense<0.0> : tensor<2x1xf32>
  %v2 = fk.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %s = fk.attention %q3, %k2, %v2 scale = 1.0 causal = true
      : tensor<3x1xf32>, tensor<2x1xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  return %r, %s : tensor<2x1xf32>, tensor<3x1xf32>
}

// Query batch [2, 1] and key/value batch [3] broadcast to [2, 3]; the scale
// applies to q @ k^T, and the f16 result is rounded.
// CHECK:      @attention_batched result #0: tensor<2x3x1x1xf32> {{\[\[\[\[}}0.268941]], {{\[\[}}0.537883]], {{\[\[}}1.07577]]], {{\[\[\[}}0.731059]], {{\[\[}}1.46212]], {{\[\[}}2.92423]]]]
// CHECK-NEXT: @attention_batched result #1: tensor<1x2xf16> {{\[\[}}1.53809, 2.53711]]
func.func @attention_batched() -> (tensor<2x3x1x1xf32>, tensor<1x2xf16>) {
  %q = fk.constant dense<[[[[1.0]]], [[[-1.0]]]]> : tensor<2x1x1x1xf32>
  %k = fk.constant dense<[[[1.0], [0.0]], [[1.0], [0.0]], [[1.0], [0.0]]]>
      : tensor<3x2x1xf32>
  %v = fk.constant dense<[[[0.0], [1.0]], [[0.0], [2.0]], [[0.0], [4.0]]]>
      : tensor<3x2x1xf32>
  %r = fk.attention %q, %k, %v scale = 1.0 causal = false
      : tensor<2x1x1x1xf32>, tensor<3x2x1xf32>, tensor<3x2x1xf32>
        -> tensor<2x3x1x1xf32>
  %qh = fk.constant dense<[[1.0, 1.0]]> : tensor<1x2xf16>
  %kh = fk.constant dense<[[1.0, 1.0], [0.0, 0.0]]> : tensor<2x2xf16>
  %vh = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %h = fk.attention %qh, %kh, %vh scale = 0.5 causal = false
      : tensor<1x2xf16>, tensor<2x2xf16>, tensor<2x2xf16> -> tensor<1x2xf16>
  return %r, %h : tensor<2x3x1x1xf32>, tensor<1x2xf16>
}

}
