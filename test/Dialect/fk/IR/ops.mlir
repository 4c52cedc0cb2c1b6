// Every fk op parses, prints and parses again to the same text (one func per op family).
// RUN: fkc-opt %s | fkc-opt | FileCheck %s

// CHECK-LABEL: func.func @constants_and_generators
// CHECK:      fk.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: fk.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NEXT: fk.constant dense<true> : tensor<i1>
// CHECK-NEXT: fk.constant dense<1.000000e+00> : tensor<2xbf16>
// CHECK-NEXT: fk.iota dim = 1 : tensor<4x8xi32>
// CHECK-NEXT: fk.iota dim = 0 : tensor<5xf16>
func.func @constants_and_generators() -> (tensor<4x8xf32>, tensor<3xi32>, tensor<i1>, tensor<2xbf16>, tensor<4x8xi32>, tensor<5xf16>) {
  %0 = fk.constant dense<2.0> : tensor<4x8xf32>
  %1 = fk.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = fk.constant dense<true> : tensor<i1>
  %3 = fk.constant dense<1.0> : tensor<2xbf16>
  %4 = fk.iota dim = 1 : tensor<4x8xi32>
  %5 = fk.iota dim = 0 : tensor<5xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<3xi32>, tensor<i1>, tensor<2xbf16>, tensor<4x8xi32>, tensor<5xf16>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME:  (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<3xi32>, %[[H:.*]]: tensor<f16>)
// CHECK:      fk.add %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.sub %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.mul %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.div %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.max %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.min %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.pow %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK-NEXT: fk.add %[[I]], %[[I]] : tensor<3xi32>
// CHECK-NEXT: fk.div %[[I]], %[[I]] : tensor<3xi32>
// CHECK-NEXT: fk.pow %[[H]], %[[H]] : tensor<f16>
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<3xi32>, %h: tensor<f16>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<3xi32>, tensor<3xi32>, tensor<f16>) {
  %0 = fk.add %a, %b : tensor<4x8xf32>
  %1 = fk.sub %a, %b : tensor<4x8xf32>
  %2 = fk.mul %a, %b : tensor<4x8xf32>
  %3 = fk.div %a, %b : tensor<4x8xf32>
  %4 = fk.max %a, %b : tensor<4x8xf32>
  %5 = fk.min %a, %b : tensor<4x8xf32>
  %6 = fk.pow %a, %b : tensor<4x8xf32>
  %7 = fk.add %i, %i : tensor<3xi32>
  %8 = fk.div %i, %i : tensor<3xi32>
  %9 = fk.pow %h, %h : tensor<f16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<3xi32>, tensor<3xi32>, tensor<f16>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME:  (%[[A:.*]]: tensor<4xbf16>, %[[I:.*]]: tensor<4xi32>)
// CHECK:      fk.neg %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.abs %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.relu %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.exp %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.log %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.sqrt %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.rsqrt %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.tanh %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.sigmoid %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.silu %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.erf %[[A]] : tensor<4xbf16>
// CHECK-NEXT: fk.gelu %[[A]] approximate = none : tensor<4xbf16>
// CHECK-NEXT: fk.gelu %[[A]] approximate = tanh : tensor<4xbf16>
// CHECK-NEXT: fk.neg %[[I]] : tensor<4xi32>
// CHECK-NEXT: fk.abs %[[I]] : tensor<4xi32>
// CHECK-NEXT: fk.relu %[[I]] : tensor<4xi32>
func.func @unary(%a: tensor<4xbf16>, %i: tensor<4xi32>)
    -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = fk.neg %a : tensor<4xbf16>
  %1 = fk.abs %a : tensor<4xbf16>
  %2 = fk.relu %a : tensor<4xbf16>
  %3 = fk.exp %a : tensor<4xbf16>
  %4 = fk.log %a : tensor<4xbf16>
  %5 = fk.sqrt %a : tensor<4xbf16>
  %6 = fk.rsqrt %a : tensor<4xbf16>
  %7 = fk.tanh %a : tensor<4xbf16>
  %8 = fk.sigmoid %a : tensor<4xbf16>
  %9 = fk.silu %a : tensor<4xbf16>
  %10 = fk.erf %a : tensor<4xbf16>
  %11 = fk.gelu %a approximate = none : tensor<4xbf16>
  %12 = fk.gelu %a approximate = tanh : tensor<4xbf16>
  %13 = fk.neg %i : tensor<4xi32>
  %14 = fk.abs %i : tensor<4xi32>
  %15 = fk.relu %i : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @compare_select_cast
// CHECK-SAME:  (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x3xi1>)
// CHECK:      %[[EQ:.*]] = fk.compare eq, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare ne, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare lt, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare le, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare gt, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare ge, %[[A]], %[[B]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT: fk.compare eq, %[[C]], %[[C]] : tensor<2x3xi1> -> tensor<2x3xi1>
// CHECK-NEXT: fk.select %[[EQ]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK-NEXT: fk.cast %[[A]] : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK-NEXT: fk.cast %[[A]] : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK-NEXT: fk.cast %[[C]] : tensor<2x3xi1> -> tensor<2x3xbf16>
func.func @compare_select_cast(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xi1>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>, tensor<2x3xi32>, tensor<2x3xbf16>) {
  %0 = fk.compare eq, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %1 = fk.compare ne, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %2 = fk.compare lt, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %3 = fk.compare le, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %4 = fk.compare gt, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %5 = fk.compare ge, %a, %b : tensor<2x3xf32> -> tensor<2x3xi1>
  %6 = fk.compare eq, %c, %c : tensor<2x3xi1> -> tensor<2x3xi1>
  %7 = fk.select %0, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  %8 = fk.cast %a : tensor<2x3xf32> -> tensor<2x3xf16>
  %9 = fk.cast %a : tensor<2x3xf32> -> tensor<2x3xi32>
  %10 = fk.cast %c : tensor<2x3xi1> -> tensor<2x3xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>, tensor<2x3xi32>, tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME:  (%[[A:.*]]: tensor<2x3x4xf16>, %[[I:.*]]: tensor<5xi32>)
// CHECK:      fk.reduce_sum %[[A]] axes = [1] : tensor<2x3x4xf16> -> tensor<2x4xf16>
// CHECK-NEXT: fk.reduce_max %[[A]] axes = [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
// CHECK-NEXT: fk.reduce_min %[[A]] axes = [0, 1, 2] : tensor<2x3x4xf16> -> tensor<f16>
// CHECK-NEXT: fk.reduce_mean %[[A]] axes = [2] : tensor<2x3x4xf16> -> tensor<2x3xf16>
// CHECK-NEXT: fk.reduce_sum %[[I]] axes = [0] : tensor<5xi32> -> tensor<i32>
func.func @reductions(%a: tensor<2x3x4xf16>, %i: tensor<5xi32>) -> (tensor<2x4xf16>, tensor<3xf16>, tensor<f16>, tensor<2x3xf16>, tensor<i32>) {
  %0 = fk.reduce_sum %a axes = [1] : tensor<2x3x4xf16> -> tensor<2x4xf16>
  %1 = fk.reduce_max %a axes = [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
  %2 = fk.reduce_min %a axes = [0, 1, 2] : tensor<2x3x4xf16> -> tensor<f16>
  %3 = fk.reduce_mean %a axes = [2] : tensor<2x3x4xf16> -> tensor<2x3xf16>
  %4 = fk.reduce_sum %i axes = [0] : tensor<5xi32> -> tensor<i32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf16>, tensor<3xf16>, tensor<f16>, tensor<2x3xf16>, tensor<i32>
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME:  (%[[A:.*]]: tensor<2x3x4xf32>, %[[V:.*]]: tensor<4xi1>)
// CHECK:      fk.reshape %[[A]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: fk.reshape %[[A]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: fk.transpose %[[A]] perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: fk.broadcast %[[V]] : tensor<4xi1> -> tensor<2x3x4xi1>
// CHECK-NEXT: fk.broadcast %[[A]] : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
func.func @shapes(%a: tensor<2x3x4xf32>, %v: tensor<4xi1>) -> (tensor<6x4xf32>, tensor<24xf32>, tensor<4x2x3xf32>, tensor<2x3x4xi1>, tensor<5x2x3x4xf32>) {
  %0 = fk.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = fk.reshape %a : tensor<2x3x4xf32> -> tensor<24xf32>
  %2 = fk.transpose %a perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %3 = fk.broadcast %v : tensor<4xi1> -> tensor<2x3x4xi1>
  %4 = fk.broadcast %a : tensor<2x3x4xf32> -> tensor<5x2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<24xf32>, tensor<4x2x3xf32>, tensor<2x3x4xi1>, tensor<5x2x3x4xf32>
}

// CHECK-LABEL: func.func @indexing
// CHECK-SAME:  (%[[T:.*]]: tensor<9x4xf16>, %[[I:.*]]: tensor<2x3xi64>, %[[S:.*]]: tensor<i32>, %[[X:.*]]: tensor<3x5xi64>)
// CHECK:      fk.gather %[[T]], %[[I]] axis = 0 : tensor<9x4xf16>, tensor<2x3xi64> -> tensor<2x3x4xf16>
// CHECK-NEXT: fk.gather %[[T]], %[[S]] axis = 1 : tensor<9x4xf16>, tensor<i32> -> tensor<9xf16>
// CHECK-NEXT: fk.argmax %[[X]] axis = 1 : tensor<3x5xi64> -> tensor<3xi32>
// CHECK-NEXT: fk.argmin %[[T]] axis = 0 : tensor<9x4xf16> -> tensor<4xi32>
func.func @indexing(%t: tensor<9x4xf16>, %i: tensor<2x3xi64>, %s: tensor<i32>, %x: tensor<3x5xi64>) -> (tensor<2x3x4xf16>, tensor<9xf16>, tensor<3xi32>, tensor<4xi32>) {
  %0 = fk.gather %t, %i axis = 0 : tensor<9x4xf16>, tensor<2x3xi64> -> tensor<2x3x4xf16>
  %1 = fk.gather %t, %s axis = 1 : tensor<9x4xf16>, tensor<i32> -> tensor<9xf16>
  %2 = fk.argmax %x axis = 1 : tensor<3x5xi64> -> tensor<3xi32>
  %3 = fk.argmin %t axis = 0 : tensor<9x4xf16> -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<2x3x4xf16>, tensor<9xf16>, tensor<3xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:  (%[[A:.*]]: tensor<2x4x8xf16>, %[[B:.*]]: tensor<8x16xf16>, %[[C:.*]]: tensor<3x1x5x2xi32>, %[[D:.*]]: tensor<4x2x6xi32>)
// CHECK:      fk.matmul %[[A]], %[[B]] : tensor<2x4x8xf16>, tensor<8x16xf16> -> tensor<2x4x16xf16>
// CHECK-NEXT: fk.matmul %[[C]], %[[D]] : tensor<3x1x5x2xi32>, tensor<4x2x6xi32> -> tensor<3x4x5x6xi32>
func.func @matmul(%a: tensor<2x4x8xf16>, %b: tensor<8x16xf16>, %c: tensor<3x1x5x2xi32>, %d: tensor<4x2x6xi32>) -> (tensor<2x4x16xf16>, tensor<3x4x5x6xi32>) {
  %0 = fk.matmul %a, %b : tensor<2x4x8xf16>, tensor<8x16xf16> -> tensor<2x4x16xf16>
  %1 = fk.matmul %c, %d : tensor<3x1x5x2xi32>, tensor<4x2x6xi32> -> tensor<3x4x5x6xi32>
  return %0, %1 : tensor<2x4x16xf16>, tensor<3x4x5x6xi32>
}

// CHECK-LABEL: func.func @normalizations
// CHECK-SAME:  (%[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>, %[[G4:.*]]: tensor<4xf32>)
// CHECK:      fk.softmax %[[X]] axis = 1 : tensor<4x8xf32>
// CHECK-NEXT: fk.softmax %[[X]] axis = 0 : tensor<4x8xf32>
// CHECK-NEXT: fk.layernorm %[[X]], %[[G]], %[[B]] axis = 1 eps = 1.000000e-05 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: fk.layernorm %[[X]], %[[G4]], %[[G4]] axis = 0 eps = 0.000000e+00 : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: fk.rmsnorm %[[X]], %[[G]] eps = 9.9999999999999995E-7 : tensor<4x8xf32>, tensor<8xf32>
func.func @normalizations(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %g4: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = fk.softmax %x axis = 1 : tensor<4x8xf32>
  %1 = fk.softmax %x axis = 0 : tensor<4x8xf32>
  %2 = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %3 = fk.layernorm %x, %g4, %g4 axis = 0 eps = 0.0 : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  %4 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xf32>, tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME:  (%[[Q:.*]]: tensor<2x16x64xf16>, %[[K:.*]]: tensor<2x32x64xf16>, %[[V:.*]]: tensor<2x32x8xf16>, %[[M:.*]]: tensor<16x32xf16>)
// CHECK:      fk.attention %[[Q]], %[[K]], %[[V]] scale = 1.250000e-01 causal = true : tensor<2x16x64xf16>, tensor<2x32x64xf16>, tensor<2x32x8xf16> -> tensor<2x16x8xf16>
// CHECK-NEXT: fk.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : tensor<16x32xf16> scale = 5.000000e-01 causal = false : tensor<2x16x64xf16>, tensor<2x32x64xf16>, tensor<2x32x8xf16> -> tensor<2x16x8xf16>
func.func @attention(%q: tensor<2x16x64xf16>, %k: tensor<2x32x64xf16>, %v: tensor<2x32x8xf16>, %m: tensor<16x32xf16>) -> (tensor<2x16x8xf16>, tensor<2x16x8xf16>) {
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<2x16x64xf16>, tensor<2x32x64xf16>, tensor<2x32x8xf16> -> tensor<2x16x8xf16>
  %1 = fk.attention %q, %k, %v mask %m : tensor<16x32xf16> scale = 0.5 causal = false : tensor<2x16x64xf16>, tensor<2x32x64xf16>, tensor<2x32x8xf16> -> tensor<2x16x8xf16>
  return %0, %1 : tensor<2x16x8xf16>, tensor<2x16x8xf16>
}

// CHECK-LABEL: func.func @slicing_and_joining
// CHECK-SAME:  (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<3x8xf32>, %[[P:.*]]: tensor<i32>, %[[Q:.*]]: tensor<i64>)
// CHECK:      fk.slice %[[A]] start = [1, 0] step = [1, 2] : tensor<4x8xf32> -> tensor<3x4xf32>
// CHECK-NEXT: fk.concat %[[A]], %[[B]] axis = 0 : tensor<4x8xf32>, tensor<3x8xf32> -> tensor<7x8xf32>
// CHECK-NEXT: fk.pad %[[A]] low = [1, 0] high = [0, 2] value = -1.500000e+00 : tensor<4x8xf32> -> tensor<5x10xf32>
// CHECK-NEXT: fk.dynamic_slice %[[A]] start = [%[[P]], 2] : tensor<4x8xf32>, tensor<i32> -> tensor<1x4xf32>
// CHECK-NEXT: fk.dynamic_slice %[[A]] start = [%[[P]], %[[Q]]] : tensor<4x8xf32>, tensor<i32>, tensor<i64> -> tensor<2x2xf32>
// CHECK-NEXT: fk.dynamic_slice %[[A]] start = [0, 1] : tensor<4x8xf32> -> tensor<4x7xf32>
// CHECK-NEXT: fk.update_slice %[[A]], %[[B]] start = [%[[P]], 0] : tensor<4x8xf32>, tensor<3x8xf32>, tensor<i32>
// CHECK-NEXT: fk.update_slice %[[A]], %[[B]] start = [1, 0] : tensor<4x8xf32>, tensor<3x8xf32>
func.func @slicing_and_joining(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>, %p: tensor<i32>, %q: tensor<i64>) -> (tensor<3x4xf32>, tensor<7x8xf32>, tensor<5x10xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x7xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = fk.slice %a start = [1, 0] step = [1, 2] : tensor<4x8xf32> -> tensor<3x4xf32>
  %1 = fk.concat %a, %b axis = 0 : tensor<4x8xf32>, tensor<3x8xf32> -> tensor<7x8xf32>
  %2 = fk.pad %a low = [1, 0] high = [0, 2] value = -1.5 : tensor<4x8xf32> -> tensor<5x10xf32>
  %3 = fk.dynamic_slice %a start = [%p, 2] : tensor<4x8xf32>, tensor<i32> -> tensor<1x4xf32>
  %4 = fk.dynamic_slice %a start = [%p, %q] : tensor<4x8xf32>, tensor<i32>, tensor<i64> -> tensor<2x2xf32>
  %5 = fk.dynamic_slice %a start = [0, 1] : tensor<4x8xf32> -> tensor<4x7xf32>
  %6 = fk.update_slice %a, %b start = [%p, 0] : tensor<4x8xf32>, tensor<3x8xf32>, tensor<i32>
  %7 = fk.update_slice %a, %b start = [1, 0] : tensor<4x8xf32>, tensor<3x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3x4xf32>, tensor<7x8xf32>, tensor<5x10xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x7xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
