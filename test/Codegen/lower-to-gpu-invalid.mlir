// fk-lower-to-gpu lowers graphs of fusions only, and reports what its kernels
// cannot compute at the fusion.
// RUN: fkc-opt %s --fk-lower-to-gpu -split-input-file -verify-diagnostics

func.func @op_outside_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.exp' op is outside a fusion; only fusions become kernels (run fk-form-fusions first)}}
  %0 = fk.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A splat constant may stay outside (fusions clone it), a dense one may not.
func.func @dense_constant_outside_fusion() -> tensor<3xi32> {
  %c = fk.constant dense<7> : tensor<3xi32>
  // expected-error @+1 {{'fk.constant' op is outside a fusion; only fusions become kernels (run fk-form-fusions first)}}
  %d = fk.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = fk.fusion loop(%d) : (tensor<3xi32>) -> tensor<3xi32> {
  ^bb0(%a: tensor<3xi32>):
    %s = fk.add %a, %a : tensor<3xi32>
    fk.yield %s : tensor<3xi32>
  }
  return %0 : tensor<3xi32>
}

// -----

// The first op outside a fusion is reported, after fusions before it.
func.func @after_fusions(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.exp %a : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  // expected-error @+1 {{'fk.reduce_sum' op is outside a fusion}}
  %1 = fk.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  %2 = fk.neg %0 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A loop kernel computes one element of every result per work item.
func.func @loop_results_of_different_shapes(%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  // expected-error @+1 {{'fk.fusion' op loop fusion results of different shapes are not supported}}
  %0:2 = fk.fusion loop(%x, %y) : (tensor<4xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<2xf32>):
    %e = fk.exp %a : tensor<4xf32>
    %f = fk.exp %b : tensor<2xf32>
    fk.yield %e, %f : tensor<4xf32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<2xf32>
}

// -----

// An op without a scalar lowering: arith ops on tensors are elementwise, so
// the verifier lets them into a loop fusion, but no kernel computes them.
func.func @no_scalar_lowering(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'arith.addf' op cannot be computed element by element inside a kernel}}
    %s = arith.addf %a, %a : tensor<4xf32>
    fk.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A declaration has no kernels to build.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  // expected-error @+1 {{'func.func' op is a declaration; only graphs with a body become kernels}}
  func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
}

// -----

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  // expected-error @+1 {{'func.func' op takes 'i32'; graph arguments are tensors}}
  func.func @scalar(%n: i32) {
    return
  }
}
