// A function declaration has no graph to wrap in fusions; fk-form-fusions
// should leave it as it is.
// RUN: fkc-opt %s --fk-form-fusions | FileCheck %s

// CHECK: func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
