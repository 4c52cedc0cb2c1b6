// fk.matmul: batch dimensions broadcast numpy-style, floats accumulate in double and round once, i32 wraps.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// CHECK: @matmul_2d result #0: tensor<2x2xf32> {{\[\[}}19, 22], [43, 50]]
func.func @matmul_2d() -> tensor<2x2xf32> {
  %a = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = fk.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %r = fk.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// A batched lhs against a matrix, and batch shapes [2, 1] x [1, 3] that
// broadcast to [2, 3]: result[i][j] = lhs[i] . rhs[j].
// CHECK:      @matmul_batched result #0: tensor<2x1x2xf32> {{\[\[\[}}3, 1]], {{\[\[}}0, 1]]]
// CHECK-NEXT: @matmul_batched result #1: tensor<2x3x1x1xf32> {{\[\[\[\[}}1]], {{\[\[}}2]], {{\[\[}}3]]], {{\[\[\[}}3]], {{\[\[}}4]], {{\[\[}}7]]]]
func.func @matmul_batched() -> (tensor<2x1x2xf32>, tensor<2x3x1x1xf32>) {
  %a = fk.constant dense<[[[1.0, 1.0, 1.0]], [[0.0, 1.0, -1.0]]]>
      : tensor<2x1x3xf32>
  %m = fk.constant dense<[[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]]> : tensor<3x2xf32>
  %r = fk.matmul %a, %m : tensor<2x1x3xf32>, tensor<3x2xf32> -> tensor<2x1x2xf32>
  %lhs = fk.constant dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %rhs = fk.constant dense<[[[[1.0], [0.0]], [[0.0], [1.0]], [[1.0], [1.0]]]]>
      : tensor<1x3x2x1xf32>
  %b = fk.matmul %lhs, %rhs
      : tensor<2x1x1x2xf32>, tensor<1x3x2x1xf32> -> tensor<2x3x1x1xf32>
  return %r, %b : tensor<2x1x2xf32>, tensor<2x3x1x1xf32>
}

// 2048 + 1 + 1 is exact in the double accumulator and 2050 is an f16, where
// accumulating in f16 would give 2048; 2048 + 1 is a tie that rounds to
// even, as does 256 + 1 in bf16.
// CHECK:      @matmul_rounding result #0: tensor<1x2xf16> {{\[\[}}2050, 2048]]
// CHECK-NEXT: @matmul_rounding result #1: tensor<1x1xbf16> {{\[\[}}256]]
func.func @matmul_rounding() -> (tensor<1x2xf16>, tensor<1x1xbf16>) {
  %a = fk.constant dense<[[1.0, 1.0, 1.0]]> : tensor<1x3xf16>
  %b = fk.constant dense<[[2048.0, 2048.0], [1.0, 1.0], [1.0, 0.0]]>
      : tensor<3x2xf16>
  %r = fk.matmul %a, %b : tensor<1x3xf16>, tensor<3x2xf16> -> tensor<1x2xf16>
  %c = fk.constant dense<[[1.0, 1.0]]> : tensor<1x2xbf16>
  %d = fk.constant dense<[[256.0], [1.0]]> : tensor<2x1xbf16>
  %s = fk.matmul %c, %d : tensor<1x2xbf16>, tensor<2x1xbf16> -> tensor<1x1xbf16>
  return %r, %s : tensor<1x2xf16>, tensor<1x1xbf16>
}

// 65536 * 65536 + 65536 wraps to 65536.
// CHECK: @matmul_i32 result #0: tensor<1x1xi32> {{\[\[}}65536]]
func.func @matmul_i32() -> tensor<1x1xi32> {
  %a = fk.constant dense<[[65536, 65536]]> : tensor<1x2xi32>
  %b = fk.constant dense<[[65536], [1]]> : tensor<2x1xi32>
  %r = fk.matmul %a, %b : tensor<1x2xi32>, tensor<2x1xi32> -> tensor<1x1xi32>
  return %r : tensor<1x1xi32>
}
