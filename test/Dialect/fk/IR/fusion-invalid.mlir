// Every check of the fk.fusion verifier (fusion Cn in FkOps.cpp) rejects a
// fusion that breaks it; fk.yield only terminates fusions.
// RUN: fkc-opt %s -split-input-file -verify-diagnostics

// fusion C1: the body's arguments have the types of the inputs.
func.func @c1_argument_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op expects the body's arguments to have the types of the inputs}}
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    %c = fk.cast %a : tensor<4xf16> -> tensor<4xf32>
    fk.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C1: one body argument per input.
func.func @c1_argument_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op expects the body's arguments to have the types of the inputs}}
  %0 = fk.fusion loop(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fk.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C1: a fusion without inputs has no body arguments.
func.func @c1_argument_without_input() -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op expects the body's arguments to have the types of the inputs}}
  %0 = "fk.fusion"() <{kind = #fk<fusion_kind loop>}> ({
  ^bb0(%a: tensor<4xf32>):
    "fk.yield"(%a) : (tensor<4xf32>) -> ()
  }) : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// fusion C2: at least one result.
func.func @c2_no_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fk.fusion' op expects at least one result}}
  "fk.fusion"(%x) <{kind = #fk<fusion_kind loop>}> ({
  ^bb0(%a: tensor<4xf32>):
    "fk.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

// fusion C2: the body yields the result types...
func.func @c2_result_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op expects the body to yield the result types}}
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = fk.cast %a : tensor<4xf32> -> tensor<4xf16>
    fk.yield %c : tensor<4xf16>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C2: ...and as many values as there are results.
func.func @c2_result_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op expects the body to yield the result types}}
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.exp %a : tensor<4xf32>
    fk.yield %a, %e : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: a loop fusion holds no matmul...
func.func @c3_matmul_in_loop(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.matmul'}}
  %0 = fk.fusion loop(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fk.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    fk.yield %m : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// fusion C3: ...and no reduction...
func.func @c3_reduction_in_loop(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.reduce_sum'}}
  %0 = fk.fusion loop(%x) : (tensor<4x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %s = fk.reduce_sum %a axes = [1] : tensor<4x4xf32> -> tensor<4xf32>
    fk.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: ...and no composite op (decompose it first).
func.func @c3_composite_in_loop(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.softmax'}}
  %0 = fk.fusion loop(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %s = fk.softmax %a axis = 1 : tensor<4x4xf32>
    fk.yield %s : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// fusion C3: a reduction fusion holds a reduction.
func.func @c3_reduction_without_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'reduction' holds no reduction}}
  %0 = fk.fusion reduction(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.exp %a : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: a body that only yields its argument holds no reduction.
func.func @c3_reduction_of_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'reduction' holds no reduction}}
  %0 = fk.fusion reduction(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fk.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: a matmul fusion holds a matmul.
func.func @c3_matmul_without_matmul(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' needs one matmul, a pair, or a group whose results each read one matmul, not 0 matmuls}}
  %0 = fk.fusion matmul(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = fk.neg %a : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: a reduction fusion holds no matmul...
func.func @c3_matmul_root_of_reduction(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'reduction' cannot hold 'fk.matmul'}}
  %0 = fk.fusion reduction(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fk.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    fk.yield %m : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// fusion C3: ...and a matmul fusion no reduction.
func.func @c3_reduction_root_of_matmul(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' cannot hold 'fk.reduce_max'}}
  %0 = fk.fusion matmul(%x) : (tensor<4x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fk.reduce_max %a axes = [0] : tensor<4x4xf32> -> tensor<4xf32>
    fk.yield %m : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// fusion C3: one matmul per matmul fusion, or a pair of one left operand...
func.func @c3_chained_matmuls(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' pairs matmuls of one left operand, one right operand type and one result type only}}
  %0 = fk.fusion matmul(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fk.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %n = fk.matmul %m, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    fk.yield %n : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// fusion C3: ...whose right operands have one type (one tensor-map layout
// and batch walk for both)...
func.func @c3_pair_rhs_batches(%x: tensor<4x8x8xf16>, %g: tensor<8x8xf16>, %u: tensor<4x8x8xf16>) -> tensor<4x8x8xf16> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' pairs matmuls of one left operand, one right operand type and one result type only}}
  %0 = fk.fusion matmul(%x, %g, %u) : (tensor<4x8x8xf16>, tensor<8x8xf16>, tensor<4x8x8xf16>) -> tensor<4x8x8xf16> {
  ^bb0(%a: tensor<4x8x8xf16>, %b: tensor<8x8xf16>, %c: tensor<4x8x8xf16>):
    %m = fk.matmul %a, %b : tensor<4x8x8xf16>, tensor<8x8xf16> -> tensor<4x8x8xf16>
    %n = fk.matmul %a, %c : tensor<4x8x8xf16>, tensor<4x8x8xf16> -> tensor<4x8x8xf16>
    %s = fk.mul %m, %n : tensor<4x8x8xf16>
    fk.yield %s : tensor<4x8x8xf16>
  }
  return %0 : tensor<4x8x8xf16>
}

// -----

// fusion C3: ...and no more than two, but for a group, whose results each
// read one matmul.
func.func @c3_three_matmuls(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' needs one matmul, a pair, or a group whose results each read one matmul, not 3 matmuls}}
  %0 = fk.fusion matmul(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %m = fk.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %n = fk.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %o = fk.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %s = fk.add %m, %n : tensor<4x4xf32>
    %t = fk.add %s, %o : tensor<4x4xf32>
    fk.yield %t : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

// fusion C3: ...whose results all have the matmul's shape (the epilogue is
// computed at the matmul's output coordinates).
func.func @c3_epilogue_changes_shape(%x: tensor<4x4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' must yield results of its matmul's shape}}
  %0 = fk.fusion matmul(%x) : (tensor<4x4xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    %m = fk.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %r = fk.reshape %m : tensor<4x4xf32> -> tensor<16xf32>
    fk.yield %r : tensor<16xf32>
  }
  return %0 : tensor<16xf32>
}

// -----

// Fusions do not nest.
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op of kind 'loop' cannot hold 'fk.fusion'}}
  %0 = fk.fusion loop(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %i = fk.fusion loop(%a) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      fk.yield %b : tensor<4xf32>
    }
    fk.yield %i : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The body sees only its arguments (IsolatedFromAbove).
func.func @isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fk.fusion loop : () -> tensor<4xf32> {
    // expected-error @+1 {{'fk.exp' op using value defined outside the region}}
    %e = fk.exp %x : tensor<4xf32>
    fk.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The body is one block.
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.fusion' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %0 = "fk.fusion"(%x) <{kind = #fk<fusion_kind loop>}> ({
  ^bb0(%a: tensor<4xf32>):
    "fk.yield"(%a) : (tensor<4xf32>) -> ()
  ^bb1(%b: tensor<4xf32>):
    "fk.yield"(%b) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// fk.yield terminates fusions only.
func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.yield' op expects parent op 'fk.fusion'}}
  fk.yield %x : tensor<4xf32>
}

// -----

// The kind is one of loop, reduction, matmul.
func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::mlir::fk::FusionKind to be one of: loop, reduction, matmul}}
  // expected-error @+1 {{failed to parse Fk_FusionKindAttr parameter 'value'}}
  %0 = fk.fusion tiled(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    fk.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @attention_two(%q: tensor<2x8x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{of kind 'attention' needs exactly one attention, not 0}}
  %0 = fk.fusion attention(%q) : (tensor<2x8x64xf16>) -> tensor<2x8x64xf16> {
  ^bb0(%a: tensor<2x8x64xf16>):
    %e = fk.exp %a : tensor<2x8x64xf16>
    fk.yield %e : tensor<2x8x64xf16>
  }
  return %0 : tensor<2x8x64xf16>
}

// -----

func.func @attention_prologue(%q: tensor<2x8x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{of kind 'attention' must pass fusion inputs (or head splits of them) to its attention}}
  %0 = fk.fusion attention(%q) : (tensor<2x8x64xf16>) -> tensor<2x8x64xf16> {
  ^bb0(%a: tensor<2x8x64xf16>):
    %e = fk.exp %a : tensor<2x8x64xf16>
    %o = fk.attention %e, %a, %a scale = 1.250000e-01 causal = false : tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x64xf16> -> tensor<2x8x64xf16>
    fk.yield %o : tensor<2x8x64xf16>
  }
  return %0 : tensor<2x8x64xf16>
}

// -----

// A head split (transpose of [B, T, H, D] swapping heads and rows) of a
// value computed in the fusion: the kernel reads only inputs.
func.func @attention_split_of_computed(%q: tensor<1x8x2x64xf16>, %k: tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16> {
  // expected-error @+1 {{of kind 'attention' must pass fusion inputs (or head splits of them) to its attention}}
  %0 = fk.fusion attention(%q, %k) : (tensor<1x8x2x64xf16>, tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16> {
  ^bb0(%a: tensor<1x8x2x64xf16>, %b: tensor<1x2x8x64xf16>):
    %e = fk.exp %a : tensor<1x8x2x64xf16>
    %t = fk.transpose %e perm = [0, 2, 1, 3] : tensor<1x8x2x64xf16> -> tensor<1x2x8x64xf16>
    %o = fk.attention %t, %b, %b scale = 1.250000e-01 causal = false : tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16> -> tensor<1x2x8x64xf16>
    fk.yield %o : tensor<1x2x8x64xf16>
  }
  return %0 : tensor<1x2x8x64xf16>
}

// -----

// A transpose of the result that is not a head merge (perm [0, 1, 3, 2]).
func.func @attention_other_transpose(%q: tensor<1x2x8x64xf16>) -> tensor<1x2x64x8xf16> {
  // expected-error @+1 {{of kind 'attention' must yield results of its attention's shape (or head merges of them)}}
  %0 = fk.fusion attention(%q) : (tensor<1x2x8x64xf16>) -> tensor<1x2x64x8xf16> {
  ^bb0(%a: tensor<1x2x8x64xf16>):
    %o = fk.attention %a, %a, %a scale = 1.250000e-01 causal = false : tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16> -> tensor<1x2x8x64xf16>
    %t = fk.transpose %o perm = [0, 1, 3, 2] : tensor<1x2x8x64xf16> -> tensor<1x2x64x8xf16>
    fk.yield %t : tensor<1x2x64x8xf16>
  }
  return %0 : tensor<1x2x64x8xf16>
}

// -----

func.func @attention_other_shape(%q: tensor<2x8x64xf16>) -> tensor<2x8xf16> {
  // expected-error @+1 {{of kind 'attention' cannot hold 'fk.reduce_sum'}}
  %0 = fk.fusion attention(%q) : (tensor<2x8x64xf16>) -> tensor<2x8xf16> {
  ^bb0(%a: tensor<2x8x64xf16>):
    %o = fk.attention %a, %a, %a scale = 1.250000e-01 causal = false : tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x64xf16> -> tensor<2x8x64xf16>
    %r = fk.reduce_sum %o axes = [2] : tensor<2x8x64xf16> -> tensor<2x8xf16>
    fk.yield %r : tensor<2x8xf16>
  }
  return %0 : tensor<2x8xf16>
}

// -----

// fusion C3: a group's matmuls read one left operand.
func.func @c3_group_lhs(%x: tensor<4x4xf16>, %y: tensor<4x4xf16>, %w: tensor<4x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  // expected-error @+1 {{'fk.fusion' op of kind 'matmul' groups matmuls of one left operand and one result element type only}}
  %0:2 = fk.fusion matmul(%x, %y, %w) : (tensor<4x4xf16>, tensor<4x4xf16>, tensor<4x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  ^bb0(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>, %c: tensor<4x4xf16>):
    %m = fk.matmul %a, %c : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    %n = fk.matmul %b, %c : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    fk.yield %m, %n : tensor<4x4xf16>, tensor<4x4xf16>
  }
  return %0#0, %0#1 : tensor<4x4xf16>, tensor<4x4xf16>
}
