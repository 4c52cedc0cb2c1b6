// Reductions over one or several axes: sums and means accumulate in double and round once, i32 sums wrap, max/min propagate nan.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// CHECK:      @reduce_2d result #0: tensor<3xf32> [5, 7, 9]
// CHECK-NEXT: @reduce_2d result #1: tensor<2xf32> [6, 15]
// CHECK-NEXT: @reduce_2d result #2: tensor<f32> 21
// CHECK-NEXT: @reduce_2d result #3: tensor<2xf32> [3, 6]
// CHECK-NEXT: @reduce_2d result #4: tensor<3xf32> [1, 2, 3]
// CHECK-NEXT: @reduce_2d result #5: tensor<2xf32> [2, 5]
// CHECK-NEXT: @reduce_2d result #6: tensor<f32> 3.5
func.func @reduce_2d() -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>,
                           tensor<2xf32>, tensor<3xf32>, tensor<2xf32>,
                           tensor<f32>) {
  %a = fk.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %sum0 = fk.reduce_sum %a axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %sum1 = fk.reduce_sum %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %sum01 = fk.reduce_sum %a axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %max1 = fk.reduce_max %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %min0 = fk.reduce_min %a axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %mean1 = fk.reduce_mean %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %mean01 = fk.reduce_mean %a axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %sum0, %sum1, %sum01, %max1, %min0, %mean1, %mean01
      : tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>,
        tensor<3xf32>, tensor<2xf32>, tensor<f32>
}

// Axes need not be adjacent: [0, 2] of a 2x2x2 tensor.
// CHECK:      @reduce_outer_axes result #0: tensor<2xf32> [14, 22]
// CHECK-NEXT: @reduce_outer_axes result #1: tensor<2xf32> [1, 3]
// CHECK-NEXT: @reduce_outer_axes result #2: tensor<2xf32> [3.5, 5.5]
func.func @reduce_outer_axes() -> (tensor<2xf32>, tensor<2xf32>,
                                   tensor<2xf32>) {
  %a = fk.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]>
      : tensor<2x2x2xf32>
  %sum = fk.reduce_sum %a axes = [0, 2] : tensor<2x2x2xf32> -> tensor<2xf32>
  %min = fk.reduce_min %a axes = [0, 2] : tensor<2x2x2xf32> -> tensor<2xf32>
  %mean = fk.reduce_mean %a axes = [0, 2] : tensor<2x2x2xf32> -> tensor<2xf32>
  return %sum, %min, %mean : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK:      @reduce_i32 result #0: tensor<2xi32> [-2147483648, -7]
// CHECK-NEXT: @reduce_i32 result #1: tensor<2xi32> [2147483647, -3]
// CHECK-NEXT: @reduce_i32 result #2: tensor<2xi32> [1, -4]
func.func @reduce_i32() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = fk.constant dense<[[2147483647, 1], [-3, -4]]> : tensor<2x2xi32>
  %sum = fk.reduce_sum %a axes = [1] : tensor<2x2xi32> -> tensor<2xi32>
  %max = fk.reduce_max %a axes = [1] : tensor<2x2xi32> -> tensor<2xi32>
  %min = fk.reduce_min %a axes = [1] : tensor<2x2xi32> -> tensor<2xi32>
  return %sum, %max, %min : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// 2048 + 1 + 1 in f16: adding one at a time would round 2049 back to 2048
// twice; the reference rounds the exact 2050 once.
// CHECK:      @reduce_f16 result #0: tensor<f16> 2050
// CHECK-NEXT: @reduce_f16 result #1: tensor<f16> 683.5
// CHECK-NEXT: @reduce_f16 result #2: tensor<bf16> 258
func.func @reduce_f16() -> (tensor<f16>, tensor<f16>, tensor<bf16>) {
  %a = fk.constant dense<[2048.0, 1.0, 1.0]> : tensor<3xf16>
  %sum = fk.reduce_sum %a axes = [0] : tensor<3xf16> -> tensor<f16>
  %mean = fk.reduce_mean %a axes = [0] : tensor<3xf16> -> tensor<f16>
  %b = fk.constant dense<[256.0, 1.0, 1.0]> : tensor<3xbf16>
  %bsum = fk.reduce_sum %b axes = [0] : tensor<3xbf16> -> tensor<bf16>
  return %sum, %mean, %bsum : tensor<f16>, tensor<f16>, tensor<bf16>
}

// CHECK:      @reduce_nan result #0: tensor<2xf32> [nan, 3]
// CHECK-NEXT: @reduce_nan result #1: tensor<2xf32> [nan, -inf]
// CHECK-NEXT: @reduce_nan result #2: tensor<2xf32> [nan, -inf]
func.func @reduce_nan() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = fk.constant dense<[[1.0, 0x7FC00000, 3.0], [3.0, 0xFF800000, 2.0]]>
      : tensor<2x3xf32>
  %max = fk.reduce_max %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %min = fk.reduce_min %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %sum = fk.reduce_sum %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %max, %min, %sum : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
