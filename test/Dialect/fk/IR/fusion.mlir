// fk.fusion and fk.yield parse, print and parse again to the same text: every
// kind, fusions without inputs, several results, several ops in one body.
// RUN: fkc-opt %s | fkc-opt | FileCheck %s
// The generic form round-trips too.
// RUN: fkc-opt %s --mlir-print-op-generic | fkc-opt | FileCheck %s

// CHECK-LABEL: func.func @fusions
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x2xf32>)
// CHECK-NEXT:    %[[L:[a-z0-9_]+]]:2 = fk.fusion loop(%[[X]]) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = fk.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT:      %[[S:[a-z0-9_]+]] = fk.add %[[A]], %[[C]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = fk.compare gt, %[[S]], %[[C]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK-NEXT:      fk.yield %[[S]], %[[P]] : tensor<4x8xf32>, tensor<4x8xi1>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:[a-z0-9_]+]] = fk.fusion reduction(%[[L]]#0) : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = fk.exp %[[A]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = fk.reduce_max %[[E]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:      fk.yield %[[M]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MM:[a-z0-9_]+]] = fk.fusion matmul(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8x2xf32>):
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = fk.neg %[[A]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = fk.matmul %[[T]], %[[B]] : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:      fk.yield %[[P]] : tensor<4x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[I:[a-z0-9_]+]] = fk.fusion loop : () -> tensor<3xi32> {
// CHECK-NEXT:      %[[V:[a-z0-9_]+]] = fk.iota dim = 0 : tensor<3xi32>
// CHECK-NEXT:      fk.yield %[[V]] : tensor<3xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[COPY:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) {fk.note = "copy"} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      fk.yield %[[A]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// A reduction fusion may hold several reductions and the loop ops that
// consume them (a row softmax as one kernel).
// CHECK-NEXT:    %[[SM:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>):
// CHECK-NEXT:      %[[MAX:[a-z0-9_]+]] = fk.reduce_max %[[A]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:      %[[MAXR:[a-z0-9_]+]] = fk.reshape %[[MAX]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %[[MAXB:[a-z0-9_]+]] = fk.broadcast %[[MAXR]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %[[D:[a-z0-9_]+]] = fk.sub %[[A]], %[[MAXB]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = fk.exp %[[D]] : tensor<4x8xf32>
// CHECK-NEXT:      %[[SUM:[a-z0-9_]+]] = fk.reduce_sum %[[E]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:      %[[SUMR:[a-z0-9_]+]] = fk.reshape %[[SUM]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %[[SUMB:[a-z0-9_]+]] = fk.broadcast %[[SUMR]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %[[Y:[a-z0-9_]+]] = fk.div %[[E]], %[[SUMB]] : tensor<4x8xf32>
// CHECK-NEXT:      fk.yield %[[Y]] : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[L]]#0, %[[L]]#1, %[[R]], %[[MM]], %[[I]], %[[COPY]], %[[SM]]
func.func @fusions(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<4xf32>, tensor<4x2xf32>, tensor<3xi32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:2 = fk.fusion loop(%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  ^bb0(%a: tensor<4x8xf32>):
    %c = fk.constant dense<1.0> : tensor<4x8xf32>
    %s = fk.add %a, %c : tensor<4x8xf32>
    %p = fk.compare gt, %s, %c : tensor<4x8xf32> -> tensor<4x8xi1>
    fk.yield %s, %p : tensor<4x8xf32>, tensor<4x8xi1>
  }
  %1 = fk.fusion reduction(%0#0) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = fk.exp %a : tensor<4x8xf32>
    %m = fk.reduce_max %e axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fk.yield %m : tensor<4xf32>
  }
  %2 = fk.fusion matmul(%x, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>):
    %t = fk.neg %a : tensor<4x8xf32>
    %p = fk.matmul %t, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    fk.yield %p : tensor<4x2xf32>
  }
  %3 = fk.fusion loop : () -> tensor<3xi32> {
    %i = fk.iota dim = 0 : tensor<3xi32>
    fk.yield %i : tensor<3xi32>
  }
  %4 = fk.fusion loop(%x) {fk.note = "copy"} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    fk.yield %a : tensor<4x8xf32>
  }
  %5 = fk.fusion reduction(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %m = fk.reduce_max %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %mr = fk.reshape %m : tensor<4xf32> -> tensor<4x1xf32>
    %mb = fk.broadcast %mr : tensor<4x1xf32> -> tensor<4x8xf32>
    %d = fk.sub %a, %mb : tensor<4x8xf32>
    %e = fk.exp %d : tensor<4x8xf32>
    %s = fk.reduce_sum %e axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %sr = fk.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
    %sb = fk.broadcast %sr : tensor<4x1xf32> -> tensor<4x8xf32>
    %y = fk.div %e, %sb : tensor<4x8xf32>
    fk.yield %y : tensor<4x8xf32>
  }
  return %0#0, %0#1, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xi1>, tensor<4xf32>, tensor<4x2xf32>, tensor<3xi32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A matmul fusion may hold a pair of matmuls of one left operand and one
// result type, whose epilogue combines them (fk-pair-matmuls).
// CHECK-LABEL: func.func @matmul_pair
// CHECK:         fk.fusion matmul(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf16>, tensor<8x2xf16>, tensor<8x2xf16>) -> tensor<4x2xf16> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf16>, %[[G:[a-z0-9_]+]]: tensor<8x2xf16>, %[[U:[a-z0-9_]+]]: tensor<8x2xf16>):
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = fk.matmul %[[A]], %[[G]]
// CHECK-NEXT:      %[[Q:[a-z0-9_]+]] = fk.matmul %[[A]], %[[U]]
// CHECK-NEXT:      %[[Y:[a-z0-9_]+]] = fk.mul %[[P]], %[[Q]]
// CHECK-NEXT:      fk.yield %[[Y]]
func.func @matmul_pair(%x: tensor<4x8xf16>, %wg: tensor<8x2xf16>, %wu: tensor<8x2xf16>) -> tensor<4x2xf16> {
  %0 = fk.fusion matmul(%x, %wg, %wu) : (tensor<4x8xf16>, tensor<8x2xf16>, tensor<8x2xf16>) -> tensor<4x2xf16> {
  ^bb0(%a: tensor<4x8xf16>, %g: tensor<8x2xf16>, %u: tensor<8x2xf16>):
    %p = fk.matmul %a, %g : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
    %q = fk.matmul %a, %u : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
    %y = fk.mul %p, %q : tensor<4x2xf16>
    fk.yield %y : tensor<4x2xf16>
  }
  return %0 : tensor<4x2xf16>
}
