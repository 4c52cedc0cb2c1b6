// fk.compare, fk.select and fk.cast: nan compares unequal, casts to i32 truncate and saturate, casts to f16/bf16 round to nearest even.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// CHECK:      @compare_f32 result #0: tensor<4xi1> [false, true, false, false]
// CHECK-NEXT: @compare_f32 result #1: tensor<4xi1> [true, false, true, true]
// CHECK-NEXT: @compare_f32 result #2: tensor<4xi1> [true, false, false, false]
// CHECK-NEXT: @compare_f32 result #3: tensor<4xi1> [true, true, false, false]
// CHECK-NEXT: @compare_f32 result #4: tensor<4xi1> [false, false, false, true]
// CHECK-NEXT: @compare_f32 result #5: tensor<4xi1> [false, true, false, true]
func.func @compare_f32() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
                             tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = fk.constant dense<[1.0, 2.0, 0x7FC00000, 3.0]> : tensor<4xf32>
  %b = fk.constant dense<[2.0, 2.0, 1.0, 1.0]> : tensor<4xf32>
  %eq = fk.compare eq, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %ne = fk.compare ne, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %lt = fk.compare lt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %le = fk.compare le, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %gt = fk.compare gt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %ge = fk.compare ge, %a, %b : tensor<4xf32> -> tensor<4xi1>
  return %eq, %ne, %lt, %le, %gt, %ge
      : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xi1>
}

// CHECK:      @compare_select_i32 result #0: tensor<2x2xi1> {{\[\[}}true, false], [false, true]]
// CHECK-NEXT: @compare_select_i32 result #1: tensor<2x2xi32> {{\[\[}}-3, 4], [2, -6]]
func.func @compare_select_i32() -> (tensor<2x2xi1>, tensor<2x2xi32>) {
  %a = fk.constant dense<[[-3, 7], [5, -6]]> : tensor<2x2xi32>
  %b = fk.constant dense<[[1, 4], [2, 6]]> : tensor<2x2xi32>
  %lt = fk.compare lt, %a, %b : tensor<2x2xi32> -> tensor<2x2xi1>
  %min = fk.select %lt, %a, %b : tensor<2x2xi1>, tensor<2x2xi32>
  return %lt, %min : tensor<2x2xi1>, tensor<2x2xi32>
}

// f32 -> i32 truncates toward zero, maps nan to 0 and saturates.
// CHECK:      @cast_to_i32 result #0: tensor<5xi32> [2, -2, 0, 2147483647, -2147483648]
func.func @cast_to_i32() -> tensor<5xi32> {
  %a = fk.constant dense<[2.7, -2.7, 0x7FC00000, 3.0e9, -3.0e9]> : tensor<5xf32>
  %r = fk.cast %a : tensor<5xf32> -> tensor<5xi32>
  return %r : tensor<5xi32>
}

// f32 -> f16 rounds 0.1, overflows past the largest half to inf, flushes
// what is below half the smallest subnormal to 0 and keeps subnormals.
// CHECK:      @cast_floats result #0: tensor<4xf16> [0.0999756, inf, 0, 2.99811e-05]
// CHECK-NEXT: @cast_floats result #1: tensor<2xbf16> [2.71875, -0.000999451]
// CHECK-NEXT: @cast_floats result #2: tensor<4xf32> [0.0999756, inf, 0, 2.99811e-05]
// CHECK-NEXT: @cast_floats result #3: tensor<1xf32> [1.67772e+07]
func.func @cast_floats() -> (tensor<4xf16>, tensor<2xbf16>, tensor<4xf32>,
                             tensor<1xf32>) {
  %a = fk.constant dense<[0.1, 65520.0, 1.0e-8, 3.0e-5]> : tensor<4xf32>
  %f16 = fk.cast %a : tensor<4xf32> -> tensor<4xf16>
  %b = fk.constant dense<[2.71828, -1.0e-3]> : tensor<2xf32>
  %bf16 = fk.cast %b : tensor<2xf32> -> tensor<2xbf16>
  %back = fk.cast %f16 : tensor<4xf16> -> tensor<4xf32>
  %i = fk.constant dense<[16777217]> : tensor<1xi32>
  %f = fk.cast %i : tensor<1xi32> -> tensor<1xf32>
  return %f16, %bf16, %back, %f : tensor<4xf16>, tensor<2xbf16>, tensor<4xf32>,
                                  tensor<1xf32>
}

// To i1 is `x != 0`; from i1 gives 0 or 1.
// CHECK:      @cast_bool result #0: tensor<3xi1> [false, true, true]
// CHECK-NEXT: @cast_bool result #1: tensor<3xi1> [false, true, true]
// CHECK-NEXT: @cast_bool result #2: tensor<2xf32> [1, 0]
// CHECK-NEXT: @cast_bool result #3: tensor<2xi32> [1, 0]
func.func @cast_bool() -> (tensor<3xi1>, tensor<3xi1>, tensor<2xf32>,
                           tensor<2xi32>) {
  %i = fk.constant dense<[0, 5, -1]> : tensor<3xi32>
  %ib = fk.cast %i : tensor<3xi32> -> tensor<3xi1>
  %f = fk.constant dense<[0.0, -0.5, 0x7FC00000]> : tensor<3xf32>
  %fb = fk.cast %f : tensor<3xf32> -> tensor<3xi1>
  %b = fk.constant dense<[true, false]> : tensor<2xi1>
  %bf = fk.cast %b : tensor<2xi1> -> tensor<2xf32>
  %bi = fk.cast %b : tensor<2xi1> -> tensor<2xi32>
  return %ib, %fb, %bf, %bi : tensor<3xi1>, tensor<3xi1>, tensor<2xf32>,
                              tensor<2xi32>
}
