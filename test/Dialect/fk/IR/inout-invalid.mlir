// fk.inout on a graph argument and fk.updates on the result (or, in the gpu
// stage, the output argument) that carries its new value (FkInout.h).
// RUN: fkc-opt %s -split-input-file -verify-diagnostics

// A valid pair, and the host function's form: the output argument updates.
func.func @valid(%c: tensor<4xf32> {fk.inout}, %x: tensor<4xf32>) -> (tensor<4xf32> {fk.updates = 0 : i64}) {
  %0 = fk.add %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @host(%c: memref<4xf32> {fk.inout}, %out: memref<4xf32> {fk.updates = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{'fk.inout' on argument 0 must be a unit attribute}}
func.func @not_unit(%c: tensor<4xf32> {fk.inout = 1 : i64}) -> tensor<4xf32> {
  return %c : tensor<4xf32>
}

// -----

// expected-error @+1 {{'fk.updates' on result 0 must be an integer (an argument index)}}
func.func @not_an_index(%c: tensor<4xf32> {fk.inout}) -> (tensor<4xf32> {fk.updates = "c"}) {
  return %c : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 updates argument 1, which is not an 'fk.inout' argument}}
func.func @not_inout(%c: tensor<4xf32> {fk.inout}, %x: tensor<4xf32>) -> (tensor<4xf32> {fk.updates = 1 : i64}) {
  return %c : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 updates argument 5, which is not an 'fk.inout' argument}}
func.func @out_of_range(%c: tensor<4xf32> {fk.inout}) -> (tensor<4xf32> {fk.updates = 5 : i64}) {
  return %c : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 updates argument 0 of type 'tensor<4xf32>' with a value of type 'tensor<4xf16>'}}
func.func @other_type(%c: tensor<4xf32> {fk.inout}) -> (tensor<4xf16> {fk.updates = 0 : i64}) {
  %0 = fk.cast %c : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// expected-error @+1 {{argument 0 is updated by two results}}
func.func @twice(%c: tensor<4xf32> {fk.inout}) -> (tensor<4xf32> {fk.updates = 0 : i64}, tensor<4xf32> {fk.updates = 0 : i64}) {
  return %c, %c : tensor<4xf32>, tensor<4xf32>
}
