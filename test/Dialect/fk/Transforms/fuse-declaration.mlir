// A function declaration has no graph to fuse; fk-fuse should leave it as it
// is.
// RUN: fkc-opt %s --fk-fuse | FileCheck %s

// CHECK: func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
