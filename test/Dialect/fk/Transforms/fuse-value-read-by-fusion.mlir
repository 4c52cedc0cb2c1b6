// A value that a fusion already in the input reads, and that ops being fused
// read too, must be computed once by a kernel of its own (it has two
// consumer kernels), and no op may be left outside a fusion.
// RUN: fkc-opt %s --fk-fuse | FileCheck %s
// RUN: fkc-opt %s --fk-fuse=explain -verify-diagnostics -o /dev/null
// The result is a fused-stage graph: it lowers to kernels, and computes what
// the input computes.
// RUN: fkc %s --emit=gpu -o /dev/null
// RUN: fkc %s --emit=fused --verify-stages | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: MISMATCH
// VERIFY: verify-stages @value_read_by_fusion result #0 at fused: ok
// VERIFY: verify-stages @broadcast_read_by_fusion result #0 at fused: ok

// CHECK-LABEL: func.func @value_read_by_fusion
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[A:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NOT:     = fk.exp
// CHECK:         return
// expected-remark @+1 {{graph 'value_read_by_fusion': 3 ops in 3 kernels; predicted device memory traffic 112 B (112 B with a kernel per op)}}
func.func @value_read_by_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @+1 {{'fk.exp' kept as a kernel of its own: it has 2 consumer kernels, 1 of them fusions formed before this pass, which take no more ops}}
  %a = fk.exp %x : tensor<4xf32>
  %f = fk.fusion loop(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%b: tensor<4xf32>):
    %t = fk.tanh %b : tensor<4xf32>
    fk.yield %t : tensor<4xf32>
  }
  // expected-remark @+1 {{'fk.neg' fused into the kernel of 'fk.add': saves 32 B of device memory traffic (a write and a read of 16 B)}}
  %n = fk.neg %a : tensor<4xf32>
  %s = fk.add %n, %f : tensor<4xf32>
  return %s : tensor<4xf32>
}

// The same for index arithmetic, which is otherwise duplicated into each
// consumer kernel: the fusion in the input needs it in memory, so it is a
// kernel of its own, read by both.
// CHECK-LABEL: func.func @broadcast_read_by_fusion
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[B:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion loop(%[[B]])
// CHECK:         fk.fusion loop(%[[B]], %[[F]])
// CHECK-NOT:     fk.broadcast
// CHECK:         return
// expected-remark @+1 {{graph 'broadcast_read_by_fusion': 3 ops in 3 kernels; predicted device memory traffic 784 B (784 B with a kernel per op)}}
func.func @broadcast_read_by_fusion(%x: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{'fk.broadcast' kept as a kernel of its own: it has 2 consumer kernels, 1 of them fusions formed before this pass, which take no more ops}}
  %b = fk.broadcast %x : tensor<4xf32> -> tensor<8x4xf32>
  %f = fk.fusion loop(%b) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%c: tensor<8x4xf32>):
    %t = fk.tanh %c : tensor<8x4xf32>
    fk.yield %t : tensor<8x4xf32>
  }
  // expected-remark @+1 {{'fk.neg' fused into the kernel of 'fk.add': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %n = fk.neg %b : tensor<8x4xf32>
  %s = fk.add %n, %f : tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
