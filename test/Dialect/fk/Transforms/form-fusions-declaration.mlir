// A function declaration has no graph to wrap in fusions; fk-form-fusions
// should leave it as it is.
// XFAIL: *
// Known bug: fk-form-fusions crashes on it (the pass takes the first block
// of the body without checking that there is one).
// RUN: fkc-opt %s --fk-form-fusions | FileCheck %s

// CHECK: func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
