// fk-form-fusions expects primitive-stage IR, as fk-fuse does (it is the
// --no-fusion plan of the same stage). It does not check this itself; an op
// no kernel computes gets a fusion of its own, which the fk.fusion verifier
// (fusion C3) rejects after the pass, at the op's location.
// RUN: fkc-opt %s --fk-form-fusions -split-input-file -verify-diagnostics

// A composite op left undecomposed.
func.func @composite(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.rmsnorm'}}
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xf32>, tensor<8xf32>
  %1 = fk.exp %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// An op of another dialect.
func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'arith.constant'}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = fk.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
