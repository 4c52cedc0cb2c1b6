// Symbolic types the dialect rejects, and the shape rules on symbols
// (symbolic S1, S2 of docs/language.md) at the op.
// RUN: fkc-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  // A dynamic dimension without its monomial.
  // expected-error @+1 {{'fk.relu' op operand #0 must be statically shaped tensor}}
  %0 = fk.relu %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @f(%x: tensor<?xf32, ["S*B"]>) -> tensor<?xf32, ["S*B"]> {
  // Monomials are canonical (symbols sorted), so equal ones are equal types.
  // expected-error @+1 {{'fk.relu' op operand #0 must be statically shaped tensor}}
  %0 = fk.relu %x : tensor<?xf32, ["S*B"]>
  return %0 : tensor<?xf32, ["S*B"]>
}

// -----

func.func @f(%x: tensor<?xf32, ["8"]>) -> tensor<?xf32, ["8"]> {
  // A static size is a static dimension.
  // expected-error @+1 {{'fk.relu' op operand #0 must be statically shaped tensor}}
  %0 = fk.relu %x : tensor<?xf32, ["8"]>
  return %0 : tensor<?xf32, ["8"]>
}

// -----

func.func @f(%x: tensor<?xf32, ["S"]>, %y: tensor<?xf32, ["T"]>) -> tensor<?xf32, ["S"]> {
  // expected-error @+1 {{'fk.add' op requires the same encoding for all operands and results}}
  %0 = "fk.add"(%x, %y) : (tensor<?xf32, ["S"]>, tensor<?xf32, ["T"]>) -> tensor<?xf32, ["S"]>
  return %0 : tensor<?xf32, ["S"]>
}

// -----

func.func @f(%x: tensor<?xf32, ["S"]>) -> tensor<?xf32, ["T"]> {
  // expected-error @+1 {{'fk.broadcast' op cannot broadcast shape [S] to [T]: dimension S vs T}}
  %0 = fk.broadcast %x : tensor<?xf32, ["S"]> -> tensor<?xf32, ["T"]>
  return %0 : tensor<?xf32, ["T"]>
}

// -----

func.func @f(%x: tensor<?x?xf32, ["B", "S"]>) -> tensor<?xf32, ["S"]> {
  // expected-error @+1 {{'fk.reshape' op cannot reshape [B, S] (B*S elements) to [S] (S elements)}}
  %0 = fk.reshape %x : tensor<?x?xf32, ["B", "S"]> -> tensor<?xf32, ["S"]>
  return %0 : tensor<?xf32, ["S"]>
}

// -----

func.func @f(%x: tensor<?x?xf32, ["3*S", "S"]>) -> tensor<?x?xf32, ["3*S", "S"]> {
  // expected-error @+1 {{'fk.slice' op slicing along dimension 0 of size 3*S is not supported on symbolic dimensions yet (a window of a symbolic size is the whole dimension)}}
  %0 = fk.slice %x start = [1, 0] step = [1, 1] : tensor<?x?xf32, ["3*S", "S"]> -> tensor<?x?xf32, ["3*S", "S"]>
  return %0 : tensor<?x?xf32, ["3*S", "S"]>
}

// -----

// slice C3: a negative start counts from the end; the graph's lower bounds
// make the dimension hold the window.
func.func @f(%x: tensor<?x8xf32, ["S"]>) -> tensor<2x8xf32> attributes {fk.dim_lower_bounds = {S = 1 : i64}} {
  // expected-error @+1 {{'fk.slice' op a window of 2 elements from -2 by 1 needs dimension 0 of size S to hold at least 2 elements, but its size may be 1 (give its symbols lower bounds: `where 2 <= S`)}}
  %0 = fk.slice %x start = [-2, 0] step = [1, 1] : tensor<?x8xf32, ["S"]> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @f(%x: tensor<6x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fk.slice' op a window of 2 elements from -1 (counted from the end) by 1 passes the end of dimension 0}}
  %0 = fk.slice %x start = [-1, 0] step = [1, 1] : tensor<6x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @f(%x: tensor<6x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fk.slice' op a window of 2 elements from -7 by 1 does not fit dimension 0 of size 6}}
  %0 = fk.slice %x start = [-7, 0] step = [1, 1] : tensor<6x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @f(%x: tensor<?xf32, ["S"]>) -> tensor<?xf32, ["2*S"]> {
  // expected-error @+1 {{'fk.concat' op joining along dimension 0 of size S is not supported on symbolic dimensions yet}}
  %0 = fk.concat %x, %x axis = 0 : tensor<?xf32, ["S"]>, tensor<?xf32, ["S"]> -> tensor<?xf32, ["2*S"]>
  return %0 : tensor<?xf32, ["2*S"]>
}
