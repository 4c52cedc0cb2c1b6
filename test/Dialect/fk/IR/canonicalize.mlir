// The folds of FkFolds.cpp under -canonicalize: splat constants fold with the dtype's rounding, identities and compositions of shape ops vanish, and what must not fold stays.
// RUN: fkc-opt %s -canonicalize | FileCheck %s

//===----------------------------------------------------------------------===//
// Elementwise ops of splat constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_binary_f32
// CHECK-DAG:   %[[ADD:.*]] = fk.constant dense<5.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:   %[[SUB:.*]] = fk.constant dense<-1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:   %[[MUL:.*]] = fk.constant dense<6.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:   %[[DIV:.*]] = fk.constant dense<0.666666686> : tensor<2x3xf32>
// CHECK-DAG:   %[[MAX:.*]] = fk.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:   %[[MIN:.*]] = fk.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:   %[[POW:.*]] = fk.constant dense<8.000000e+00> : tensor<2x3xf32>
// CHECK-NOT:   fk.add
// CHECK-NOT:   fk.pow
// CHECK:       return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]], %[[POW]]
func.func @fold_binary_f32() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = fk.constant dense<2.0> : tensor<2x3xf32>
  %b = fk.constant dense<3.0> : tensor<2x3xf32>
  %0 = fk.add %a, %b : tensor<2x3xf32>
  %1 = fk.sub %a, %b : tensor<2x3xf32>
  %2 = fk.mul %a, %b : tensor<2x3xf32>
  %3 = fk.div %a, %b : tensor<2x3xf32>
  %4 = fk.max %a, %b : tensor<2x3xf32>
  %5 = fk.min %a, %b : tensor<2x3xf32>
  %6 = fk.pow %a, %b : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// The sum is rounded to f16 (0.2998046875), not kept at f32 precision
// (0.29992676), and bf16 keeps 8 significant bits.
// CHECK-LABEL: func.func @fold_rounds_to_dtype
// CHECK-DAG:   %[[H:.*]] = fk.constant dense<2.998050e-01> : tensor<4xf16>
// CHECK-DAG:   %[[B:.*]] = fk.constant dense<3.140630e+00> : tensor<4xbf16>
// CHECK:       return %[[H]], %[[B]]
func.func @fold_rounds_to_dtype() -> (tensor<4xf16>, tensor<4xbf16>) {
  %a = fk.constant dense<0.1> : tensor<4xf16>
  %b = fk.constant dense<0.2> : tensor<4xf16>
  %0 = fk.add %a, %b : tensor<4xf16>
  %c = fk.constant dense<3.0> : tensor<4xbf16>
  %d = fk.constant dense<0.14159> : tensor<4xbf16>
  %1 = fk.add %c, %d : tensor<4xbf16>
  return %0, %1 : tensor<4xf16>, tensor<4xbf16>
}

// f16 overflows to inf like the hardware does.
// CHECK-LABEL: func.func @fold_f16_overflow
// CHECK:       %[[INF:.*]] = fk.constant dense<0x7C00> : tensor<f16>
// CHECK:       return %[[INF]]
func.func @fold_f16_overflow() -> tensor<f16> {
  %a = fk.constant dense<60000.0> : tensor<f16>
  %0 = fk.add %a, %a : tensor<f16>
  return %0 : tensor<f16>
}

// i32 wraps around, divides toward zero, and a zero divisor gives 0.
// CHECK-LABEL: func.func @fold_binary_i32
// CHECK-DAG:   %[[ZERO:.*]] = fk.constant dense<0> : tensor<2xi32>
// CHECK-DAG:   %[[QUOT:.*]] = fk.constant dense<-3> : tensor<2xi32>
// CHECK-DAG:   %[[WRAP:.*]] = fk.constant dense<-2147483648> : tensor<2xi32>
// CHECK:       return %[[ZERO]], %[[ZERO]], %[[QUOT]], %[[WRAP]]
func.func @fold_binary_i32() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %big = fk.constant dense<65536> : tensor<2xi32>
  %zero = fk.constant dense<0> : tensor<2xi32>
  %m7 = fk.constant dense<-7> : tensor<2xi32>
  %two = fk.constant dense<2> : tensor<2xi32>
  %max = fk.constant dense<2147483647> : tensor<2xi32>
  %one = fk.constant dense<1> : tensor<2xi32>
  %0 = fk.mul %big, %big : tensor<2xi32>
  %1 = fk.div %m7, %zero : tensor<2xi32>
  %2 = fk.div %m7, %two : tensor<2xi32>
  %3 = fk.add %max, %one : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// CHECK-LABEL: func.func @fold_unary
// CHECK-DAG:   %[[NEG:.*]] = fk.constant dense<-4.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[ABS:.*]] = fk.constant dense<4.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[RELU:.*]] = fk.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[EXP:.*]] = fk.constant dense<54.5981483> : tensor<3xf32>
// CHECK-DAG:   %[[LOG:.*]] = fk.constant dense<1.38629436> : tensor<3xf32>
// CHECK-DAG:   %[[SQRT:.*]] = fk.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[RSQRT:.*]] = fk.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK-DAG:   %[[TANH:.*]] = fk.constant dense<0.999329328> : tensor<3xf32>
// CHECK-DAG:   %[[SIGMOID:.*]] = fk.constant dense<0.982013761> : tensor<3xf32>
// CHECK-DAG:   %[[SILU:.*]] = fk.constant dense<3.92805505> : tensor<3xf32>
// CHECK-DAG:   %[[ERF:.*]] = fk.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[NABS:.*]] = fk.constant dense<7> : tensor<3xi32>
// CHECK-NOT:   fk.neg
// CHECK-NOT:   fk.abs
// CHECK-NOT:   fk.relu
// CHECK:       return %[[NEG]], %[[ABS]], %[[RELU]], %[[EXP]], %[[LOG]], %[[SQRT]], %[[RSQRT]], %[[TANH]], %[[SIGMOID]], %[[SILU]], %[[ERF]], %[[NABS]]
func.func @fold_unary() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>) {
  %four = fk.constant dense<4.0> : tensor<3xf32>
  %mfour = fk.constant dense<-4.0> : tensor<3xf32>
  %0 = fk.neg %four : tensor<3xf32>
  %1 = fk.abs %mfour : tensor<3xf32>
  %2 = fk.relu %mfour : tensor<3xf32>
  %3 = fk.exp %four : tensor<3xf32>
  %4 = fk.log %four : tensor<3xf32>
  %5 = fk.sqrt %four : tensor<3xf32>
  %6 = fk.rsqrt %four : tensor<3xf32>
  %7 = fk.tanh %four : tensor<3xf32>
  %8 = fk.sigmoid %four : tensor<3xf32>
  %9 = fk.silu %four : tensor<3xf32>
  %10 = fk.erf %four : tensor<3xf32>
  %m7 = fk.constant dense<-7> : tensor<3xi32>
  %11 = fk.abs %m7 : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>
}

// Every elementwise op folds on splats through its scalar semantics, the
// ops without a folder of their own included.
// CHECK-LABEL: func.func @fold_through_scalar_semantics
// CHECK-DAG:   %[[GELU:.*]] = fk.constant dense<2.48447585> : tensor<3xf32>
// CHECK-DAG:   %[[GELU_TANH:.*]] = fk.constant dense<2.48491573> : tensor<3xf32>
// CHECK-DAG:   %[[SIN:.*]] = fk.constant dense<0.598472118> : tensor<3xf32>
// CHECK-DAG:   %[[COS:.*]] = fk.constant dense<-0.801143586> : tensor<3xf32>
// CHECK-DAG:   %[[FLOOR:.*]] = fk.constant dense<-3.000000e+00> : tensor<3xf32>
// CHECK-DAG:   %[[LT:.*]] = fk.constant dense<true> : tensor<3xi1>
// CHECK-DAG:   %[[FLOOR_I:.*]] = fk.constant dense<-9> : tensor<3xi32>
// CHECK:       return %[[GELU]], %[[GELU_TANH]], %[[SIN]], %[[COS]], %[[FLOOR]], %[[LT]], %[[FLOOR_I]]
func.func @fold_through_scalar_semantics() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi32>) {
  %x = fk.constant dense<2.5> : tensor<3xf32>
  %mx = fk.constant dense<-2.5> : tensor<3xf32>
  %i = fk.constant dense<-9> : tensor<3xi32>
  %0 = fk.gelu %x approximate = none : tensor<3xf32>
  %1 = fk.gelu %x approximate = tanh : tensor<3xf32>
  %2 = fk.sin %x : tensor<3xf32>
  %3 = fk.cos %x : tensor<3xf32>
  %4 = fk.floor %mx : tensor<3xf32>
  %5 = fk.compare lt, %mx, %x : tensor<3xf32> -> tensor<3xi1>
  %6 = fk.floor %i : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi32>
}

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @identities
// CHECK-SAME:  (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT:   fk.
// CHECK:       return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = fk.constant dense<1.0> : tensor<4xf32>
  %0 = fk.mul %x, %one : tensor<4xf32>
  %1 = fk.mul %one, %x : tensor<4xf32>
  %2 = fk.div %x, %one : tensor<4xf32>
  %n = fk.neg %x : tensor<4xf32>
  %3 = fk.neg %n : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @identities_i32
// CHECK-SAME:  (%[[X:.*]]: tensor<4xi32>)
// CHECK-NOT:   fk.
// CHECK:       return %[[X]], %[[X]]
func.func @identities_i32(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %one = fk.constant dense<1> : tensor<4xi32>
  %0 = fk.mul %x, %one : tensor<4xi32>
  %1 = fk.div %x, %one : tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// x + 0.0 is not x for x = -0.0, x * 0.0 is not 0.0 for inf or NaN, x - x is
// not 0.0 for NaN, 1 / x is not x, and a single -x stays.
// CHECK-LABEL: func.func @no_fold_float_identities
// CHECK-SAME:  (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG:   %[[ZERO:.*]] = fk.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG:   %[[ONE:.*]] = fk.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:       %[[ADD:.*]] = fk.add %[[X]], %[[ZERO]] : tensor<4xf32>
// CHECK:       %[[MUL:.*]] = fk.mul %[[X]], %[[ZERO]] : tensor<4xf32>
// CHECK:       %[[SUB:.*]] = fk.sub %[[X]], %[[X]] : tensor<4xf32>
// CHECK:       %[[DIV:.*]] = fk.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK:       %[[NEG:.*]] = fk.neg %[[X]] : tensor<4xf32>
// CHECK:       return %[[ADD]], %[[MUL]], %[[SUB]], %[[DIV]], %[[NEG]]
func.func @no_fold_float_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = fk.constant dense<0.0> : tensor<4xf32>
  %one = fk.constant dense<1.0> : tensor<4xf32>
  %0 = fk.add %x, %zero : tensor<4xf32>
  %1 = fk.mul %x, %zero : tensor<4xf32>
  %2 = fk.sub %x, %x : tensor<4xf32>
  %3 = fk.div %one, %x : tensor<4xf32>
  %4 = fk.neg %x : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Only splat constants fold: a constant with distinct elements stays an
// operand.
// CHECK-LABEL: func.func @no_fold_non_splat
// CHECK:       fk.add
// CHECK:       fk.exp
// CHECK:       fk.gelu
// CHECK:       fk.compare
func.func @no_fold_non_splat() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  %a = fk.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = fk.constant dense<3.0> : tensor<2xf32>
  %0 = fk.add %a, %b : tensor<2xf32>
  %1 = fk.exp %a : tensor<2xf32>
  %2 = fk.gelu %a approximate = none : tensor<2xf32>
  %3 = fk.compare lt, %a, %b : tensor<2xf32> -> tensor<2xi1>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
}

//===----------------------------------------------------------------------===//
// select and cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_select
// CHECK-SAME:  (%[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT:   fk.select
// CHECK:       return %[[A]], %[[B]], %[[A]]
func.func @fold_select(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %true = fk.constant dense<true> : tensor<4xi1>
  %false = fk.constant dense<false> : tensor<4xi1>
  %0 = fk.select %true, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = fk.select %false, %a, %b : tensor<4xi1>, tensor<4xf32>
  %2 = fk.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @no_fold_select
// CHECK-SAME:  (%[[C:.*]]: tensor<2xi1>, %[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK:       %[[MIXED:.*]] = fk.constant dense<[true, false]> : tensor<2xi1>
// CHECK:       %[[S0:.*]] = fk.select %[[C]], %[[A]], %[[B]]
// CHECK:       %[[S1:.*]] = fk.select %[[MIXED]], %[[A]], %[[B]]
// CHECK:       return %[[S0]], %[[S1]]
func.func @no_fold_select(%c: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %mixed = fk.constant dense<[true, false]> : tensor<2xi1>
  %0 = fk.select %c, %a, %b : tensor<2xi1>, tensor<2xf32>
  %1 = fk.select %mixed, %a, %b : tensor<2xi1>, tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @fold_cast
// CHECK-SAME:  (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG:   %[[BF:.*]] = fk.constant dense<3.140630e+00> : tensor<4xbf16>
// CHECK-DAG:   %[[TRUNC:.*]] = fk.constant dense<-2> : tensor<4xi32>
// CHECK-DAG:   %[[SAT:.*]] = fk.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG:   %[[BOOL:.*]] = fk.constant dense<true> : tensor<4xi1>
// CHECK-NOT:   fk.cast
// CHECK:       return %[[X]], %[[BF]], %[[TRUNC]], %[[SAT]], %[[BOOL]]
func.func @fold_cast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>) {
  %0 = fk.cast %x : tensor<4xf32> -> tensor<4xf32>
  %pi = fk.constant dense<3.14159> : tensor<4xf32>
  %1 = fk.cast %pi : tensor<4xf32> -> tensor<4xbf16>
  %m = fk.constant dense<-2.7> : tensor<4xf32>
  %2 = fk.cast %m : tensor<4xf32> -> tensor<4xi32>
  %big = fk.constant dense<3.0e9> : tensor<4xf32>
  %3 = fk.cast %big : tensor<4xf32> -> tensor<4xi32>
  %4 = fk.cast %m : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @no_fold_cast
// CHECK-SAME:  (%[[X:.*]]: tensor<4xf32>)
// CHECK:       %[[C:.*]] = fk.cast %[[X]] : tensor<4xf32> -> tensor<4xf16>
// CHECK:       return %[[C]]
func.func @no_fold_cast(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = fk.cast %x : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @shape_identities
// CHECK-SAME:  (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT:   fk.
// CHECK:       return %[[X]], %[[X]], %[[X]]
func.func @shape_identities(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fk.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = fk.transpose %x perm = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = fk.broadcast %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// reshape(reshape(x)) is one reshape; reshaping back to x's shape is x.
// CHECK-LABEL: func.func @reshape_compose
// CHECK-SAME:  (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:  %[[R:.*]] = fk.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT:  return %[[R]], %[[X]]
func.func @reshape_compose(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>) {
  %0 = fk.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = fk.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  %2 = fk.reshape %0 : tensor<24xf32> -> tensor<2x3x4xf32>
  return %1, %2 : tensor<4x6xf32>, tensor<2x3x4xf32>
}

// transpose(transpose(x, p), q) is transpose(x, p o q): here [1, 2, 0] then
// [1, 2, 0] is [2, 0, 1]; a perm and its inverse cancel.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME:  (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:  %[[T:.*]] = fk.transpose %[[X]] perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:  return %[[T]], %[[X]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = fk.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = fk.transpose %0 perm = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  %2 = fk.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1, %2 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @broadcast_compose
// CHECK-SAME:  (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT:  %[[B:.*]] = fk.broadcast %[[X]] : tensor<3xf32> -> tensor<5x2x3xf32>
// CHECK-NEXT:  return %[[B]]
func.func @broadcast_compose(%x: tensor<3xf32>) -> tensor<5x2x3xf32> {
  %0 = fk.broadcast %x : tensor<3xf32> -> tensor<2x3xf32>
  %1 = fk.broadcast %0 : tensor<2x3xf32> -> tensor<5x2x3xf32>
  return %1 : tensor<5x2x3xf32>
}

// A shape op of a splat constant is a splat constant of the new shape.
// CHECK-LABEL: func.func @shape_ops_of_splats
// CHECK-DAG:   %[[R:.*]] = fk.constant dense<1.500000e+00> : tensor<6xf32>
// CHECK-DAG:   %[[T:.*]] = fk.constant dense<1.500000e+00> : tensor<3x2xf32>
// CHECK-DAG:   %[[B:.*]] = fk.constant dense<7> : tensor<4x2xi32>
// CHECK-NOT:   fk.reshape
// CHECK-NOT:   fk.transpose
// CHECK-NOT:   fk.broadcast
// CHECK:       return %[[R]], %[[T]], %[[B]]
func.func @shape_ops_of_splats() -> (tensor<6xf32>, tensor<3x2xf32>, tensor<4x2xi32>) {
  %a = fk.constant dense<1.5> : tensor<2x3xf32>
  %0 = fk.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %1 = fk.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %i = fk.constant dense<7> : tensor<2xi32>
  %2 = fk.broadcast %i : tensor<2xi32> -> tensor<4x2xi32>
  return %0, %1, %2 : tensor<6xf32>, tensor<3x2xf32>, tensor<4x2xi32>
}

// A non-identity transpose, a real reshape and a real broadcast of a
// non-constant stay; so does a transpose of a constant with distinct elements.
// CHECK-LABEL: func.func @no_fold_shape_ops
// CHECK-SAME:  (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:       fk.transpose %[[X]] perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK:       fk.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK:       fk.broadcast %[[X]] : tensor<2x3xf32> -> tensor<4x2x3xf32>
// CHECK:       fk.transpose %{{.*}} perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
func.func @no_fold_shape_ops(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<2x2xf32>) {
  %0 = fk.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = fk.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %2 = fk.broadcast %x : tensor<2x3xf32> -> tensor<4x2x3xf32>
  %c = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %3 = fk.transpose %c perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<2x2xf32>
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

// Windows of the whole tensor, a concat of one operand, a pad by nothing and
// empty or full updates are their operand.
// CHECK-LABEL: func.func @slicing_identities
// CHECK-SAME:  (%[[X:.*]]: tensor<2x3xf32>, %[[P:.*]]: tensor<i32>, %[[E:.*]]: tensor<0x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK-NOT:   fk.
// CHECK:       return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @slicing_identities(%x: tensor<2x3xf32>, %p: tensor<i32>, %e: tensor<0x3xf32>, %p2: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fk.slice %x start = [0, 0] step = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = fk.concat %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = fk.pad %x low = [0, 0] high = [0, 0] value = 0.0 : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = fk.dynamic_slice %x start = [%p, 0] : tensor<2x3xf32>, tensor<i32> -> tensor<2x3xf32>
  %4 = fk.update_slice %x, %e start = [%p, 0] : tensor<2x3xf32>, tensor<0x3xf32>, tensor<i32>
  %5 = fk.update_slice %p2, %x start = [0, 0] : tensor<2x3xf32>, tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// slice(slice(x, s1, k1), s2, k2) reads x from s1 + k1 * s2 by k1 * k2; a
// window of one element takes step 1, an empty one starts in bounds.
// CHECK-LABEL: func.func @slice_compose
// CHECK-SAME:  (%[[X:.*]]: tensor<20x9xf32>)
// CHECK-NEXT:  %[[S:.*]] = fk.slice %[[X]] start = [7, 4] step = [6, 1] : tensor<20x9xf32> -> tensor<2x1xf32>
// CHECK-NEXT:  %[[E:.*]] = fk.slice %[[X]] start = [20, 2] step = [1, 1] : tensor<20x9xf32> -> tensor<0x3xf32>
// CHECK-NEXT:  return %[[S]], %[[E]]
func.func @slice_compose(%x: tensor<20x9xf32>) -> (tensor<2x1xf32>, tensor<0x3xf32>) {
  %0 = fk.slice %x start = [1, 2] step = [2, 1] : tensor<20x9xf32> -> tensor<10x7xf32>
  %1 = fk.slice %0 start = [3, 2] step = [3, 1] : tensor<10x7xf32> -> tensor<2x1xf32>
  %2 = fk.slice %0 start = [10, 0] step = [1, 1] : tensor<10x7xf32> -> tensor<0x3xf32>
  return %1, %2 : tensor<2x1xf32>, tensor<0x3xf32>
}

// A start counted from the end of a static dimension (a symbolic one bound)
// is counted from its start, then composes; one of a symbolic dimension
// stays, and a slice of it does not compose.
// CHECK-LABEL: func.func @slice_from_end
// CHECK-SAME:  (%[[X:.*]]: tensor<20x9xf32>, %[[Y:.*]]: tensor<?x9xf32, ["S"]>)
// CHECK-NEXT:  %[[A:.*]] = fk.slice %[[X]] start = [19, 0] step = [1, 1] : tensor<20x9xf32> -> tensor<1x9xf32>
// CHECK-NEXT:  %[[B:.*]] = fk.slice %[[X]] start = [17, 1] step = [1, 1] : tensor<20x9xf32> -> tensor<1x1xf32>
// CHECK-NEXT:  %[[C:.*]] = fk.slice %[[Y]] start = [-3, 0] step = [1, 1] : tensor<?x9xf32, ["S"]> -> tensor<3x9xf32>
// CHECK-NEXT:  %[[D:.*]] = fk.slice %[[C]] start = [1, 0] step = [1, 1] : tensor<3x9xf32> -> tensor<1x9xf32>
// CHECK-NEXT:  return %[[A]], %[[B]], %[[D]]
func.func @slice_from_end(%x: tensor<20x9xf32>, %y: tensor<?x9xf32, ["S"]>) -> (tensor<1x9xf32>, tensor<1x1xf32>, tensor<1x9xf32>) attributes {fk.dim_lower_bounds = {S = 3 : i64}} {
  %0 = fk.slice %x start = [-1, 0] step = [1, 1] : tensor<20x9xf32> -> tensor<1x9xf32>
  %1 = fk.slice %x start = [-4, 0] step = [1, 1] : tensor<20x9xf32> -> tensor<4x9xf32>
  %2 = fk.slice %1 start = [1, 1] step = [1, 1] : tensor<4x9xf32> -> tensor<1x1xf32>
  %3 = fk.slice %y start = [-3, 0] step = [1, 1] : tensor<?x9xf32, ["S"]> -> tensor<3x9xf32>
  %4 = fk.slice %3 start = [1, 0] step = [1, 1] : tensor<3x9xf32> -> tensor<1x9xf32>
  return %0, %2, %4 : tensor<1x9xf32>, tensor<1x1xf32>, tensor<1x9xf32>
}

// Splats: sliced, joined with equal splats or padded with their own value
// they stay splats; other paddings and joins stay.
// CHECK-LABEL: func.func @slicing_splats
// CHECK-DAG:   fk.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-DAG:   fk.constant dense<2.000000e+00> : tensor<7xf32>
// CHECK-DAG:   fk.constant dense<2.000000e+00> : tensor<6xf32>
// CHECK:       fk.concat
// CHECK:       fk.pad
// CHECK-NOT:   fk.slice
func.func @slicing_splats() -> (tensor<2xf32>, tensor<7xf32>, tensor<6xf32>, tensor<7xf32>, tensor<6xf32>) {
  %a = fk.constant dense<2.0> : tensor<4xf32>
  %b = fk.constant dense<2.0> : tensor<3xf32>
  %c = fk.constant dense<1.0> : tensor<3xf32>
  %0 = fk.slice %a start = [1] step = [2] : tensor<4xf32> -> tensor<2xf32>
  %1 = fk.concat %a, %b axis = 0 : tensor<4xf32>, tensor<3xf32> -> tensor<7xf32>
  %2 = fk.pad %a low = [1] high = [1] value = 2.0 : tensor<4xf32> -> tensor<6xf32>
  %3 = fk.concat %a, %c axis = 0 : tensor<4xf32>, tensor<3xf32> -> tensor<7xf32>
  %4 = fk.pad %a low = [1] high = [1] value = 0.0 : tensor<4xf32> -> tensor<6xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<7xf32>, tensor<6xf32>, tensor<7xf32>, tensor<6xf32>
}
