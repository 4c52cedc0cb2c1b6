// fk-inline-calls replaces every call of a graph by the callee's body,
// callees first; the callees stay. Inlined ops keep their callee's location
// under a call site of the call, and their statement's name prefixed with
// the call's. What it rejects is in inline-calls-invalid.mlir.
// RUN: fkc-opt %s --fk-inline-calls --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// The inlined graphs compute what the graphs with calls compute: the
// reference interpreter, which runs a call as its callee, prints the same
// results for both.
// RUN: fkc-opt %s --fk-print-reference -o /dev/null > %t.calls.txt
// RUN: fkc-opt %s --fk-inline-calls --fk-print-reference -o /dev/null > %t.inlined.txt
// RUN: FileCheck %s --input-file=%t.inlined.txt --check-prefix=RESULTS
// RUN: diff %t.calls.txt %t.inlined.txt
// RESULTS: @layer result #0: tensor<4xf32>
// RESULTS: @two result #1: tensor<4xf32>
// RESULTS: @model result #1: tensor<4xf32>

// The callees stay, with their calls inlined too.
// CHECK-LABEL: func.func @layer
// CHECK-LABEL: func.func @two
// CHECK-NOT:     {{ call @}}
// CHECK:         fk.mul
func.func @layer(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %h = fk.mul %x, %w : tensor<4xf32> loc("h"("m.graph":2:7))
  %y = fk.tanh %h : tensor<4xf32> loc("m.graph":3:7)
  return %y : tensor<4xf32>
}

// A graph of two results that itself calls a graph.
func.func @two(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = call @layer(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("a"("m.graph":7:7))
  %b = fk.exp %x : tensor<4xf32> loc("m.graph":8:7)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @model
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>{{.*}}, %[[W:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-NOT:     {{ call @}}
// CHECK:         %[[H:.*]] = fk.mul %[[X]], %[[W]] : tensor<4xf32> loc("x1/h"(callsite("m.graph":2:7 at "x1"("m.graph":12:8))))
// CHECK-NEXT:    %[[Y:.*]] = fk.tanh %[[H]] : tensor<4xf32> loc(callsite("m.graph":3:7 at "x1"("m.graph":12:8)))
// CHECK-NEXT:    %[[H2:.*]] = fk.mul %[[Y]], %[[Y]] : tensor<4xf32> loc("p/a/h"(callsite(callsite("m.graph":2:7 at "a"("m.graph":7:7)) at "p"("m.graph":13:8))))
// CHECK-NEXT:    %[[Y2:.*]] = fk.tanh %[[H2]]
// CHECK-NEXT:    %[[E:.*]] = fk.exp %[[Y]] : tensor<4xf32> loc(callsite("m.graph":8:7 at "p"("m.graph":13:8)))
// CHECK-NEXT:    %[[S:.*]] = fk.add %[[Y2]], %[[E]]
// CHECK-NEXT:    return %[[S]], %[[E]]
func.func @model(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x1 = call @layer(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("x1"("m.graph":12:8))
  %p:2 = call @two(%x1) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) loc("p"("m.graph":13:8))
  %s = fk.add %p#0, %p#1 : tensor<4xf32>
  return %s, %p#1 : tensor<4xf32>, tensor<4xf32>
} loc("m.graph":1:1)

