// Symbolic dimensions in fk IR: a dynamic dimension whose monomial the
// tensor type's encoding carries. Types round-trip, equal monomials are
// equal types, and the shape rules hold symbolically.
// RUN: fkc-opt %s | fkc-opt | FileCheck %s
// Folding keeps constants static: a splat broadcast to a symbolic shape
// stays a broadcast (fk-bind-dims gives it sizes first).
// RUN: fkc-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @rules(
// CHECK-SAME: %[[X:.*]]: tensor<?x?x8xf32, ["B", "S"]>, %[[W:.*]]: tensor<8x16xf32>, %[[R:.*]]: tensor<1x?x1xf32, ["S"]>)
// CHECK: fk.matmul %[[X]], %[[W]] : tensor<?x?x8xf32, ["B", "S"]>, tensor<8x16xf32> -> tensor<?x?x16xf32, ["B", "S"]>
// CHECK: fk.broadcast %[[R]] : tensor<1x?x1xf32, ["S"]> -> tensor<?x?x16xf32, ["B", "S"]>
// CHECK: fk.add
// CHECK: fk.reduce_sum %{{.*}} axes = [1] : tensor<?x?x16xf32, ["B", "S"]> -> tensor<?x16xf32, ["B"]>
// CHECK: fk.transpose %{{.*}} perm = [1, 0, 2] : tensor<?x?x16xf32, ["B", "S"]> -> tensor<?x?x16xf32, ["S", "B"]>
// CHECK: fk.reshape %{{.*}} : tensor<?x?x16xf32, ["S", "B"]> -> tensor<?x8xf32, ["2*B*S"]>
func.func @rules(%x: tensor<?x?x8xf32, ["B", "S"]>, %w: tensor<8x16xf32>, %r: tensor<1x?x1xf32, ["S"]>)
    -> tensor<?x8xf32, ["2*B*S"]> {
  %0 = fk.matmul %x, %w : tensor<?x?x8xf32, ["B", "S"]>, tensor<8x16xf32> -> tensor<?x?x16xf32, ["B", "S"]>
  %1 = fk.broadcast %r : tensor<1x?x1xf32, ["S"]> -> tensor<?x?x16xf32, ["B", "S"]>
  %2 = fk.add %0, %1 : tensor<?x?x16xf32, ["B", "S"]>
  %3 = fk.reduce_sum %2 axes = [1] : tensor<?x?x16xf32, ["B", "S"]> -> tensor<?x16xf32, ["B"]>
  %4 = fk.transpose %2 perm = [1, 0, 2] : tensor<?x?x16xf32, ["B", "S"]> -> tensor<?x?x16xf32, ["S", "B"]>
  %5 = fk.reshape %4 : tensor<?x?x16xf32, ["S", "B"]> -> tensor<?x8xf32, ["2*B*S"]>
  return %5 : tensor<?x8xf32, ["2*B*S"]>
}

// FOLD-LABEL: func.func @splat(
// FOLD: %[[C:.*]] = fk.constant dense<2.000000e+00> : tensor<f32>
// FOLD: %[[B:.*]] = fk.broadcast %[[C]] : tensor<f32> -> tensor<?x4xf32, ["S"]>
// FOLD: fk.mul %{{.*}}, %[[B]] : tensor<?x4xf32, ["S"]>
// FOLD-NOT: fk.reshape
func.func @splat(%x: tensor<?x4xf32, ["S"]>) -> tensor<?x4xf32, ["S"]> {
  %c = fk.constant dense<2.0> : tensor<f32>
  %b = fk.broadcast %c : tensor<f32> -> tensor<?x4xf32, ["S"]>
  %0 = fk.mul %x, %b : tensor<?x4xf32, ["S"]>
  %1 = fk.reshape %b : tensor<?x4xf32, ["S"]> -> tensor<?xf32, ["4*S"]>
  %2 = fk.reshape %1 : tensor<?xf32, ["4*S"]> -> tensor<?x4xf32, ["S"]>
  %3 = fk.add %0, %2 : tensor<?x4xf32, ["S"]>
  return %3 : tensor<?x4xf32, ["S"]>
}
