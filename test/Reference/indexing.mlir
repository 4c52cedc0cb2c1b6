// fk.gather normalizes every index (negatives count from the end, others
// clamp), at any axis and index rank; fk.argmax and fk.argmin give the first
// index of the extreme, the first NaN's where there is one. Values checked
// by hand.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// Indices -4..7 on 3 rows: -4 clamps to 0, -3 is 0, -1 is 2, 3 and 7 clamp
// to 2.
// CHECK:      @gather_rows result #0: tensor<7x2xf32> {{\[\[}}0, 1], [0, 1], [20, 21], [0, 1], [20, 21], [20, 21], [20, 21]]
// A rank-0 index drops the axis; a rank-2 one puts its shape in its place.
// CHECK-NEXT: @gather_rows result #1: tensor<3xf32> [1, 11, 21]
// CHECK-NEXT: @gather_rows result #2: tensor<3x2x2xf32> {{\[\[\[}}1, 0], [0, 1]], {{\[\[}}11, 10], [10, 11]], {{\[\[}}21, 20], [20, 21]]]
func.func @gather_rows() -> (tensor<7x2xf32>, tensor<3xf32>, tensor<3x2x2xf32>) {
  %t = fk.constant dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0]]> : tensor<3x2xf32>
  %i = fk.constant dense<[-4, -3, -1, 0, 2, 3, 7]> : tensor<7xi64>
  %r = fk.gather %t, %i axis = 0 : tensor<3x2xf32>, tensor<7xi64> -> tensor<7x2xf32>
  %s = fk.constant dense<-1> : tensor<i32>
  %c = fk.gather %t, %s axis = 1 : tensor<3x2xf32>, tensor<i32> -> tensor<3xf32>
  %m = fk.constant dense<[[1, 0], [0, 5]]> : tensor<2x2xi32>
  %g = fk.gather %t, %m axis = 1 : tensor<3x2xf32>, tensor<2x2xi32> -> tensor<3x2x2xf32>
  return %r, %c, %g : tensor<7x2xf32>, tensor<3xf32>, tensor<3x2x2xf32>
}

// Rows: ties (3, 3), NaN (first at 0), all -inf, +0 and -0 (a tie).
// CHECK:      @arg_rows result #0: tensor<4xi32> [1, 0, 0, 2]
// CHECK-NEXT: @arg_rows result #1: tensor<4xi32> [0, 0, 0, 0]
// Over the non-last axis: the columns [1, nan, -inf, 0], [3, 5, -inf, -0],
// [3, nan, -inf, 1], [2, 1, -inf, 1].
// CHECK-NEXT: @arg_rows result #2: tensor<4xi32> [1, 1, 1, 0]
// CHECK-NEXT: @arg_rows result #3: tensor<4xi32> [1, 2, 1, 2]
func.func @arg_rows() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %x = fk.constant dense<[[1.0, 3.0, 3.0, 2.0], [0x7FC00000, 5.0, 0x7FC00000, 1.0],
                          [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                          [0.0, -0.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %a = fk.argmax %x axis = 1 : tensor<4x4xf32> -> tensor<4xi32>
  %b = fk.argmin %x axis = 1 : tensor<4x4xf32> -> tensor<4xi32>
  %c = fk.argmax %x axis = 0 : tensor<4x4xf32> -> tensor<4xi32>
  %d = fk.argmin %x axis = 0 : tensor<4x4xf32> -> tensor<4xi32>
  return %a, %b, %c, %d : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// Integers: the first of the tied maxima; a single element is index 0.
// CHECK:      @arg_integers result #0: tensor<i32> 0
// CHECK-NEXT: @arg_integers result #1: tensor<i32> 1
// CHECK-NEXT: @arg_integers result #2: tensor<1xi32> [0]
func.func @arg_integers() -> (tensor<i32>, tensor<i32>, tensor<1xi32>) {
  %x = fk.constant dense<[5, -7, 5, 2]> : tensor<4xi64>
  %a = fk.argmax %x axis = 0 : tensor<4xi64> -> tensor<i32>
  %b = fk.argmin %x axis = 0 : tensor<4xi64> -> tensor<i32>
  %o = fk.constant dense<[[3]]> : tensor<1x1xi32>
  %c = fk.argmax %o axis = 1 : tensor<1x1xi32> -> tensor<1xi32>
  return %a, %b, %c : tensor<i32>, tensor<i32>, tensor<1xi32>
}
