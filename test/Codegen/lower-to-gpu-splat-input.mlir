// fk-lower-to-gpu takes fusions that read graph arguments or other fusions'
// results; a constant outside the fusions is an error (fk-form-fusions and
// fk-fuse clone splat constants into the fusions that use them).
// RUN: fkc-opt %s --fk-lower-to-gpu -verify-diagnostics
func.func @splat_input(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.constant' op is outside a fusion; only fusions become kernels (run fk-form-fusions first)}}
  %c = fk.constant dense<2.0> : tensor<4xf32>
  %0 = fk.fusion loop(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = fk.add %a, %b : tensor<4xf32>
    fk.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
