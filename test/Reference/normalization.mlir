// fk.softmax, fk.layernorm (biased variance) and fk.rmsnorm along their axis, computed in double and rounded to the dtype.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// A row of -inf has no maximum to subtract: exp(-inf - -inf) is nan, as in
// the unfused graph.
// CHECK:      @softmax result #0: tensor<3x3xf32> {{\[\[}}0.0900306, 0.244728, 0.665241], [0, 0.5, 0.5], [nan, nan, nan]]
// CHECK-NEXT: @softmax result #1: tensor<2x2xf32> {{\[\[}}0.5, 0.268941], [0.5, 0.731059]]
// CHECK-NEXT: @softmax result #2: tensor<1x3xf16> {{\[\[}}0.0900269, 0.244751, 0.665039]]
func.func @softmax() -> (tensor<3x3xf32>, tensor<2x2xf32>, tensor<1x3xf16>) {
  %a = fk.constant dense<[[1.0, 2.0, 3.0], [0xFF800000, 0.0, 0.0],
                          [0xFF800000, 0xFF800000, 0xFF800000]]>
      : tensor<3x3xf32>
  %s = fk.softmax %a axis = 1 : tensor<3x3xf32>
  %b = fk.constant dense<[[5.0, 0.0], [5.0, 1.0]]> : tensor<2x2xf32>
  %t = fk.softmax %b axis = 0 : tensor<2x2xf32>
  %c = fk.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf16>
  %u = fk.softmax %c axis = 1 : tensor<1x3xf16>
  return %s, %t, %u : tensor<3x3xf32>, tensor<2x2xf32>, tensor<1x3xf16>
}

// [1, 2, 3, 4] has mean 2.5 and biased variance 1.25. Along axis 0 of
// [[1, 2], [3, 6]] the columns have variances 1 and 4.
// CHECK:      @layernorm result #0: tensor<1x4xf32> {{\[\[}}-1.34164, 0.552786, 0.894427, 3.68328]]
// CHECK-NEXT: @layernorm result #1: tensor<1x4xf32> {{\[\[}}-1.06066, -0.353553, 0.353553, 1.06066]]
// CHECK-NEXT: @layernorm result #2: tensor<2x2xf32> {{\[\[}}-1, -1], [1, 1]]
func.func @layernorm() -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x2xf32>) {
  %x = fk.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %g = fk.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %b = fk.constant dense<[0.0, 1.0, 0.0, 1.0]> : tensor<4xf32>
  %r = fk.layernorm %x, %g, %b axis = 1 eps = 0.0
      : tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>
  %ones = fk.constant dense<1.0> : tensor<4xf32>
  %zeros = fk.constant dense<0.0> : tensor<4xf32>
  %e = fk.layernorm %x, %ones, %zeros axis = 1 eps = 0.75
      : tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>
  %y = fk.constant dense<[[1.0, 2.0], [3.0, 6.0]]> : tensor<2x2xf32>
  %g2 = fk.constant dense<1.0> : tensor<2xf32>
  %b2 = fk.constant dense<0.0> : tensor<2xf32>
  %c = fk.layernorm %y, %g2, %b2 axis = 0 eps = 0.0
      : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>
  return %r, %e, %c : tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x2xf32>
}

// [3, 4] has mean square 12.5, [0, 2] has 2; gamma is [1, 2].
// CHECK:      @rmsnorm result #0: tensor<2x2xf32> {{\[\[}}0.848528, 2.26274], [0, 2.82843]]
// CHECK-NEXT: @rmsnorm result #1: tensor<1x2xf16> {{\[\[}}0.848633, 2.26367]]
func.func @rmsnorm() -> (tensor<2x2xf32>, tensor<1x2xf16>) {
  %x = fk.constant dense<[[3.0, 4.0], [0.0, 2.0]]> : tensor<2x2xf32>
  %g = fk.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = fk.rmsnorm %x, %g eps = 0.0 : tensor<2x2xf32>, tensor<2xf32>
  %h = fk.constant dense<[[3.0, 4.0]]> : tensor<1x2xf16>
  %gh = fk.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %s = fk.rmsnorm %h, %gh eps = 0.0 : tensor<1x2xf16>, tensor<2xf16>
  return %r, %s : tensor<2x2xf32>, tensor<1x2xf16>
}
