// i64 arithmetic beyond the i32 range, its wrap-around, division and casts
// to and from it (language.md section 4 and `cast`). Values checked by hand.
// The interpreter's doubles are exact for these: all are within 2^53 or
// powers of two.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// 3e9 * 3, 3e9 + 3e9, -7 / 2 and 7 / 0, the sum of two 2^32, |x|.
// CHECK:      @arithmetic result #0: tensor<2xi64> [9000000000, -9000000000]
// CHECK-NEXT: @arithmetic result #1: tensor<2xi64> [6000000000, -6000000000]
// CHECK-NEXT: @arithmetic result #2: tensor<2xi64> [-3, 0]
// CHECK-NEXT: @arithmetic result #3: tensor<i64> 8589934592
// CHECK-NEXT: @arithmetic result #4: tensor<2xi64> [3000000000, 3000000000]
func.func @arithmetic() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<2xi64>) {
  %a = fk.constant dense<[3000000000, -3000000000]> : tensor<2xi64>
  %three = fk.constant dense<3> : tensor<2xi64>
  %m = fk.mul %a, %three : tensor<2xi64>
  %s = fk.add %a, %a : tensor<2xi64>
  %n = fk.constant dense<[-7, 7]> : tensor<2xi64>
  %d = fk.constant dense<[2, 0]> : tensor<2xi64>
  %q = fk.div %n, %d : tensor<2xi64>
  %big = fk.constant dense<4294967296> : tensor<2xi64>
  %t = fk.reduce_sum %big axes = [0] : tensor<2xi64> -> tensor<i64>
  %abs = fk.abs %a : tensor<2xi64>
  return %m, %s, %q, %t, %abs : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<i64>, tensor<2xi64>
}

// 2^62 * 2 wraps to -2^63, 2^62 * 4 to 0; -2^63 / -1 wraps to -2^63.
// CHECK:      @wrap result #0: tensor<2xi64> [-9223372036854775808, 0]
// CHECK-NEXT: @wrap result #1: tensor<i64> -9223372036854775808
func.func @wrap() -> (tensor<2xi64>, tensor<i64>) {
  %a = fk.constant dense<4611686018427387904> : tensor<2xi64>
  %k = fk.constant dense<[2, 4]> : tensor<2xi64>
  %m = fk.mul %a, %k : tensor<2xi64>
  %min = fk.constant dense<-9223372036854775808> : tensor<i64>
  %minus = fk.constant dense<-1> : tensor<i64>
  %q = fk.div %min, %minus : tensor<i64>
  return %m, %q : tensor<2xi64>, tensor<i64>
}

// i64 to i32 keeps the low 32 bits; i32 to i64 sign extends; float to i64
// truncates, saturates and maps NaN to 0; i64 to f32 rounds to nearest even
// (2^24 + 1 to 2^24); to i1 is x != 0.
// CHECK:      @casts result #0: tensor<3xi32> [2, -1, -2147483648]
// CHECK-NEXT: @casts result #1: tensor<2xi64> [-5, 2147483647]
// CHECK-NEXT: @casts result #2: tensor<4xi64> [9223372036854775807, -9223372036854775808, 0, -2]
// CHECK-NEXT: @casts result #3: tensor<f32> 1.67772e+07
// CHECK-NEXT: @casts result #4: tensor<2xi1> [false, true]
func.func @casts() -> (tensor<3xi32>, tensor<2xi64>, tensor<4xi64>, tensor<f32>, tensor<2xi1>) {
  %w = fk.constant dense<[4294967298, -1, 2147483648]> : tensor<3xi64>
  %n = fk.cast %w : tensor<3xi64> -> tensor<3xi32>
  %i = fk.constant dense<[-5, 2147483647]> : tensor<2xi32>
  %e = fk.cast %i : tensor<2xi32> -> tensor<2xi64>
  %f = fk.constant dense<[1.0e20, -1.0e20, 0x7FC00000, -2.7]> : tensor<4xf32>
  %t = fk.cast %f : tensor<4xf32> -> tensor<4xi64>
  %o = fk.constant dense<16777217> : tensor<i64>
  %r = fk.cast %o : tensor<i64> -> tensor<f32>
  %z = fk.constant dense<[0, 5]> : tensor<2xi64>
  %b = fk.cast %z : tensor<2xi64> -> tensor<2xi1>
  return %n, %e, %t, %r, %b : tensor<3xi32>, tensor<2xi64>, tensor<4xi64>, tensor<f32>, tensor<2xi1>
}
