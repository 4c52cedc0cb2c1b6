// fk.constant (dense and splat), fk.iota, fk.reshape, fk.transpose and numpy-style fk.broadcast move elements as documented.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// CHECK:      @generators result #0: tensor<2x3xi32> {{\[\[}}0, 1, 2], [0, 1, 2]]
// CHECK-NEXT: @generators result #1: tensor<2x3xf32> {{\[\[}}0, 0, 0], [1, 1, 1]]
// CHECK-NEXT: @generators result #2: tensor<2x2xf16> {{\[\[}}0.5, 0.5], [0.5, 0.5]]
// CHECK-NEXT: @generators result #3: tensor<f32> -1.5
func.func @generators() -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x2xf16>,
                            tensor<f32>) {
  %i = fk.iota dim = 1 : tensor<2x3xi32>
  %f = fk.iota dim = 0 : tensor<2x3xf32>
  %s = fk.constant dense<0.5> : tensor<2x2xf16>
  %r = fk.constant dense<-1.5> : tensor<f32>
  return %i, %f, %s, %r : tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x2xf16>,
                          tensor<f32>
}

// CHECK:      @reshape result #0: tensor<3x2xf32> {{\[\[}}1, 2], [3, 4], [5, 6]]
// CHECK-NEXT: @reshape result #1: tensor<6xf32> [1, 2, 3, 4, 5, 6]
func.func @reshape() -> (tensor<3x2xf32>, tensor<6xf32>) {
  %a = fk.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = fk.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %f = fk.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  return %r, %f : tensor<3x2xf32>, tensor<6xf32>
}

// Result dimension i is operand dimension perm[i]: with perm [2, 0, 1],
// result[i][j][k] = a[j][k][i] = 6j + 3k + i.
// CHECK:      @transpose result #0: tensor<3x2xf32> {{\[\[}}1, 4], [2, 5], [3, 6]]
// CHECK-NEXT: @transpose result #1: tensor<3x2x2xi32> {{\[\[\[}}0, 3], [6, 9]], {{\[\[}}1, 4], [7, 10]], {{\[\[}}2, 5], [8, 11]]]
func.func @transpose() -> (tensor<3x2xf32>, tensor<3x2x2xi32>) {
  %a = fk.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = fk.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = fk.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]>
      : tensor<2x2x3xi32>
  %u = fk.transpose %b perm = [2, 0, 1] : tensor<2x2x3xi32> -> tensor<3x2x2xi32>
  return %t, %u : tensor<3x2xf32>, tensor<3x2x2xi32>
}

// Operand dimensions align with the trailing result dimensions; size-1
// dimensions repeat.
// CHECK:      @broadcast result #0: tensor<2x3xf32> {{\[\[}}1, 2, 3], [1, 2, 3]]
// CHECK-NEXT: @broadcast result #1: tensor<2x3xf32> {{\[\[}}1, 1, 1], [2, 2, 2]]
// CHECK-NEXT: @broadcast result #2: tensor<2x2x3xf32> {{\[\[\[}}1, 2, 3], [1, 2, 3]], {{\[\[}}1, 2, 3], [1, 2, 3]]]
// CHECK-NEXT: @broadcast result #3: tensor<2x2xi1> {{\[\[}}true, true], [true, true]]
func.func @broadcast() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>,
                           tensor<2x2xi1>) {
  %row = fk.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = fk.broadcast %row : tensor<3xf32> -> tensor<2x3xf32>
  %col = fk.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %c = fk.broadcast %col : tensor<2x1xf32> -> tensor<2x3xf32>
  %row2 = fk.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %r3 = fk.broadcast %row2 : tensor<1x3xf32> -> tensor<2x2x3xf32>
  %scalar = fk.constant dense<true> : tensor<i1>
  %s = fk.broadcast %scalar : tensor<i1> -> tensor<2x2xi1>
  return %r, %c, %r3, %s : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>,
                           tensor<2x2xi1>
}
