// fk-fuse expects primitive-stage IR: fk ops that a loop, reduction, matmul
// or attention kernel computes (fk-decompose runs first). It does not check
// this itself; an op no kernel computes ends up in a fusion, which the
// fk.fusion verifier (fusion C3) rejects after the pass, at the location of
// the kernel's root op.
// RUN: fkc-opt %s --fk-fuse -split-input-file -verify-diagnostics

// A composite op left undecomposed, alone in its kernel.
func.func @composite(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.softmax'}}
  %0 = fk.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A composite op fused into its consumer's kernel: the error is at the
// consumer, the kernel's root.
func.func @composite_into_kernel(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xf32>, tensor<8xf32>
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.rmsnorm'}}
  %1 = fk.exp %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// An op of another dialect.
func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'arith.constant'}}
  %0 = fk.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
