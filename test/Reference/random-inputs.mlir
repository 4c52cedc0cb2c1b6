// Random inputs are a fixed function of the seed: runs with one seed print the same values, on every platform, and another seed prints others.
// RUN: fkc-opt %s --fk-print-reference=seed=7 -o /dev/null > %t.a
// RUN: fkc-opt %s --fk-print-reference=seed=7 -o /dev/null > %t.b
// RUN: diff %t.a %t.b
// RUN: fkc-opt %s --fk-print-reference=seed=8 -o /dev/null > %t.c
// RUN: not diff %t.a %t.c
// RUN: FileCheck %s < %t.a

// CHECK:      @inputs result #0: tensor<2x3xf32> {{\[\[}}-0.220341, -0.966423, 0.801521], [0.165861, -0.0951162, -0.501137]]
// CHECK-NEXT: @inputs result #1: tensor<4xf16> [-0.0640869, -0.34375, -0.731445, -0.173706]
// CHECK-NEXT: @inputs result #2: tensor<4xbf16> [-0.792969, 0.917969, 0.835938, 0.742188]
// CHECK-NEXT: @inputs result #3: tensor<6xi32> [1, -5, -7, 2, 8, -4]
// CHECK-NEXT: @inputs result #4: tensor<6xi1> [true, false, false, false, true, true]
// CHECK-NEXT: @large result #0: tensor<10x10xf32> [0, 0, 0.801521, 0.165861, 0, 0, 0, 0, 0, 0, 0, 0.919748, 0.836039, 0.742664, 0.728015, 0.0965748, 0.759227, 0, 0.238241, 0.514644, 0.349133, 0, 0, 0, 0.805079, 0.920658, 0, 0, 0.80369, 0, 0.942272, 0, ..., 0.969939, 0.908171, 0, 0, 0.0541369, 0, 0.310827, 0.880514, 0, 0, 0.0568802, 0.416767, 0.243532, 0, 0.538299, 0, 0, 0, 0.279497, 0, 0.664584, 0, 0.909184, 0, 0, 0.91454, 0.391219, 0.141362, 0, 0.78014, 0.998931, 0.898196]

func.func @inputs(%f32: tensor<2x3xf32>, %f16: tensor<4xf16>,
                  %bf16: tensor<4xbf16>, %i32: tensor<6xi32>,
                  %i1: tensor<6xi1>) -> (tensor<2x3xf32>, tensor<4xf16>,
                                         tensor<4xbf16>, tensor<6xi32>,
                                         tensor<6xi1>) {
  return %f32, %f16, %bf16, %i32, %i1
      : tensor<2x3xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<6xi32>,
        tensor<6xi1>
}

// Each function draws from the seed anew, and results of more than 64
// elements print their first and last 32 around `...`.
func.func @large(%a: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %r = fk.relu %a : tensor<10x10xf32>
  return %r : tensor<10x10xf32>
}
