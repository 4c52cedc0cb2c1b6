// fk-form-fusions wraps every computing op in a fusion of its own, of the kind
// its kernel needs; splat constants are cloned into the fusions that use them;
// every result is written by a kernel of its own. (The --no-fusion plan;
// fk-fuse, tested in fuse.mlir, groups ops instead.) What it rejects is in
// form-fusions-invalid.mlir.
// RUN: fkc-opt %s --fk-form-fusions | FileCheck %s
// Fusions are not fused again and written results are not copied again.
// RUN: fkc-opt %s --fk-form-fusions --fk-form-fusions | FileCheck %s
// The fused graphs compute exactly what the graphs compute (copies and
// clones included): the reference interpreter prints the same results for
// both on the same seeded random inputs.
// RUN: fkc-opt %s --fk-print-reference -o /dev/null > %t.graph.txt
// RUN: fkc-opt %s --fk-form-fusions --fk-print-reference -o /dev/null > %t.fused.txt
// RUN: FileCheck %s --input-file=%t.fused.txt --check-prefix=RESULTS
// RUN: diff %t.graph.txt %t.fused.txt
// RESULTS: @kinds result #7: tensor<4x8xf32>
// RESULTS: @splats_are_cloned result #1: tensor<4xi1>
// RESULTS: @copies result #5: tensor<2xi32>
// RESULTS: @dense_constant result #1: tensor<3xi32> [1, 2, 3]
// RESULTS: @attention result #0: tensor<1x8x64xf16>

// Matmuls and reductions get fusions of their kind, everything else a loop
// fusion; an operand used twice is one input.
// CHECK-LABEL: func.func @kinds
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x3xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK-NEXT:    %[[MM:[a-z0-9_]+]] = fk.fusion matmul(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8x3xf32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.matmul %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SUM:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.reduce_sum %[[A]] axes = [1]
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MAX:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_max
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MIN:[a-z0-9_]+]] = fk.fusion reduction(%[[I]]) : (tensor<4x8xi32>) -> tensor<4xi32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_min
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<f32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_mean
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[T:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.transpose
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[RS:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<4x8xf32>) -> tensor<2x16xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// An op without operands makes a fusion without inputs (and no block
// arguments).
// CHECK-NEXT:    %[[IOTA:[a-z0-9_]+]] = fk.fusion loop : () -> tensor<4x8xi32> {
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.iota dim = 1 : tensor<4x8xi32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4x8xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[CMP:[a-z0-9_]+]] = fk.fusion loop(%[[IOTA]], %[[I]]) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.compare lt
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SEL:[a-z0-9_]+]] = fk.fusion loop(%[[CMP]], %[[X]]) : (tensor<4x8xi1>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[C:[a-z0-9_]+]]: tensor<4x8xi1>, %[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.select %[[C]], %[[A]], %[[A]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[MM]], %[[SUM]], %[[MAX]], %[[MIN]], %[[MEAN]], %[[T]], %[[RS]], %[[SEL]] :
func.func @kinds(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %i: tensor<4x8xi32>)
    -> (tensor<4x3xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xi32>, tensor<f32>, tensor<8x4xf32>, tensor<2x16xf32>, tensor<4x8xf32>) {
  %0 = fk.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %1 = fk.reduce_sum %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %2 = fk.reduce_max %x axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %3 = fk.reduce_min %i axes = [1] : tensor<4x8xi32> -> tensor<4xi32>
  %4 = fk.reduce_mean %x axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %5 = fk.transpose %x perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %6 = fk.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %7 = fk.iota dim = 1 : tensor<4x8xi32>
  %8 = fk.compare lt, %7, %i : tensor<4x8xi32> -> tensor<4x8xi1>
  %9 = fk.select %8, %x, %x : tensor<4x8xi1>, tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %9 : tensor<4x3xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xi32>, tensor<f32>, tensor<8x4xf32>, tensor<2x16xf32>, tensor<4x8xf32>
}

// A splat constant is not an input: each fusion that uses it gets a clone,
// and the original disappears from the graph.
// CHECK-LABEL: func.func @splats_are_cloned
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[C:[a-z0-9_]+]]: tensor<4xi1>)
// CHECK-NEXT:    %[[M:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      %[[TWO:[a-z0-9_]+]] = fk.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.mul %[[A]], %[[TWO]] : tensor<4xf32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion loop(%[[C]], %[[M]]) : (tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[B:[a-z0-9_]+]]: tensor<4xi1>, %[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      %[[TWO:[a-z0-9_]+]] = fk.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.select %[[B]], %[[A]], %[[TWO]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT:    }
// A boolean splat too.
// CHECK-NEXT:    %[[N:[a-z0-9_]+]] = fk.fusion loop(%[[C]]) : (tensor<4xi1>) -> tensor<4xi1> {
// CHECK-NEXT:    ^bb0(%[[B:[a-z0-9_]+]]: tensor<4xi1>):
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = fk.constant dense<true> : tensor<4xi1>
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.compare ne, %[[B]], %[[T]]
// CHECK-NEXT:      fk.yield %[[R]] : tensor<4xi1>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]], %[[N]] : tensor<4xf32>, tensor<4xi1>
func.func @splats_are_cloned(%x: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %two = fk.constant dense<2.0> : tensor<4xf32>
  %true = fk.constant dense<true> : tensor<4xi1>
  %0 = fk.mul %x, %two : tensor<4xf32>
  %1 = fk.select %c, %0, %two : tensor<4xi1>, tensor<4xf32>
  %2 = fk.compare ne, %c, %true : tensor<4xi1> -> tensor<4xi1>
  return %1, %2 : tensor<4xf32>, tensor<4xi1>
}

// Results that no kernel would write get a loop fusion that copies them: a
// returned argument (each time it is returned), a returned splat constant
// (whose clone the fusion yields), and the second return of a value.
// CHECK-LABEL: func.func @copies
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<2xi32>)
// CHECK-NEXT:    %[[E:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[XCOPY:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      fk.yield %[[A]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ECOPY:[a-z0-9_]+]] = fk.fusion loop(%[[E]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      fk.yield %[[A]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SPLAT:[a-z0-9_]+]] = fk.fusion loop : () -> tensor<4xf32> {
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = fk.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-NEXT:      fk.yield %[[C]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[YCOPY:[a-z0-9_]+]] = fk.fusion loop(%[[Y]]) : (tensor<2xi32>) -> tensor<2xi32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<2xi32>):
// CHECK-NEXT:      fk.yield %[[A]] : tensor<2xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[YCOPY2:[a-z0-9_]+]] = fk.fusion loop(%[[Y]]) : (tensor<2xi32>) -> tensor<2xi32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<2xi32>):
// CHECK-NEXT:      fk.yield %[[A]] : tensor<2xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[XCOPY]], %[[E]], %[[ECOPY]], %[[SPLAT]], %[[YCOPY]], %[[YCOPY2]] :
func.func @copies(%x: tensor<4xf32>, %y: tensor<2xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>) {
  %c = fk.constant dense<1.5> : tensor<4xf32>
  %0 = fk.exp %x : tensor<4xf32>
  return %x, %0, %0, %c, %y, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>
}

// A dense constant that is not a splat is computed by a loop fusion of its
// own, whose result the users take as an input; returned, it needs no copy.
// CHECK-LABEL: func.func @dense_constant
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<3xi32>)
// CHECK-NEXT:    %[[D:[a-z0-9_]+]] = fk.fusion loop : () -> tensor<3xi32> {
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = fk.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NEXT:      fk.yield %[[C]] : tensor<3xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion loop(%[[X]], %[[D]]) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<3xi32>, %[[B:[a-z0-9_]+]]: tensor<3xi32>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.add %[[A]], %[[B]] : tensor<3xi32>
// CHECK-NEXT:      fk.yield %[[R]] : tensor<3xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]], %[[D]] : tensor<3xi32>, tensor<3xi32>
func.func @dense_constant(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %c = fk.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = fk.add %x, %c : tensor<3xi32>
  return %0, %c : tensor<3xi32>, tensor<3xi32>
}

// An attention gets a fusion of kind attention whose attention reads the
// fusion's inputs (the flash kernel reads them from device memory); the
// transpose computing its key is a loop fusion of its own.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<1x8x64xf16>, %[[KT:[a-z0-9_]+]]: tensor<1x64x8xf16>, %[[V:[a-z0-9_]+]]: tensor<1x8x64xf16>)
// CHECK-NEXT:    %[[K:[a-z0-9_]+]] = fk.fusion loop(%[[KT]]) : (tensor<1x64x8xf16>) -> tensor<1x8x64xf16> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.transpose
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.fusion attention(%[[Q]], %[[K]], %[[V]]) : (tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<1x8x64xf16>, %[[B:[a-z0-9_]+]]: tensor<1x8x64xf16>, %[[C:[a-z0-9_]+]]: tensor<1x8x64xf16>):
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.attention %[[A]], %[[B]], %[[C]] scale = 1.250000e-01 causal = true
// CHECK-NEXT:      fk.yield %[[R]] : tensor<1x8x64xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[O]] : tensor<1x8x64xf16>
func.func @attention(%q: tensor<1x8x64xf16>, %kt: tensor<1x64x8xf16>, %v: tensor<1x8x64xf16>) -> tensor<1x8x64xf16> {
  %k = fk.transpose %kt perm = [0, 2, 1] : tensor<1x64x8xf16> -> tensor<1x8x64xf16>
  %0 = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1x8x64xf16> -> tensor<1x8x64xf16>
  return %0 : tensor<1x8x64xf16>
}
