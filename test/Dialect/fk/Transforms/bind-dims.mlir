// fk-bind-dims gives every symbolic dimension its size: function
// signatures, block arguments (of fusions too) and op results; bounds are
// dropped; a module without symbols and without sizes is unchanged.
// RUN: fkc-opt %s --fk-bind-dims="sizes=S=3,B=2" | FileCheck %s
// RUN: fkc-opt %s --fk-bind-dims="sizes=S=3,B=2" --fk-print-reference -o /dev/null | FileCheck %s --check-prefix=VALUES

// CHECK-LABEL: func.func @block(
// CHECK-SAME: %{{.*}}: tensor<2x3x4xf32>, %{{.*}}: tensor<4x4xf32>) -> tensor<6x4xf32>
// CHECK-NOT: fk.dim_bounds
// CHECK: fk.matmul {{.*}} -> tensor<2x3x4xf32>
// CHECK: fk.broadcast {{.*}} : tensor<f32> -> tensor<2x3x4xf32>
// CHECK: fk.reshape {{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// VALUES: @block result #0: tensor<6x4xf32>
func.func @block(%x: tensor<?x?x4xf32, ["B", "S"]>, %w: tensor<4x4xf32>)
    -> tensor<?x4xf32, ["B*S"]> attributes {fk.dim_bounds = {S = 8 : i64}} {
  %0 = fk.matmul %x, %w : tensor<?x?x4xf32, ["B", "S"]>, tensor<4x4xf32> -> tensor<?x?x4xf32, ["B", "S"]>
  %c = fk.constant dense<2.0> : tensor<f32>
  %1 = fk.broadcast %c : tensor<f32> -> tensor<?x?x4xf32, ["B", "S"]>
  %2 = fk.mul %0, %1 : tensor<?x?x4xf32, ["B", "S"]>
  %3 = fk.reshape %2 : tensor<?x?x4xf32, ["B", "S"]> -> tensor<?x4xf32, ["B*S"]>
  return %3 : tensor<?x4xf32, ["B*S"]>
}

// Region arguments and results of a fusion.
// CHECK-LABEL: func.func @fused(
// CHECK-SAME: %{{.*}}: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: fk.fusion loop(%{{.*}}) : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: ^bb0(%{{.*}}: tensor<3x4xf32>):
// CHECK: fk.yield %{{.*}} : tensor<3x4xf32>
func.func @fused(%x: tensor<?x4xf32, ["S"]>) -> tensor<?x4xf32, ["S"]> {
  %0 = fk.fusion loop(%x) : (tensor<?x4xf32, ["S"]>) -> tensor<?x4xf32, ["S"]> {
  ^bb0(%a: tensor<?x4xf32, ["S"]>):
    %1 = fk.relu %a : tensor<?x4xf32, ["S"]>
    fk.yield %1 : tensor<?x4xf32, ["S"]>
  }
  return %0 : tensor<?x4xf32, ["S"]>
}

// A static graph is left as it is.
// CHECK-LABEL: func.func @static(
// CHECK-SAME: %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @static(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
