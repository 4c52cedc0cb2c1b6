// RUN: fkc-opt %s --test-fk-scalar-interface | FileCheck %s

// The elementwise ops are exactly the ops with scalar semantics
// (ScalarElementwiseOpInterface), which folding, the reference interpreter
// and kernels ask; the pass fails on an elementwise op without them. A new
// elementwise op adds a line here.
// CHECK: scalar semantics: fk.abs
// CHECK-NEXT: scalar semantics: fk.add
// CHECK-NEXT: scalar semantics: fk.cast
// CHECK-NEXT: scalar semantics: fk.compare
// CHECK-NEXT: scalar semantics: fk.cos
// CHECK-NEXT: scalar semantics: fk.div
// CHECK-NEXT: scalar semantics: fk.erf
// CHECK-NEXT: scalar semantics: fk.exp
// CHECK-NEXT: scalar semantics: fk.floor
// CHECK-NEXT: scalar semantics: fk.gelu
// CHECK-NEXT: scalar semantics: fk.log
// CHECK-NEXT: scalar semantics: fk.max
// CHECK-NEXT: scalar semantics: fk.min
// CHECK-NEXT: scalar semantics: fk.mul
// CHECK-NEXT: scalar semantics: fk.neg
// CHECK-NEXT: scalar semantics: fk.pow
// CHECK-NEXT: scalar semantics: fk.relu
// CHECK-NEXT: scalar semantics: fk.rsqrt
// CHECK-NEXT: scalar semantics: fk.select
// CHECK-NEXT: scalar semantics: fk.sigmoid
// CHECK-NEXT: scalar semantics: fk.silu
// CHECK-NEXT: scalar semantics: fk.sin
// CHECK-NEXT: scalar semantics: fk.sqrt
// CHECK-NEXT: scalar semantics: fk.sub
// CHECK-NEXT: scalar semantics: fk.tanh
// CHECK-NEXT: 25 elementwise ops
module {}
