// Each dense (non-splat) constant of a module gets a global of its own in
// fk_kernels, however many there are.
// RUN: fkc-opt %s --fk-lower-to-gpu | FileCheck %s
// CHECK-DAG: memref.global "private" constant @[[G1:[a-z0-9_]+]] : memref<3xi32> = dense<[1, 2, 3]>
// CHECK-DAG: memref.global "private" constant @[[G2:[a-z0-9_]+]] : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-LABEL: gpu.func @consts_k0(
// CHECK: memref.get_global @[[G1]] : memref<3xi32>
// CHECK-LABEL: gpu.func @consts_k1(
// CHECK: memref.get_global @[[G2]] : memref<2xf32>
func.func @consts() -> (tensor<3xi32>, tensor<2xf32>) {
  %0 = fk.fusion loop : () -> tensor<3xi32> {
    %c = fk.constant dense<[1, 2, 3]> : tensor<3xi32>
    fk.yield %c : tensor<3xi32>
  }
  %1 = fk.fusion loop : () -> tensor<2xf32> {
    %c = fk.constant dense<[1.0, 2.0]> : tensor<2xf32>
    fk.yield %c : tensor<2xf32>
  }
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}
