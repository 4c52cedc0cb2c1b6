// fk-fuse alone, on primitive-stage IR (what fk-decompose and canonicalize
// leave: elementwise, shape, reduction, matmul and kept attention ops): each
// op goes into the fk.fusion (kernel) its cost model and vetoes choose
// (docs/fusion.md). The pass builds every fusion itself, result copies
// included; fk-form-fusions is the other plan (one op per fusion,
// --no-fusion). The reasons are checked in fuse-explain.mlir.
// RUN: fkc-opt %s --fk-fuse | FileCheck %s
// Fusions already in the graph are left as they are: a second run changes
// nothing.
// RUN: fkc-opt %s --fk-fuse --fk-fuse | FileCheck %s
// Fusing moves ops into kernels without changing what they compute: the
// reference interpreter prints the same results before and after.
// RUN: fkc-opt %s --fk-print-reference -o /dev/null > %t.graph.txt
// RUN: fkc-opt %s --fk-fuse --fk-print-reference -o /dev/null > %t.fused.txt
// RUN: FileCheck %s --input-file=%t.fused.txt --check-prefix=RESULTS
// RUN: diff %t.graph.txt %t.fused.txt
// RESULTS: @loop_chain result #0: tensor<7x33xf32>
// RESULTS: @existing_fusion result #0: tensor<4xf32>

// Loop fusion: an elementwise chain is one loop kernel; the splat constant is
// cloned into it rather than read.
// CHECK-LABEL: func.func @loop_chain
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<7x33xf32>, %[[Y:[a-z0-9_]+]]: tensor<7x33xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion loop(%[[X]], %[[Y]]) : (tensor<7x33xf32>, tensor<7x33xf32>) -> tensor<7x33xf32> {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<7x33xf32>, %[[B:[a-z0-9_]+]]: tensor<7x33xf32>):
// CHECK-NEXT:      %[[TWO:[a-z0-9_]+]] = fk.constant dense<2.000000e+00> : tensor<7x33xf32>
// CHECK-NEXT:      %[[H:[a-z0-9_]+]] = fk.add %[[A]], %[[B]]
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = fk.mul %[[H]], %[[TWO]]
// CHECK-NEXT:      %[[R:[a-z0-9_]+]] = fk.relu %[[M]]
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = fk.exp %[[R]]
// CHECK-NEXT:      fk.yield %[[E]] : tensor<7x33xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]] : tensor<7x33xf32>
func.func @loop_chain(%x: tensor<7x33xf32>, %y: tensor<7x33xf32>) -> tensor<7x33xf32> {
  %two = fk.constant dense<2.0> : tensor<7x33xf32>
  %h = fk.add %x, %y : tensor<7x33xf32>
  %m = fk.mul %h, %two : tensor<7x33xf32>
  %r = fk.relu %m : tensor<7x33xf32>
  %e = fk.exp %r : tensor<7x33xf32>
  return %e : tensor<7x33xf32>
}

// Multi-output: 'h' is also a graph result of the kernel's shape, so the
// kernel that computes it for its consumers writes it as a second result.
// CHECK-LABEL: func.func @extra_output
// CHECK-NEXT:    %[[F:[a-z0-9_]+]]:2 = fk.fusion loop(%{{[a-z0-9_]+}}) : (tensor<11x1xf16>) -> (tensor<11x1xf16>, tensor<11x1xf16>) {
// CHECK:           %[[H:[a-z0-9_]+]] = fk.tanh
// CHECK-NEXT:      %[[D:[a-z0-9_]+]] = fk.sub %[[H]]
// CHECK-NEXT:      %[[P:[a-z0-9_]+]] = fk.mul %[[H]], %[[D]]
// CHECK-NEXT:      fk.yield %[[P]], %[[H]] : tensor<11x1xf16>, tensor<11x1xf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]#0, %[[F]]#1
func.func @extra_output(%x: tensor<11x1xf16>) -> (tensor<11x1xf16>, tensor<11x1xf16>) {
  %one = fk.constant dense<1.0> : tensor<11x1xf16>
  %h = fk.tanh %x : tensor<11x1xf16>
  %d = fk.sub %h, %one : tensor<11x1xf16>
  %p = fk.mul %h, %d : tensor<11x1xf16>
  return %p, %h : tensor<11x1xf16>, tensor<11x1xf16>
}

// Broadcasts and a transpose cost no traffic inside a kernel: the kernel
// reads the vectors and the column, not their broadcast copies.
// CHECK-LABEL: func.func @index_ops
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<5x33xf32>, %[[B:[a-z0-9_]+]]: tensor<33xf32>, %[[S:[a-z0-9_]+]]: tensor<5x1xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion loop(%[[B]], %[[S]], %[[X]]) : (tensor<33xf32>, tensor<5x1xf32>, tensor<5x33xf32>) -> tensor<33x5xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.transpose
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @index_ops(%x: tensor<5x33xf32>, %b: tensor<33xf32>, %s: tensor<5x1xf32>) -> tensor<33x5xf32> {
  %bb = fk.broadcast %b : tensor<33xf32> -> tensor<5x33xf32>
  %sb = fk.broadcast %s : tensor<5x1xf32> -> tensor<5x33xf32>
  %a = fk.add %x, %bb : tensor<5x33xf32>
  %m = fk.mul %a, %sb : tensor<5x33xf32>
  %t = fk.transpose %m perm = [1, 0] : tensor<5x33xf32> -> tensor<33x5xf32>
  return %t : tensor<33x5xf32>
}

// A broadcast used by two kernels (a loop kernel and a row kernel) is
// duplicated into both: each reads the vector.
// CHECK-LABEL: func.func @duplicated_broadcast
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<33xf32>, %[[A:[a-z0-9_]+]]: tensor<7x33xf32>, %[[B:[a-z0-9_]+]]: tensor<7x33xf32>)
// CHECK-NEXT:    %[[M:[a-z0-9_]+]] = fk.fusion loop(%[[X]], %[[A]]) : (tensor<33xf32>, tensor<7x33xf32>) -> tensor<7x33xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:[a-z0-9_]+]] = fk.fusion reduction(%[[X]], %[[B]]) : (tensor<33xf32>, tensor<7x33xf32>) -> tensor<7xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[M]], %[[R]]
func.func @duplicated_broadcast(%x: tensor<33xf32>, %a: tensor<7x33xf32>, %b: tensor<7x33xf32>) -> (tensor<7x33xf32>, tensor<7xf32>) {
  %t = fk.broadcast %x : tensor<33xf32> -> tensor<7x33xf32>
  %m = fk.mul %a, %t : tensor<7x33xf32>
  %s = fk.add %b, %t : tensor<7x33xf32>
  %r = fk.reduce_sum %s axes = [1] : tensor<7x33xf32> -> tensor<7xf32>
  return %m, %r : tensor<7x33xf32>, tensor<7xf32>
}

// Veto, recomputation: an exp used by two kernels is not computed in each;
// it is a kernel of its own that both read.
// CHECK-LABEL: func.func @shared_arithmetic
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<8x16xf32>, %[[Y:[a-z0-9_]+]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[E:[a-z0-9_]+]] = fk.fusion loop(%[[X]]) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A:[a-z0-9_]+]] = fk.fusion loop(%[[E]], %[[Y]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%[[E]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[A]], %[[S]]
func.func @shared_arithmetic(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = fk.exp %x : tensor<8x16xf32>
  %a = fk.add %e, %y : tensor<8x16xf32>
  %s = fk.reduce_sum %e axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  return %a, %s : tensor<8x16xf32>, tensor<8xf32>
}

// Sibling fusion: two loop kernels that read x and write results of one type
// become one kernel with two results, which reads x once.
// CHECK-LABEL: func.func @siblings
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x32xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x32xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]]:2 = fk.fusion loop(%[[X]], %[[Y]]) : (tensor<4x32xf32>, tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x32xf32>, %[[B:[a-z0-9_]+]]: tensor<4x32xf32>):
// CHECK-NEXT:      %[[E:[a-z0-9_]+]] = fk.exp %[[A]]
// CHECK-NEXT:      %[[T:[a-z0-9_]+]] = fk.tanh %[[A]]
// CHECK-NEXT:      %[[M:[a-z0-9_]+]] = fk.mul %[[T]], %[[B]]
// CHECK-NEXT:      fk.yield %[[E]], %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]#0, %[[F]]#1
func.func @siblings(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %e = fk.exp %x : tensor<4x32xf32>
  %t = fk.tanh %x : tensor<4x32xf32>
  %m = fk.mul %t, %y : tensor<4x32xf32>
  return %e, %m : tensor<4x32xf32>, tensor<4x32xf32>
}

// Not siblings: exp(x) and tanh(y) share no input; exp(x) and the transposed
// sum share x but write results of another shape. Three kernels.
// CHECK-LABEL: func.func @not_siblings
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x32xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x32xf32>, %[[Z:[a-z0-9_]+]]: tensor<32x4xf32>)
// CHECK-NEXT:    fk.fusion loop(%[[X]]) : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:         fk.fusion loop(%[[Y]]) : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:         fk.fusion loop(%[[X]], %[[Z]]) : (tensor<4x32xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
// CHECK-NOT:     fk.fusion
// CHECK:         return
func.func @not_siblings(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>, %z: tensor<32x4xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<32x4xf32>) {
  %e = fk.exp %x : tensor<4x32xf32>
  %t = fk.tanh %y : tensor<4x32xf32>
  %l = fk.transpose %x perm = [1, 0] : tensor<4x32xf32> -> tensor<32x4xf32>
  %a = fk.add %l, %z : tensor<32x4xf32>
  return %e, %t, %a : tensor<4x32xf32>, tensor<4x32xf32>, tensor<32x4xf32>
}

// Input fusion: the square is computed inside the row reduction that reads
// it, and the exp inside the column reduction (which is not a row).
// CHECK-LABEL: func.func @input_fusion
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<7x1000xf32>, %[[C:[a-z0-9_]+]]: tensor<33x7xf32>)
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<7x1000xf32>) -> tensor<7xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:[a-z0-9_]+]] = fk.fusion reduction(%[[C]]) : (tensor<33x7xf32>) -> tensor<7xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.reduce_max {{.*}} axes = [0]
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]], %[[M]]
func.func @input_fusion(%x: tensor<7x1000xf32>, %c: tensor<33x7xf32>) -> (tensor<7xf32>, tensor<7xf32>) {
  %sq = fk.mul %x, %x : tensor<7x1000xf32>
  %s = fk.reduce_sum %sq axes = [1] : tensor<7x1000xf32> -> tensor<7xf32>
  %e = fk.exp %c : tensor<33x7xf32>
  %m = fk.reduce_max %e axes = [0] : tensor<33x7xf32> -> tensor<7xf32>
  return %s, %m : tensor<7xf32>, tensor<7xf32>
}

// Row fusion: a decomposed softmax (two reductions over the rows and the
// elementwise ops around them) is one reduction kernel that keeps each row
// on chip.
// CHECK-LABEL: func.func @softmax_rows
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x1000xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x1000xf32>) -> tensor<4x1000xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_max
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.sub
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.div
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @softmax_rows(%x: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %max = fk.reduce_max %x axes = [1] : tensor<4x1000xf32> -> tensor<4xf32>
  %maxr = fk.reshape %max : tensor<4xf32> -> tensor<4x1xf32>
  %maxb = fk.broadcast %maxr : tensor<4x1xf32> -> tensor<4x1000xf32>
  %d = fk.sub %x, %maxb : tensor<4x1000xf32>
  %e = fk.exp %d : tensor<4x1000xf32>
  %sum = fk.reduce_sum %e axes = [1] : tensor<4x1000xf32> -> tensor<4xf32>
  %sumr = fk.reshape %sum : tensor<4xf32> -> tensor<4x1xf32>
  %sumb = fk.broadcast %sumr : tensor<4x1xf32> -> tensor<4x1000xf32>
  %y = fk.div %e, %sumb : tensor<4x1000xf32>
  return %y : tensor<4x1000xf32>
}

// A decomposed f16 layernorm over rows of 7 (leading dims [3, 5]): one
// reduction kernel reading x, gamma and beta once, casts and eps inside.
// CHECK-LABEL: func.func @layernorm_rows
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<3x5x7xf16>, %[[G:[a-z0-9_]+]]: tensor<7xf16>, %[[B:[a-z0-9_]+]]: tensor<7xf16>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion reduction(%[[X]], %[[G]], %[[B]]) : (tensor<3x5x7xf16>, tensor<7xf16>, tensor<7xf16>) -> tensor<3x5x7xf16> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.constant dense<9.99999974E-6>
// CHECK-NEXT:      fk.cast
// CHECK-NEXT:      fk.reduce_mean {{.*}} axes = [2]
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.sub
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.reduce_mean {{.*}} axes = [2]
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.rsqrt
// CHECK-NEXT:      fk.cast
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.cast
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.cast
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @layernorm_rows(%x: tensor<3x5x7xf16>, %g: tensor<7xf16>, %b: tensor<7xf16>) -> tensor<3x5x7xf16> {
  %eps = fk.constant dense<9.99999974E-6> : tensor<3x5x7xf32>
  %x32 = fk.cast %x : tensor<3x5x7xf16> -> tensor<3x5x7xf32>
  %mean = fk.reduce_mean %x32 axes = [2] : tensor<3x5x7xf32> -> tensor<3x5xf32>
  %meanr = fk.reshape %mean : tensor<3x5xf32> -> tensor<3x5x1xf32>
  %meanb = fk.broadcast %meanr : tensor<3x5x1xf32> -> tensor<3x5x7xf32>
  %d = fk.sub %x32, %meanb : tensor<3x5x7xf32>
  %d2 = fk.mul %d, %d : tensor<3x5x7xf32>
  %var = fk.reduce_mean %d2 axes = [2] : tensor<3x5x7xf32> -> tensor<3x5xf32>
  %varr = fk.reshape %var : tensor<3x5xf32> -> tensor<3x5x1xf32>
  %varb = fk.broadcast %varr : tensor<3x5x1xf32> -> tensor<3x5x7xf32>
  %ve = fk.add %varb, %eps : tensor<3x5x7xf32>
  %inv = fk.rsqrt %ve : tensor<3x5x7xf32>
  %g32 = fk.cast %g : tensor<7xf16> -> tensor<7xf32>
  %gb = fk.broadcast %g32 : tensor<7xf32> -> tensor<3x5x7xf32>
  %b32 = fk.cast %b : tensor<7xf16> -> tensor<7xf32>
  %bb = fk.broadcast %b32 : tensor<7xf32> -> tensor<3x5x7xf32>
  %n = fk.mul %d, %inv : tensor<3x5x7xf32>
  %ng = fk.mul %n, %gb : tensor<3x5x7xf32>
  %y32 = fk.add %ng, %bb : tensor<3x5x7xf32>
  %y = fk.cast %y32 : tensor<3x5x7xf32> -> tensor<3x5x7xf16>
  return %y : tensor<3x5x7xf16>
}

// The residual sum 'h' of an add + rmsnorm is also a graph result: the row
// kernel writes it next to the normalized rows (no kernel of its own).
// CHECK-LABEL: func.func @residual_rmsnorm
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x64xf32>, %[[R:[a-z0-9_]+]]: tensor<4x64xf32>, %[[G:[a-z0-9_]+]]: tensor<64xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]]:2 = fk.fusion reduction(%[[X]], %[[R]], %[[G]]) : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
// CHECK:           %[[H:[a-z0-9_]+]] = fk.add %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<4x64xf32>
// CHECK-NEXT:      fk.mul %[[H]], %[[H]]
// CHECK-NEXT:      fk.reduce_mean
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.rsqrt
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.mul %[[H]]
// CHECK-NEXT:      %[[Y:[a-z0-9_]+]] = fk.mul
// CHECK-NEXT:      fk.yield %[[Y]], %[[H]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]#0, %[[F]]#1
func.func @residual_rmsnorm(%x: tensor<4x64xf32>, %r: tensor<4x64xf32>, %g: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %eps = fk.constant dense<9.99999997E-7> : tensor<4x64xf32>
  %h = fk.add %x, %r : tensor<4x64xf32>
  %sq = fk.mul %h, %h : tensor<4x64xf32>
  %ms = fk.reduce_mean %sq axes = [1] : tensor<4x64xf32> -> tensor<4xf32>
  %msr = fk.reshape %ms : tensor<4xf32> -> tensor<4x1xf32>
  %msb = fk.broadcast %msr : tensor<4x1xf32> -> tensor<4x64xf32>
  %me = fk.add %msb, %eps : tensor<4x64xf32>
  %inv = fk.rsqrt %me : tensor<4x64xf32>
  %gb = fk.broadcast %g : tensor<64xf32> -> tensor<4x64xf32>
  %n = fk.mul %h, %inv : tensor<4x64xf32>
  %y = fk.mul %n, %gb : tensor<4x64xf32>
  return %y, %h : tensor<4x64xf32>, tensor<4x64xf32>
}

// Veto, not a row: a reduction over the leading axis keeps a kernel of its
// own; the reshape and broadcast that spread it go into the consumer.
// CHECK-LABEL: func.func @column_sums
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<33x4xf32>)
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<33x4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D:[a-z0-9_]+]] = fk.fusion loop(%[[S]], %[[X]]) : (tensor<4xf32>, tensor<33x4xf32>) -> tensor<33x4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.sub
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[D]]
func.func @column_sums(%x: tensor<33x4xf32>) -> tensor<33x4xf32> {
  %s = fk.reduce_sum %x axes = [0] : tensor<33x4xf32> -> tensor<4xf32>
  %sr = fk.reshape %s : tensor<4xf32> -> tensor<1x4xf32>
  %sb = fk.broadcast %sr : tensor<1x4xf32> -> tensor<33x4xf32>
  %d = fk.sub %x, %sb : tensor<33x4xf32>
  return %d : tensor<33x4xf32>
}

// Veto, rows too long: rows of 16385 elements do not fit on chip
// (kMaxFusedRowLength = 16384), so the max is a kernel of its own...
// CHECK-LABEL: func.func @long_rows
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<2x16385xf32>)
// CHECK-NEXT:    %[[M:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<2x16385xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_max
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    fk.fusion loop(%[[M]], %[[X]]) : (tensor<2xf32>, tensor<2x16385xf32>) -> tensor<2x16385xf32>
func.func @long_rows(%x: tensor<2x16385xf32>) -> tensor<2x16385xf32> {
  %m = fk.reduce_max %x axes = [1] : tensor<2x16385xf32> -> tensor<2xf32>
  %mr = fk.reshape %m : tensor<2xf32> -> tensor<2x1xf32>
  %mb = fk.broadcast %mr : tensor<2x1xf32> -> tensor<2x16385xf32>
  %d = fk.sub %x, %mb : tensor<2x16385xf32>
  return %d : tensor<2x16385xf32>
}

// ...while rows of exactly 16384 (two reduced axes of 128) still fuse.
// CHECK-LABEL: func.func @longest_rows
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion reduction(%{{[a-z0-9_]+}}) : (tensor<2x128x128xf16>) -> tensor<2x128x128xf16> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_max {{.*}} axes = [1, 2]
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.sub
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @longest_rows(%x: tensor<2x128x128xf16>) -> tensor<2x128x128xf16> {
  %m = fk.reduce_max %x axes = [1, 2] : tensor<2x128x128xf16> -> tensor<2xf16>
  %mr = fk.reshape %m : tensor<2xf16> -> tensor<2x1x1xf16>
  %mb = fk.broadcast %mr : tensor<2x1x1xf16> -> tensor<2x128x128xf16>
  %d = fk.sub %x, %mb : tensor<2x128x128xf16>
  return %d : tensor<2x128x128xf16>
}

// Veto, empty rows: nothing to keep on chip; the sum (its identity) is a
// kernel of its own.
// CHECK-LABEL: func.func @empty_rows
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%{{[a-z0-9_]+}}) : (tensor<4x0xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    fk.fusion loop(%[[S]], %{{[a-z0-9_]+}}) : (tensor<4xf32>, tensor<4x0xf32>) -> tensor<4x0xf32>
func.func @empty_rows(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
  %s = fk.reduce_sum %x axes = [1] : tensor<4x0xf32> -> tensor<4xf32>
  %sr = fk.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  %sb = fk.broadcast %sr : tensor<4x1xf32> -> tensor<4x0xf32>
  %d = fk.sub %x, %sb : tensor<4x0xf32>
  return %d : tensor<4x0xf32>
}

// Veto, misaligned rows: broadcast([6] -> [6, 6]) spreads the sums along the
// columns, so row i needs every row's sum; the sum stays out of the kernel.
// CHECK-LABEL: func.func @across_rows
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<6x6xf32>)
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<6x6xf32>) -> tensor<6xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    fk.fusion loop(%[[S]], %[[X]]) : (tensor<6xf32>, tensor<6x6xf32>) -> tensor<6x6xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.yield
func.func @across_rows(%x: tensor<6x6xf32>) -> tensor<6x6xf32> {
  %s = fk.reduce_sum %x axes = [1] : tensor<6x6xf32> -> tensor<6xf32>
  %sb = fk.broadcast %s : tensor<6xf32> -> tensor<6x6xf32>
  %y = fk.mul %x, %sb : tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}

// Veto, reductions of different shapes: rows of 16 (of y) join the add's
// kernel first; rows of 8 (of x) are another row space, a kernel of their
// own.
// CHECK-LABEL: func.func @other_row_space
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x16xf32>)
// CHECK-NEXT:    %[[SX:[a-z0-9_]+]] = fk.fusion reduction(%[[X]]) : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.fusion reduction(%[[Y]], %[[SX]]) : (tensor<4x16xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum {{.*}} : tensor<4x16xf32> -> tensor<4xf32>
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]]
func.func @other_row_space(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> tensor<4xf32> {
  %sx = fk.reduce_sum %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sy = fk.reduce_sum %y axes = [1] : tensor<4x16xf32> -> tensor<4xf32>
  %s = fk.add %sx, %sy : tensor<4xf32>
  return %s : tensor<4xf32>
}

// Matmul epilogues: bias and gelu join the first matmul's kernel, the
// residual add the second's; gelu, an operand of the second matmul, stays
// out of the second kernel (the tensor-core kernel reads operands by TMA).
// CHECK-LABEL: func.func @mlp
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<64x128xf16>, %[[W1:[a-z0-9_]+]]: tensor<128x256xf16>, %[[B1:[a-z0-9_]+]]: tensor<256xf16>, %[[W2:[a-z0-9_]+]]: tensor<256x128xf16>)
// CHECK-NEXT:    %[[H:[a-z0-9_]+]] = fk.fusion matmul(%[[X]], %[[W1]], %[[B1]]) : (tensor<64x128xf16>, tensor<128x256xf16>, tensor<256xf16>) -> tensor<64x256xf16> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.matmul
// CHECK-NEXT:      fk.broadcast
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.gelu
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.fusion matmul(%[[H]], %[[W2]], %[[X]]) : (tensor<64x256xf16>, tensor<256x128xf16>, tensor<64x128xf16>) -> tensor<64x128xf16> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.matmul
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @mlp(%x: tensor<64x128xf16>, %w1: tensor<128x256xf16>, %b1: tensor<256xf16>, %w2: tensor<256x128xf16>) -> tensor<64x128xf16> {
  %mm1 = fk.matmul %x, %w1 : tensor<64x128xf16>, tensor<128x256xf16> -> tensor<64x256xf16>
  %bb = fk.broadcast %b1 : tensor<256xf16> -> tensor<64x256xf16>
  %a = fk.add %mm1, %bb : tensor<64x256xf16>
  %h = fk.gelu %a approximate = tanh : tensor<64x256xf16>
  %mm2 = fk.matmul %h, %w2 : tensor<64x256xf16>, tensor<256x128xf16> -> tensor<64x128xf16>
  %y = fk.add %mm2, %x : tensor<64x128xf16>
  return %y : tensor<64x128xf16>
}

// Veto, prologue: what computes a matmul's operand is a loop kernel of its
// own.
// CHECK-LABEL: func.func @matmul_prologue
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<7x33xf32>, %[[W:[a-z0-9_]+]]: tensor<33x9xf32>)
// CHECK-NEXT:    %[[R:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.constant
// CHECK-NEXT:      fk.mul
// CHECK-NEXT:      fk.relu
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.fusion matmul(%[[R]], %[[W]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.matmul
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @matmul_prologue(%x: tensor<7x33xf32>, %w: tensor<33x9xf32>) -> tensor<7x9xf32> {
  %two = fk.constant dense<2.0> : tensor<7x33xf32>
  %m = fk.mul %x, %two : tensor<7x33xf32>
  %r = fk.relu %m : tensor<7x33xf32>
  %y = fk.matmul %r, %w : tensor<7x33xf32>, tensor<33x9xf32> -> tensor<7x9xf32>
  return %y : tensor<7x9xf32>
}

// Veto, not an epilogue: the transpose reads the product at other
// coordinates, so the matmul keeps its kernel and the transpose and exp form
// a loop kernel.
// CHECK-LABEL: func.func @matmul_transposed
// CHECK-NEXT:    %[[MM:[a-z0-9_]+]] = fk.fusion matmul
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.matmul
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    fk.fusion loop(%[[MM]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.transpose
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
func.func @matmul_transposed(%a: tensor<4x6xf32>, %b: tensor<6x4xf32>) -> tensor<4x4xf32> {
  %mm = fk.matmul %a, %b : tensor<4x6xf32>, tensor<6x4xf32> -> tensor<4x4xf32>
  %t = fk.transpose %mm perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %e = fk.exp %t : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// Veto, a reduction is no epilogue: the matmul stays out of the row kernel
// that sums its rows.
// CHECK-LABEL: func.func @matmul_into_rows
// CHECK-NEXT:    %[[MM:[a-z0-9_]+]] = fk.fusion matmul
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.matmul
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    fk.fusion reduction(%[[MM]]) : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.reduce_sum
// CHECK-NEXT:      fk.reshape
// CHECK-NEXT:      fk.yield
func.func @matmul_into_rows(%a: tensor<4x6xf32>, %b: tensor<6x8xf32>) -> tensor<4x1xf32> {
  %mm = fk.matmul %a, %b : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %s = fk.reduce_sum %mm axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sr = fk.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  return %sr : tensor<4x1xf32>
}

// An attention (kept whole for the flash kernel) takes its residual add as
// an epilogue (kind attention); the transpose computing its query stays out.
// CHECK-LABEL: func.func @attention_epilogue
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<1x64x8xf16>, %[[K:[a-z0-9_]+]]: tensor<1x8x64xf16>, %[[V:[a-z0-9_]+]]: tensor<1x8x64xf16>, %[[R:[a-z0-9_]+]]: tensor<1x8x64xf16>)
// CHECK-NEXT:    %[[Q:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.transpose
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.fusion attention(%[[Q]], %[[K]], %[[V]], %[[R]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.attention
// CHECK-NEXT:      fk.add
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Y]]
func.func @attention_epilogue(%x: tensor<1x64x8xf16>, %k: tensor<1x8x64xf16>, %v: tensor<1x8x64xf16>, %r: tensor<1x8x64xf16>) -> tensor<1x8x64xf16> {
  %q = fk.transpose %x perm = [0, 2, 1] : tensor<1x64x8xf16> -> tensor<1x8x64xf16>
  %o = fk.attention %q, %k, %v scale = 0.125 causal = true : tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1x8x64xf16> -> tensor<1x8x64xf16>
  %y = fk.add %o, %r : tensor<1x8x64xf16>
  return %y : tensor<1x8x64xf16>
}

// Every graph result is written by a kernel: a returned argument, a value
// returned a second time and a returned splat constant get copy kernels.
// CHECK-LABEL: func.func @copies
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E:[a-z0-9_]+]] = fk.fusion loop(%[[Y]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[XC:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      fk.yield %[[A]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[EC:[a-z0-9_]+]] = fk.fusion loop(%[[E]])
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: tensor<4xf32>):
// CHECK-NEXT:      fk.yield %[[A]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[C:[a-z0-9_]+]] = fk.fusion loop : () -> tensor<4xf32> {
// CHECK-NEXT:      fk.constant dense<1.500000e+00>
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[XC]], %[[E]], %[[EC]], %[[C]]
func.func @copies(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = fk.constant dense<1.5> : tensor<4xf32>
  %e = fk.exp %y : tensor<4xf32>
  return %x, %e, %e, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A fusion in the input stays as it is; the ops after it form a kernel that
// reads its result.
// CHECK-LABEL: func.func @existing_fusion
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[F:[a-z0-9_]+]] = fk.fusion loop(%[[X]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.tanh
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[G:[a-z0-9_]+]] = fk.fusion loop(%[[F]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      fk.neg
// CHECK-NEXT:      fk.exp
// CHECK-NEXT:      fk.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @existing_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %f = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %t = fk.tanh %a : tensor<4xf32>
    fk.yield %t : tensor<4xf32>
  }
  %n = fk.neg %f : tensor<4xf32>
  %e = fk.exp %n : tensor<4xf32>
  return %e : tensor<4xf32>
}
