// fk-bind-dims rejects bindings that leave a symbol without a size, exceed
// a bound, or give a size that no graph uses. (A bound module the static
// rules reject: test/fkc/symbolic-bind-errors.graph.)
// RUN: fkc-opt %s --fk-bind-dims="sizes=S=3" -split-input-file -verify-diagnostics

// expected-error @+1 {{graph 'f' has symbolic dimensions B without sizes; bind them (--bind B=SIZE): the reference interpreter runs graphs of known sizes}}
func.func @f(%x: tensor<?x?xf32, ["B", "S"]>) -> tensor<?x?xf32, ["B", "S"]> {
  return %x : tensor<?x?xf32, ["B", "S"]>
}

// -----

// expected-error @+1 {{the size 3 of 'S' is above its bound 2 in graph 'f'}}
func.func @f(%x: tensor<?xf32, ["S"]>) -> tensor<?xf32, ["S"]>
    attributes {fk.dim_bounds = {S = 2 : i64}} {
  return %x : tensor<?xf32, ["S"]>
}

// -----

// expected-error @+1 {{a size is given for 'S', but no graph has a dimension of that name}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
