// fk-inline-calls rejects calls it cannot inline: recursion, direct or
// through another function, and callees without a body.
// RUN: fkc-opt %s --fk-inline-calls -split-input-file -verify-diagnostics

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op calls @f recursively; a graph is inlined where it is called, so calls cannot recurse}}
  %y = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op calls @a recursively}}
  %y = call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op calls @declared, which is not a function with a body in the module}}
  %y = call @declared(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
