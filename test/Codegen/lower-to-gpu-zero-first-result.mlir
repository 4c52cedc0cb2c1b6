// A loop fusion whose first result is empty but whose second is not is
// rejected like any loop fusion with results of different shapes, not
// silently skipped (leaving the second result unwritten).
// RUN: fkc-opt %s --fk-lower-to-gpu -verify-diagnostics
func.func @zero_first(%x: tensor<0xf32>, %y: tensor<4xf32>) -> (tensor<0xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'fk.fusion' op loop fusion results of different shapes are not supported}}
  %0:2 = fk.fusion loop(%x, %y) : (tensor<0xf32>, tensor<4xf32>) -> (tensor<0xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<0xf32>, %b: tensor<4xf32>):
    %e = fk.exp %a : tensor<0xf32>
    %f = fk.exp %b : tensor<4xf32>
    fk.yield %e, %f : tensor<0xf32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<0xf32>, tensor<4xf32>
}
