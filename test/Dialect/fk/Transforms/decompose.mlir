// fk-decompose rewrites softmax, layernorm, rmsnorm, attention, argmax and
// argmin into the
// reductions, matmuls and elementwise ops of their definitions; f16/bf16
// operands are cast to f32 first and the result back (every attention here:
// `every-attention`). Which attentions it keeps whole for the module's
// target, and `explain`, are tested in decompose-target.mlir.
// RUN: fkc-opt %s --fk-decompose=every-attention=true | FileCheck %s

// The decomposition computes what the composite ops compute: on seeded random
// inputs (every stage up to primitive against the graph)...
// RUN: fkc %s --emit=primitive --verify-stages --seed 5 | FileCheck %s --check-prefix=DIFF
// DIFF-NOT: MISMATCH
// DIFF: verify-stages @softmax_f32 result #0 at primitive: ok
// DIFF: verify-stages @softmax_f16 result #0 at primitive: ok
// DIFF: verify-stages @layernorm_middle_axis result #0 at primitive: ok
// DIFF: verify-stages @rmsnorm_bf16 result #0 at primitive: ok
// DIFF: verify-stages @attention result #0 at primitive: ok
// DIFF: verify-stages @attention_mask result #0 at primitive: ok
// DIFF: verify-stages @attention_causal result #0 at primitive: ok
// DIFF: verify-stages @attention_causal_more_queries result #0 at primitive: ok
// DIFF: verify-stages @layernorm_f16 result #0 at primitive: ok
// DIFF: verify-stages @attention_gqa result #0 at primitive: ok
// DIFF: verify-stages @attention_mask_causal result #0 at primitive: ok
// ...and on the hand-computed cases of the reference interpreter's tests.
// RUN: fkc-opt %fkc_src_root/test/Reference/normalization.mlir --fk-decompose --fk-print-reference | FileCheck %fkc_src_root/test/Reference/normalization.mlir
// RUN: fkc-opt %fkc_src_root/test/Reference/attention.mlir --fk-decompose=every-attention=true --fk-print-reference | FileCheck %fkc_src_root/test/Reference/attention.mlir
// RUN: fkc-opt %fkc_src_root/test/Reference/indexing.mlir --fk-decompose --fk-print-reference | FileCheck %fkc_src_root/test/Reference/indexing.mlir

// The attentions here (head dims 8 and 4) are decomposed on any target.
module attributes {fk.target = #fk.target<chip = "sm_90a">} {

// softmax: e = exp(x - max(x)), e / sum(e), the reductions reshaped to keep
// the axis as size 1 and broadcast back.
// CHECK-LABEL: func.func @softmax_f32
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<2x8xf32>)
// CHECK-NOT:     fk.softmax
// CHECK:         %[[MAX:[a-z0-9_]+]] = fk.reduce_max %[[X]] axes = [1] : tensor<2x8xf32> -> tensor<2xf32>
// CHECK:         %[[MAXR:[a-z0-9_]+]] = fk.reshape %[[MAX]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK:         %[[MAXB:[a-z0-9_]+]] = fk.broadcast %[[MAXR]] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK:         %[[SHIFTED:[a-z0-9_]+]] = fk.sub %[[X]], %[[MAXB]] : tensor<2x8xf32>
// CHECK:         %[[E:[a-z0-9_]+]] = fk.exp %[[SHIFTED]] : tensor<2x8xf32>
// CHECK:         %[[SUM:[a-z0-9_]+]] = fk.reduce_sum %[[E]] axes = [1] : tensor<2x8xf32> -> tensor<2xf32>
// CHECK:         %[[SUMR:[a-z0-9_]+]] = fk.reshape %[[SUM]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK:         %[[SUMB:[a-z0-9_]+]] = fk.broadcast %[[SUMR]] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK:         %[[Y:[a-z0-9_]+]] = fk.div %[[E]], %[[SUMB]] : tensor<2x8xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x8xf32>
func.func @softmax_f32(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = fk.softmax %x axis = 1 : tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// f16 along a leading axis: the work is in f32 between two casts.
// CHECK-LABEL: func.func @softmax_f16
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x3xf16>)
// CHECK-NEXT:    %[[X32:[a-z0-9_]+]] = fk.cast %[[X]] : tensor<4x3xf16> -> tensor<4x3xf32>
// CHECK-NEXT:    %[[MAX:[a-z0-9_]+]] = fk.reduce_max %[[X32]] axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[MAXR:[a-z0-9_]+]] = fk.reshape %[[MAX]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    %[[MAXB:[a-z0-9_]+]] = fk.broadcast %[[MAXR]] : tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    %[[SHIFTED:[a-z0-9_]+]] = fk.sub %[[X32]], %[[MAXB]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[E:[a-z0-9_]+]] = fk.exp %[[SHIFTED]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[SUM:[a-z0-9_]+]] = fk.reduce_sum %[[E]] axes = [0] : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[SUMR:[a-z0-9_]+]] = fk.reshape %[[SUM]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    %[[SUMB:[a-z0-9_]+]] = fk.broadcast %[[SUMR]] : tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    %[[Y32:[a-z0-9_]+]] = fk.div %[[E]], %[[SUMB]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.cast %[[Y32]] : tensor<4x3xf32> -> tensor<4x3xf16>
// CHECK-NEXT:    return %[[Y]] : tensor<4x3xf16>
func.func @softmax_f16(%x: tensor<4x3xf16>) -> tensor<4x3xf16> {
  %r = fk.softmax %x axis = 0 : tensor<4x3xf16>
  return %r : tensor<4x3xf16>
}

// layernorm along axis 1 of three: the statistics reduce axis 1 only, and
// gamma and beta are reshaped to [3, 1] so that they broadcast along axis 1
// (not along the last axis).
// CHECK-LABEL: func.func @layernorm_middle_axis
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<2x3x5xf32>, %[[G:[a-z0-9_]+]]: tensor<3xf32>, %[[B:[a-z0-9_]+]]: tensor<3xf32>)
// CHECK-NOT:     fk.cast
// CHECK:         %[[MEAN:[a-z0-9_]+]] = fk.reduce_mean %[[X]] axes = [1] : tensor<2x3x5xf32> -> tensor<2x5xf32>
// CHECK:         %[[MEANR:[a-z0-9_]+]] = fk.reshape %[[MEAN]] : tensor<2x5xf32> -> tensor<2x1x5xf32>
// CHECK:         %[[MEANB:[a-z0-9_]+]] = fk.broadcast %[[MEANR]] : tensor<2x1x5xf32> -> tensor<2x3x5xf32>
// CHECK:         %[[D:[a-z0-9_]+]] = fk.sub %[[X]], %[[MEANB]] : tensor<2x3x5xf32>
// CHECK:         %[[D2:[a-z0-9_]+]] = fk.mul %[[D]], %[[D]] : tensor<2x3x5xf32>
// CHECK:         %[[VAR:[a-z0-9_]+]] = fk.reduce_mean %[[D2]] axes = [1] : tensor<2x3x5xf32> -> tensor<2x5xf32>
// CHECK:         %[[VARR:[a-z0-9_]+]] = fk.reshape %[[VAR]] : tensor<2x5xf32> -> tensor<2x1x5xf32>
// CHECK:         %[[VARB:[a-z0-9_]+]] = fk.broadcast %[[VARR]] : tensor<2x1x5xf32> -> tensor<2x3x5xf32>
// CHECK:         %[[EPS:[a-z0-9_]+]] = fk.constant dense<9.99999974E-6> : tensor<2x3x5xf32>
// CHECK:         %[[VE:[a-z0-9_]+]] = fk.add %[[VARB]], %[[EPS]] : tensor<2x3x5xf32>
// CHECK:         %[[INV:[a-z0-9_]+]] = fk.rsqrt %[[VE]] : tensor<2x3x5xf32>
// CHECK:         %[[GR:[a-z0-9_]+]] = fk.reshape %[[G]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK:         %[[GB:[a-z0-9_]+]] = fk.broadcast %[[GR]] : tensor<3x1xf32> -> tensor<2x3x5xf32>
// CHECK:         %[[BR:[a-z0-9_]+]] = fk.reshape %[[B]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK:         %[[BB:[a-z0-9_]+]] = fk.broadcast %[[BR]] : tensor<3x1xf32> -> tensor<2x3x5xf32>
// CHECK:         %[[N:[a-z0-9_]+]] = fk.mul %[[D]], %[[INV]] : tensor<2x3x5xf32>
// CHECK:         %[[NG:[a-z0-9_]+]] = fk.mul %[[N]], %[[GB]] : tensor<2x3x5xf32>
// CHECK:         %[[Y:[a-z0-9_]+]] = fk.add %[[NG]], %[[BB]] : tensor<2x3x5xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x3x5xf32>
func.func @layernorm_middle_axis(%x: tensor<2x3x5xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %r = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>
  return %r : tensor<2x3x5xf32>
}

// rmsnorm in bf16: x * rsqrt(mean(x * x) + eps) * gamma in f32; gamma of
// the last axis broadcasts without a reshape.
// CHECK-LABEL: func.func @rmsnorm_bf16
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x8xbf16>, %[[G:[a-z0-9_]+]]: tensor<8xbf16>)
// CHECK:         %[[X32:[a-z0-9_]+]] = fk.cast %[[X]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK:         %[[SQ:[a-z0-9_]+]] = fk.mul %[[X32]], %[[X32]] : tensor<4x8xf32>
// CHECK:         %[[MS:[a-z0-9_]+]] = fk.reduce_mean %[[SQ]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK:         %[[MSR:[a-z0-9_]+]] = fk.reshape %[[MS]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK:         %[[MSB:[a-z0-9_]+]] = fk.broadcast %[[MSR]] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK:         %[[EPS:[a-z0-9_]+]] = fk.constant dense<9.99999997E-7> : tensor<4x8xf32>
// CHECK:         %[[ME:[a-z0-9_]+]] = fk.add %[[MSB]], %[[EPS]] : tensor<4x8xf32>
// CHECK:         %[[INV:[a-z0-9_]+]] = fk.rsqrt %[[ME]] : tensor<4x8xf32>
// CHECK:         %[[G32:[a-z0-9_]+]] = fk.cast %[[G]] : tensor<8xbf16> -> tensor<8xf32>
// CHECK-NOT:     fk.reshape
// CHECK:         %[[GB:[a-z0-9_]+]] = fk.broadcast %[[G32]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK:         %[[N:[a-z0-9_]+]] = fk.mul %[[X32]], %[[INV]] : tensor<4x8xf32>
// CHECK:         %[[Y32:[a-z0-9_]+]] = fk.mul %[[N]], %[[GB]] : tensor<4x8xf32>
// CHECK:         %[[Y:[a-z0-9_]+]] = fk.cast %[[Y32]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xbf16>
func.func @rmsnorm_bf16(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %r = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xbf16>, tensor<8xbf16>
  return %r : tensor<4x8xbf16>
}

// attention: softmax(scale * q @ k^T) @ v, the transpose swapping the last
// two axes of k and the softmax over the key axis.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x4x8xf32>, %[[K:[a-z0-9_]+]]: tensor<2x6x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x6x5xf32>)
// CHECK-NOT:     fk.attention
// CHECK:         %[[KT:[a-z0-9_]+]] = fk.transpose %[[K]] perm = [0, 2, 1] : tensor<2x6x8xf32> -> tensor<2x8x6xf32>
// CHECK:         %[[S:[a-z0-9_]+]] = fk.matmul %[[Q]], %[[KT]] : tensor<2x4x8xf32>, tensor<2x8x6xf32> -> tensor<2x4x6xf32>
// CHECK:         %[[SCALE:[a-z0-9_]+]] = fk.constant dense<2.500000e-01> : tensor<2x4x6xf32>
// CHECK:         %[[SS:[a-z0-9_]+]] = fk.mul %[[S]], %[[SCALE]] : tensor<2x4x6xf32>
// CHECK-NOT:     fk.iota
// CHECK:         %[[MAX:[a-z0-9_]+]] = fk.reduce_max %[[SS]] axes = [2] : tensor<2x4x6xf32> -> tensor<2x4xf32>
// CHECK:         fk.sub %[[SS]], %{{[a-z0-9_]+}} : tensor<2x4x6xf32>
// CHECK:         %[[E:[a-z0-9_]+]] = fk.exp
// CHECK:         fk.reduce_sum %[[E]] axes = [2] : tensor<2x4x6xf32> -> tensor<2x4xf32>
// CHECK:         %[[P:[a-z0-9_]+]] = fk.div %[[E]], %{{[a-z0-9_]+}} : tensor<2x4x6xf32>
// CHECK:         %[[O:[a-z0-9_]+]] = fk.matmul %[[P]], %[[V]] : tensor<2x4x6xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT:    return %[[O]] : tensor<2x4x5xf32>
func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %r = fk.attention %q, %k, %v scale = 0.25 causal = false : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// An f16 mask with a batch axis that q and k lack (v has it): the scaled
// scores are broadcast to the mask's batch before it is added, in f32.
// CHECK-LABEL: func.func @attention_mask
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<4x8xf16>, %[[K:[a-z0-9_]+]]: tensor<6x8xf16>, %[[V:[a-z0-9_]+]]: tensor<3x6x5xf16>, %[[M:[a-z0-9_]+]]: tensor<3x1x6xf16>)
// CHECK-DAG:     %[[Q32:[a-z0-9_]+]] = fk.cast %[[Q]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-DAG:     %[[K32:[a-z0-9_]+]] = fk.cast %[[K]] : tensor<6x8xf16> -> tensor<6x8xf32>
// CHECK-DAG:     %[[V32:[a-z0-9_]+]] = fk.cast %[[V]] : tensor<3x6x5xf16> -> tensor<3x6x5xf32>
// CHECK:         %[[KT:[a-z0-9_]+]] = fk.transpose %[[K32]] perm = [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
// CHECK:         %[[S:[a-z0-9_]+]] = fk.matmul %[[Q32]], %[[KT]] : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK:         %[[SCALE:[a-z0-9_]+]] = fk.constant dense<2.500000e-01> : tensor<4x6xf32>
// CHECK:         %[[SS:[a-z0-9_]+]] = fk.mul %[[S]], %[[SCALE]] : tensor<4x6xf32>
// CHECK:         %[[SB:[a-z0-9_]+]] = fk.broadcast %[[SS]] : tensor<4x6xf32> -> tensor<3x4x6xf32>
// CHECK:         %[[M32:[a-z0-9_]+]] = fk.cast %[[M]] : tensor<3x1x6xf16> -> tensor<3x1x6xf32>
// CHECK:         %[[MB:[a-z0-9_]+]] = fk.broadcast %[[M32]] : tensor<3x1x6xf32> -> tensor<3x4x6xf32>
// CHECK:         %[[SM:[a-z0-9_]+]] = fk.add %[[SB]], %[[MB]] : tensor<3x4x6xf32>
// CHECK:         fk.reduce_max %[[SM]] axes = [2] : tensor<3x4x6xf32> -> tensor<3x4xf32>
// CHECK:         %[[P:[a-z0-9_]+]] = fk.div
// CHECK:         %[[O:[a-z0-9_]+]] = fk.matmul %[[P]], %[[V32]] : tensor<3x4x6xf32>, tensor<3x6x5xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.cast %[[O]] : tensor<3x4x5xf32> -> tensor<3x4x5xf16>
// CHECK-NEXT:    return %[[Y]] : tensor<3x4x5xf16>
func.func @attention_mask(%q: tensor<4x8xf16>, %k: tensor<6x8xf16>, %v: tensor<3x6x5xf16>, %m: tensor<3x1x6xf16>) -> tensor<3x4x5xf16> {
  %r = fk.attention %q, %k, %v mask %m : tensor<3x1x6xf16> scale = 0.25 causal = false : tensor<4x8xf16>, tensor<6x8xf16>, tensor<3x6x5xf16> -> tensor<3x4x5xf16>
  return %r : tensor<3x4x5xf16>
}

// causal with Nq = 4 < Nk = 6: query i sees keys j <= i + 2, so the penalty
// is select(iota(dim 1) > iota(dim 0) + 2, -inf, 0), added to the scaled
// scores before the softmax.
// CHECK-LABEL: func.func @attention_causal
// CHECK:         %[[S:[a-z0-9_]+]] = fk.matmul
// CHECK:         %[[SS:[a-z0-9_]+]] = fk.mul %[[S]], %{{[a-z0-9_]+}} : tensor<2x4x6xf32>
// CHECK-DAG:     %[[ROWS:[a-z0-9_]+]] = fk.iota dim = 0 : tensor<4x6xi32>
// CHECK-DAG:     %[[COLS:[a-z0-9_]+]] = fk.iota dim = 1 : tensor<4x6xi32>
// CHECK-DAG:     %[[SHIFT:[a-z0-9_]+]] = fk.constant dense<2> : tensor<4x6xi32>
// CHECK:         %[[LAST:[a-z0-9_]+]] = fk.add %[[ROWS]], %[[SHIFT]] : tensor<4x6xi32>
// CHECK:         %[[HIDDEN:[a-z0-9_]+]] = fk.compare gt, %[[COLS]], %[[LAST]] : tensor<4x6xi32> -> tensor<4x6xi1>
// CHECK-DAG:     %[[NEGINF:[a-z0-9_]+]] = fk.constant dense<0xFF800000> : tensor<4x6xf32>
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = fk.constant dense<0.000000e+00> : tensor<4x6xf32>
// CHECK:         %[[PEN:[a-z0-9_]+]] = fk.select %[[HIDDEN]], %[[NEGINF]], %[[ZERO]] : tensor<4x6xi1>, tensor<4x6xf32>
// CHECK:         %[[PENB:[a-z0-9_]+]] = fk.broadcast %[[PEN]] : tensor<4x6xf32> -> tensor<2x4x6xf32>
// CHECK:         %[[MASKED:[a-z0-9_]+]] = fk.add %[[SS]], %[[PENB]] : tensor<2x4x6xf32>
// CHECK:         fk.reduce_max %[[MASKED]] axes = [2]
// CHECK:         fk.sub %[[MASKED]], %{{[a-z0-9_]+}} : tensor<2x4x6xf32>
// CHECK:         fk.matmul
// CHECK-NEXT:    return
func.func @attention_causal(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %r = fk.attention %q, %k, %v scale = 0.25 causal = true : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// Nq = 5 > Nk = 3: the shift is negative, and query 0 and 1 see no key (NaN
// rows, which --verify-stages requires at the same positions).
// CHECK-LABEL: func.func @attention_causal_more_queries
// CHECK-DAG:     %[[ROWS:[a-z0-9_]+]] = fk.iota dim = 0 : tensor<5x3xi32>
// CHECK-DAG:     %[[COLS:[a-z0-9_]+]] = fk.iota dim = 1 : tensor<5x3xi32>
// CHECK-DAG:     %[[SHIFT:[a-z0-9_]+]] = fk.constant dense<-2> : tensor<5x3xi32>
// CHECK:         %[[LAST:[a-z0-9_]+]] = fk.add %[[ROWS]], %[[SHIFT]] : tensor<5x3xi32>
// CHECK:         fk.compare gt, %[[COLS]], %[[LAST]] : tensor<5x3xi32> -> tensor<5x3xi1>
func.func @attention_causal_more_queries(%q: tensor<5x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %r = fk.attention %q, %k, %v scale = 0.5 causal = true : tensor<5x4xf32>, tensor<3x4xf32>, tensor<3x2xf32> -> tensor<5x2xf32>
  return %r : tensor<5x2xf32>
}

// layernorm in f16 along the last axis: x, gamma and beta cast to f32, gamma
// and beta broadcast without a reshape, the result cast back.
// CHECK-LABEL: func.func @layernorm_f16
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<4x8xf16>, %[[G:[a-z0-9_]+]]: tensor<8xf16>, %[[B:[a-z0-9_]+]]: tensor<8xf16>)
// CHECK-NEXT:    %[[X32:[a-z0-9_]+]] = fk.cast %[[X]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[MEAN:[a-z0-9_]+]] = fk.reduce_mean %[[X32]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK:         %[[D:[a-z0-9_]+]] = fk.sub %[[X32]], %{{[a-z0-9_]+}} : tensor<4x8xf32>
// CHECK:         %[[INV:[a-z0-9_]+]] = fk.rsqrt
// CHECK-NEXT:    %[[G32:[a-z0-9_]+]] = fk.cast %[[G]] : tensor<8xf16> -> tensor<8xf32>
// CHECK-NEXT:    %[[GB:[a-z0-9_]+]] = fk.broadcast %[[G32]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[B32:[a-z0-9_]+]] = fk.cast %[[B]] : tensor<8xf16> -> tensor<8xf32>
// CHECK-NEXT:    %[[BB:[a-z0-9_]+]] = fk.broadcast %[[B32]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[N:[a-z0-9_]+]] = fk.mul %[[D]], %[[INV]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[NG:[a-z0-9_]+]] = fk.mul %[[N]], %[[GB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[Y32:[a-z0-9_]+]] = fk.add %[[NG]], %[[BB]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:[a-z0-9_]+]] = fk.cast %[[Y32]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xf16>
func.func @layernorm_f16(%x: tensor<4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %r = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>
  return %r : tensor<4x8xf16>
}

// Grouped-query attention, rank 4: K and V have one head for four query
// heads; the matmuls broadcast them (no broadcast op materializes them), and
// the softmax is over axis 3.
// CHECK-LABEL: func.func @attention_gqa
// CHECK-SAME:    (%[[Q:[a-z0-9_]+]]: tensor<2x4x6x8xf32>, %[[K:[a-z0-9_]+]]: tensor<2x1x5x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x1x5x3xf32>)
// CHECK-NOT:     fk.broadcast %[[K]]
// CHECK:         %[[KT:[a-z0-9_]+]] = fk.transpose %[[K]] perm = [0, 1, 3, 2] : tensor<2x1x5x8xf32> -> tensor<2x1x8x5xf32>
// CHECK-NEXT:    %[[S:[a-z0-9_]+]] = fk.matmul %[[Q]], %[[KT]] : tensor<2x4x6x8xf32>, tensor<2x1x8x5xf32> -> tensor<2x4x6x5xf32>
// CHECK:         fk.reduce_max %{{[a-z0-9_]+}} axes = [3] : tensor<2x4x6x5xf32> -> tensor<2x4x6xf32>
// CHECK:         %[[P:[a-z0-9_]+]] = fk.div
// CHECK-NEXT:    %[[O:[a-z0-9_]+]] = fk.matmul %[[P]], %[[V]] : tensor<2x4x6x5xf32>, tensor<2x1x5x3xf32> -> tensor<2x4x6x3xf32>
// CHECK-NEXT:    return %[[O]]
func.func @attention_gqa(%q: tensor<2x4x6x8xf32>, %k: tensor<2x1x5x8xf32>, %v: tensor<2x1x5x3xf32>) -> tensor<2x4x6x3xf32> {
  %r = fk.attention %q, %k, %v scale = 0.5 causal = false : tensor<2x4x6x8xf32>, tensor<2x1x5x8xf32>, tensor<2x1x5x3xf32> -> tensor<2x4x6x3xf32>
  return %r : tensor<2x4x6x3xf32>
}

// A mask and causal together: the scaled scores plus the (broadcast) mask,
// then the causal penalty, as the reference semantics order them.
// CHECK-LABEL: func.func @attention_mask_causal
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<2x1x6xf32>)
// CHECK:         %[[SS:[a-z0-9_]+]] = fk.mul
// CHECK-NEXT:    %[[MB:[a-z0-9_]+]] = fk.broadcast %[[M]] : tensor<2x1x6xf32> -> tensor<2x6x6xf32>
// CHECK-NEXT:    %[[SM:[a-z0-9_]+]] = fk.add %[[SS]], %[[MB]] : tensor<2x6x6xf32>
// CHECK:         %[[PEN:[a-z0-9_]+]] = fk.select
// CHECK-NEXT:    %[[PENB:[a-z0-9_]+]] = fk.broadcast %[[PEN]] : tensor<6x6xf32> -> tensor<2x6x6xf32>
// CHECK-NEXT:    %[[MASKED:[a-z0-9_]+]] = fk.add %[[SM]], %[[PENB]] : tensor<2x6x6xf32>
// CHECK-NEXT:    fk.reduce_max %[[MASKED]] axes = [2]
func.func @attention_mask_causal(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %m: tensor<2x1x6xf32>) -> tensor<2x6x8xf32> {
  %r = fk.attention %q, %k, %v mask %m : tensor<2x1x6xf32> scale = 0.5 causal = true : tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32> -> tensor<2x6x8xf32>
  return %r : tensor<2x6x8xf32>
}

// Other ops are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    fk.exp
// CHECK-NEXT:    fk.reduce_sum
// CHECK-NEXT:    return
func.func @untouched(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = fk.exp %x : tensor<4x8xf32>
  %1 = fk.reduce_sum %0 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// argmax: the least index where x equals the row's max or is NaN (the max
// is NaN exactly when the row holds one), or the axis length where none is.
// CHECK-LABEL: func.func @argmax_f32
// CHECK-SAME:    (%[[X:[a-z0-9_]+]]: tensor<2x8xf32>)
// CHECK-NOT:     fk.argmax
// CHECK:         %[[MAX:[a-z0-9_]+]] = fk.reduce_max %[[X]] axes = [1] : tensor<2x8xf32> -> tensor<2xf32>
// CHECK:         %[[MAXR:[a-z0-9_]+]] = fk.reshape %[[MAX]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK:         %[[MAXB:[a-z0-9_]+]] = fk.broadcast %[[MAXR]] : tensor<2x1xf32> -> tensor<2x8xf32>
// CHECK:         %[[EQ:[a-z0-9_]+]] = fk.compare eq, %[[X]], %[[MAXB]] : tensor<2x8xf32> -> tensor<2x8xi1>
// CHECK:         %[[NAN:[a-z0-9_]+]] = fk.compare ne, %[[X]], %[[X]] : tensor<2x8xf32> -> tensor<2x8xi1>
// CHECK:         %[[HIT:[a-z0-9_]+]] = fk.select %[[NAN]], %[[NAN]], %[[EQ]] : tensor<2x8xi1>, tensor<2x8xi1>
// CHECK:         %[[IOTA:[a-z0-9_]+]] = fk.iota dim = 1 : tensor<2x8xi32>
// CHECK:         %[[NONE:[a-z0-9_]+]] = fk.constant dense<8> : tensor<2x8xi32>
// CHECK:         %[[CAND:[a-z0-9_]+]] = fk.select %[[HIT]], %[[IOTA]], %[[NONE]] : tensor<2x8xi1>, tensor<2x8xi32>
// CHECK:         fk.reduce_min %[[CAND]] axes = [1] : tensor<2x8xi32> -> tensor<2xi32>
func.func @argmax_f32(%x: tensor<2x8xf32>) -> tensor<2xi32> {
  %0 = fk.argmax %x axis = 1 : tensor<2x8xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// argmin of integers: no NaN test; over a non-last axis.
// CHECK-LABEL: func.func @argmin_i64
// CHECK:         fk.reduce_min %{{.*}} axes = [0] : tensor<3x5xi64> -> tensor<5xi64>
// CHECK-NOT:     fk.compare ne
// CHECK:         fk.iota dim = 0 : tensor<3x5xi32>
// CHECK:         fk.reduce_min %{{.*}} axes = [0] : tensor<3x5xi32> -> tensor<5xi32>
func.func @argmin_i64(%x: tensor<3x5xi64>) -> tensor<5xi32> {
  %0 = fk.argmin %x axis = 0 : tensor<3x5xi64> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}


}
