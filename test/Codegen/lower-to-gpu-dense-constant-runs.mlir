// A dense constant read in a loop kernel's runs of adjacent elements is
// read from its global without a flat view (flat views are made only for
// kernel arguments); the kernel builds and the lowering does not crash.
// The global is 16-byte aligned, as the run's first access claims (LLVM
// merges a run's loads into one vector load).
// RUN: fkc-opt %s --fk-lower-to-gpu | FileCheck %s
// One global however many elements read it:
// CHECK: memref.global "private" constant @fk_constant : {{.*}} {alignment = 16 : i64}
// CHECK-NOT: memref.global
// CHECK: gpu.func @dense_runs_k0
// CHECK: memref.collapse_shape %arg0
// CHECK: memref.get_global @fk_constant :
func.func @dense_runs(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = fk.fusion loop(%x) {fk.tiling = #fk.tiling<elements, tile = [4], threads = 256>} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %c = fk.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
    %s = fk.add %a, %c : tensor<2x8xf32>
    fk.yield %s : tensor<2x8xf32>
  }
  return %0 : tensor<2x8xf32>
}
