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
  // expected-error @+1 {{'fk.slice' op slicing along dimension 0 of size 3*S is not supported on symbolic dimensions yet (a symbolic dimension is taken whole)}}
  %0 = fk.slice %x start = [1, 0] step = [1, 1] : tensor<?x?xf32, ["3*S", "S"]> -> tensor<?x?xf32, ["3*S", "S"]>
  return %0 : tensor<?x?xf32, ["3*S", "S"]>
}

// -----

func.func @f(%x: tensor<?xf32, ["S"]>) -> tensor<?xf32, ["2*S"]> {
  // expected-error @+1 {{'fk.concat' op joining along dimension 0 of size S is not supported on symbolic dimensions yet}}
  %0 = fk.concat %x, %x axis = 0 : tensor<?xf32, ["S"]>, tensor<?xf32, ["S"]> -> tensor<?xf32, ["2*S"]>
  return %0 : tensor<?xf32, ["2*S"]>
}
