// fk-print-reference reports what the interpreter cannot evaluate as an error at the op or function, without crashing.
// RUN: fkc-opt %s --fk-print-reference --allow-unregistered-dialect --split-input-file --verify-diagnostics -o /dev/null

func.func @unknown_op() -> tensor<2xf32> {
  // expected-error @+1 {{reference interpreter cannot evaluate 'x.y'}}
  %0 = "x.y"() : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{reference interpreter needs a value of type 'index' for block argument #0}}
func.func @scalar_argument(%i: index) -> index {
  return %i : index
}

// -----

// expected-error @+1 {{reference interpreter cannot evaluate a function of several blocks}}
func.func @branch() {
  "x.br"()[^bb1] : () -> ()
^bb1:
  return
}

// -----

// A call evaluates its callee; a recursion ends in an error, not a crash.
func.func @recursive(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{reference interpreter: calls nested more than 256 deep}}
  %y = call @recursive(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
