// Elementwise ops compute their scalar semantics (FkElementwiseOps.cpp)
// element by element, rounded to the dtype.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// CHECK:      @binary_f32 result #0: tensor<4xf32> [2.5, 2, 0.5, 2]
// CHECK-NEXT: @binary_f32 result #1: tensor<4xf32> [-0.5, -6, 0.5, 4]
// CHECK-NEXT: @binary_f32 result #2: tensor<4xf32> [1.5, -8, 0, -3]
// CHECK-NEXT: @binary_f32 result #3: tensor<4xf32> [0.666667, -0.5, inf, -3]
// CHECK-NEXT: @binary_f32 result #4: tensor<4xf32> [1.5, 4, 0.5, 3]
// CHECK-NEXT: @binary_f32 result #5: tensor<4xf32> [1, -2, 0, -1]
// CHECK-NEXT: @binary_f32 result #6: tensor<4xf32> [1, 16, 1, 0.333333]
func.func @binary_f32() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                            tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                            tensor<4xf32>) {
  %a = fk.constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
  %b = fk.constant dense<[1.5, 4.0, 0.0, -1.0]> : tensor<4xf32>
  %add = fk.add %a, %b : tensor<4xf32>
  %sub = fk.sub %a, %b : tensor<4xf32>
  %mul = fk.mul %a, %b : tensor<4xf32>
  %div = fk.div %a, %b : tensor<4xf32>
  %max = fk.max %a, %b : tensor<4xf32>
  %min = fk.min %a, %b : tensor<4xf32>
  %pow = fk.pow %a, %b : tensor<4xf32>
  return %add, %sub, %mul, %div, %max, %min, %pow
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// i32 wraps around, divides toward zero and gives 0 for a zero divisor.
// CHECK:      @binary_i32 result #0: tensor<4xi32> [9, -5, 5, -2147483648]
// CHECK-NEXT: @binary_i32 result #1: tensor<4xi32> [5, -9, 5, 2147483646]
// CHECK-NEXT: @binary_i32 result #2: tensor<4xi32> [14, -14, 0, 2147483647]
// CHECK-NEXT: @binary_i32 result #3: tensor<4xi32> [3, -3, 0, 2147483647]
// CHECK-NEXT: @binary_i32 result #4: tensor<4xi32> [7, 2, 5, 2147483647]
// CHECK-NEXT: @binary_i32 result #5: tensor<4xi32> [2, -7, 0, 1]
// CHECK-NEXT: @binary_i32 result #6: tensor<4xi32> [-7, 7, -5, -2147483647]
// CHECK-NEXT: @binary_i32 result #7: tensor<4xi32> [7, 7, 5, 2147483647]
// CHECK-NEXT: @binary_i32 result #8: tensor<4xi32> [7, 0, 5, 2147483647]
func.func @binary_i32() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
                            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
                            tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %a = fk.constant dense<[7, -7, 5, 2147483647]> : tensor<4xi32>
  %b = fk.constant dense<[2, 2, 0, 1]> : tensor<4xi32>
  %add = fk.add %a, %b : tensor<4xi32>
  %sub = fk.sub %a, %b : tensor<4xi32>
  %mul = fk.mul %a, %b : tensor<4xi32>
  %div = fk.div %a, %b : tensor<4xi32>
  %max = fk.max %a, %b : tensor<4xi32>
  %min = fk.min %a, %b : tensor<4xi32>
  %neg = fk.neg %a : tensor<4xi32>
  %abs = fk.abs %a : tensor<4xi32>
  %relu = fk.relu %a : tensor<4xi32>
  return %add, %sub, %mul, %div, %max, %min, %neg, %abs, %relu
      : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>
}

// Values out of a function's domain give nan, and nan propagates.
// CHECK:      @unary_f32 result #0: tensor<4xf32> [1, -0, -0.5, -2]
// CHECK-NEXT: @unary_f32 result #1: tensor<4xf32> [1, 0, 0.5, 2]
// CHECK-NEXT: @unary_f32 result #2: tensor<4xf32> [0, 0, 0.5, 2]
// CHECK-NEXT: @unary_f32 result #3: tensor<4xf32> [0.367879, 1, 1.64872, 7.38906]
// CHECK-NEXT: @unary_f32 result #4: tensor<4xf32> [nan, -inf, -0.693147, 0.693147]
// CHECK-NEXT: @unary_f32 result #5: tensor<4xf32> [nan, 0, 0.707107, 1.41421]
// CHECK-NEXT: @unary_f32 result #6: tensor<4xf32> [nan, inf, 1.41421, 0.707107]
// CHECK-NEXT: @unary_f32 result #7: tensor<4xf32> [-0.761594, 0, 0.462117, 0.964028]
// CHECK-NEXT: @unary_f32 result #8: tensor<4xf32> [0.268941, 0.5, 0.622459, 0.880797]
// CHECK-NEXT: @unary_f32 result #9: tensor<4xf32> [-0.268941, 0, 0.31123, 1.76159]
// CHECK-NEXT: @unary_f32 result #10: tensor<4xf32> [-0.842701, 0, 0.5205, 0.995322]
// CHECK-NEXT: @unary_f32 result #11: tensor<4xf32> [-0.158655, 0, 0.345731, 1.9545]
// CHECK-NEXT: @unary_f32 result #12: tensor<4xf32> [-0.158808, 0, 0.345714, 1.9546]
func.func @unary_f32() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                           tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                           tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                           tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                           tensor<4xf32>) {
  %x = fk.constant dense<[-1.0, 0.0, 0.5, 2.0]> : tensor<4xf32>
  %neg = fk.neg %x : tensor<4xf32>
  %abs = fk.abs %x : tensor<4xf32>
  %relu = fk.relu %x : tensor<4xf32>
  %exp = fk.exp %x : tensor<4xf32>
  %log = fk.log %x : tensor<4xf32>
  %sqrt = fk.sqrt %x : tensor<4xf32>
  %rsqrt = fk.rsqrt %x : tensor<4xf32>
  %tanh = fk.tanh %x : tensor<4xf32>
  %sigmoid = fk.sigmoid %x : tensor<4xf32>
  %silu = fk.silu %x : tensor<4xf32>
  %erf = fk.erf %x : tensor<4xf32>
  %gelu = fk.gelu %x approximate = none : tensor<4xf32>
  %gelu_tanh = fk.gelu %x approximate = tanh : tensor<4xf32>
  return %neg, %abs, %relu, %exp, %log, %sqrt, %rsqrt, %tanh, %sigmoid, %silu,
         %erf, %gelu, %gelu_tanh
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>
}

// floor keeps -0, inf and NaN; sin and cos of inf are NaN; f16 rounds after
// each op; floor of i32 is the value itself.
// CHECK:      @trig_floor result #0: tensor<6xf32> [-2, -1, -0, 1, inf, nan]
// CHECK-NEXT: @trig_floor result #1: tensor<6xf32> [-0.909297, -0.479426, -0, 0.841471, nan, nan]
// CHECK-NEXT: @trig_floor result #2: tensor<6xf32> [-0.416147, 0.877583, 1, 0.540302, nan, nan]
// CHECK-NEXT: @trig_floor result #3: tensor<6xf16> [-0.90918, -0.479492, -0, 0.841309, nan, nan]
// CHECK-NEXT: @trig_floor result #4: tensor<2xi32> [-7, 2147483647]
func.func @trig_floor() -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
                            tensor<6xf16>, tensor<2xi32>) {
  %x = fk.constant dense<[-2.0, -0.5, -0.0, 1.0, 0x7F800000, 0x7FC00000]>
      : tensor<6xf32>
  %floor = fk.floor %x : tensor<6xf32>
  %sin = fk.sin %x : tensor<6xf32>
  %cos = fk.cos %x : tensor<6xf32>
  %h = fk.cast %x : tensor<6xf32> -> tensor<6xf16>
  %sin_h = fk.sin %h : tensor<6xf16>
  %i = fk.constant dense<[-7, 2147483647]> : tensor<2xi32>
  %floor_i = fk.floor %i : tensor<2xi32>
  return %floor, %sin, %cos, %sin_h, %floor_i
      : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf16>,
        tensor<2xi32>
}

// CHECK:      @nan_f32 result #0: tensor<3xf32> [nan, nan, 1]
// CHECK-NEXT: @nan_f32 result #1: tensor<3xf32> [nan, nan, 0]
// CHECK-NEXT: @nan_f32 result #2: tensor<3xf32> [nan, inf, 0]
func.func @nan_f32() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = fk.constant dense<[0x7FC00000, 1.0, 1.0]> : tensor<3xf32>
  %b = fk.constant dense<[1.0, 0x7FC00000, 0.0]> : tensor<3xf32>
  %inf = fk.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]>
      : tensor<3xf32>
  %max = fk.max %a, %b : tensor<3xf32>
  %min = fk.min %a, %b : tensor<3xf32>
  %relu = fk.relu %inf : tensor<3xf32>
  return %max, %min, %relu : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// Each op rounds its result to f16 or bf16: 0.1 * 0.1, 1 + 0.0004 (below half
// an ulp), 60000 + 60000 (overflow), and a tie in bf16 that rounds to even.
// CHECK:      @binary_f16 result #0: tensor<3xf16> [0.00999451, 0.000400066, inf]
// CHECK-NEXT: @binary_f16 result #1: tensor<3xf16> [0.199951, 1, inf]
// CHECK-NEXT: @binary_f16 result #2: tensor<2xbf16> [1, 1.01562]
func.func @binary_f16() -> (tensor<3xf16>, tensor<3xf16>, tensor<2xbf16>) {
  %a = fk.constant dense<[0.1, 1.0, 60000.0]> : tensor<3xf16>
  %b = fk.constant dense<[0.1, 0.0004, 60000.0]> : tensor<3xf16>
  %mul = fk.mul %a, %b : tensor<3xf16>
  %add = fk.add %a, %b : tensor<3xf16>
  %c = fk.constant dense<[1.0, 1.0]> : tensor<2xbf16>
  %d = fk.constant dense<[0.00390625, 0.01171875]> : tensor<2xbf16>
  %bf = fk.add %c, %d : tensor<2xbf16>
  return %mul, %add, %bf : tensor<3xf16>, tensor<3xf16>, tensor<2xbf16>
}
