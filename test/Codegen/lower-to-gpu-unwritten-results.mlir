// Results that no fusion computes (fk-form-fusions gives them copy fusions)
// are reported, not left unwritten; a kernel reading a returned argument
// must not read the output buffer instead of the input.
// RUN: fkc-opt %s --fk-lower-to-gpu -split-input-file -verify-diagnostics

func.func @argument_returned(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.exp %a : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  // expected-error @+1 {{returns a value that no fusion of its own writes}}
  return %x, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @splat_returned() -> tensor<4xf32> {
  // expected-error @+1 {{is outside a fusion}}
  %c = fk.constant dense<2.0> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @returned_twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.exp %a : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  // expected-error @+1 {{returns a value that no fusion of its own writes}}
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
