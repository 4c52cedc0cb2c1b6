// Each numbered constraint of docs/language.md (op Cn) makes the verifier reject an op that breaks it; one case per constraint, named op_cN.
// RUN: fkc-opt %s -split-input-file -verify-diagnostics

// constant C1: the value's type is the result type.
func.func @constant_c1() -> tensor<4xf32> {
  // expected-error @+1 {{'fk.constant' op value type 'tensor<2xf32>' differs from the result type 'tensor<4xf32>'}}
  %0 = "fk.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// constant C2: the result is a static tensor of a language dtype.
func.func @constant_c2() -> tensor<4xi8> {
  // expected-error @+1 {{'fk.constant' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = fk.constant dense<1> : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// iota C1: 0 <= dim < rank.
func.func @iota_c1() -> tensor<4x8xi32> {
  // expected-error @+1 {{'fk.iota' op dim 2 is out of range for rank 2}}
  %0 = fk.iota dim = 2 : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// iota C2: the result is a static numeric tensor.
func.func @iota_c2() -> tensor<4xi1> {
  // expected-error @+1 {{'fk.iota' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.iota dim = 0 : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// add C1: lhs, rhs and result have one type.
func.func @add_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.add' op requires the same type for all operands and results}}
  %0 = "fk.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// add C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @add_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.add %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// sub C1: lhs, rhs and result have one type.
func.func @sub_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.sub' op requires the same type for all operands and results}}
  %0 = "fk.sub"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// sub C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @sub_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.sub' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.sub %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// mul C1: lhs, rhs and result have one type.
func.func @mul_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.mul' op requires the same type for all operands and results}}
  %0 = "fk.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mul C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @mul_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.mul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.mul %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// div C1: lhs, rhs and result have one type.
func.func @div_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.div' op requires the same type for all operands and results}}
  %0 = "fk.div"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// div C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @div_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.div' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.div %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// max C1: lhs, rhs and result have one type.
func.func @max_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.max' op requires the same type for all operands and results}}
  %0 = "fk.max"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// max C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @max_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.max' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.max %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// min C1: lhs, rhs and result have one type.
func.func @min_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.min' op requires the same type for all operands and results}}
  %0 = "fk.min"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// min C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @min_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.min' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.min %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// pow C1: lhs, rhs and result have one type.
func.func @pow_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.pow' op requires the same type for all operands and results}}
  %0 = "fk.pow"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pow C2: the type is a static tensor of f32, f16 or bf16.
func.func @pow_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.pow' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.pow %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// neg C1: operand and result have one type.
func.func @neg_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.neg' op requires the same type for all operands and results}}
  %0 = "fk.neg"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// neg C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @neg_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.neg' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.neg %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// abs C1: operand and result have one type.
func.func @abs_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.abs' op requires the same type for all operands and results}}
  %0 = "fk.abs"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// abs C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @abs_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.abs' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.abs %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// relu C1: operand and result have one type.
func.func @relu_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.relu' op requires the same type for all operands and results}}
  %0 = "fk.relu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// relu C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @relu_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.relu %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// exp C1: operand and result have one type.
func.func @exp_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.exp' op requires the same type for all operands and results}}
  %0 = "fk.exp"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// exp C2: the type is a static tensor of f32, f16 or bf16.
func.func @exp_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// log C1: operand and result have one type.
func.func @log_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.log' op requires the same type for all operands and results}}
  %0 = "fk.log"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// log C2: the type is a static tensor of f32, f16 or bf16.
func.func @log_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.log' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.log %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// sqrt C1: operand and result have one type.
func.func @sqrt_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.sqrt' op requires the same type for all operands and results}}
  %0 = "fk.sqrt"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// sqrt C2: the type is a static tensor of f32, f16 or bf16.
func.func @sqrt_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.sqrt %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// rsqrt C1: operand and result have one type.
func.func @rsqrt_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.rsqrt' op requires the same type for all operands and results}}
  %0 = "fk.rsqrt"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// rsqrt C2: the type is a static tensor of f32, f16 or bf16.
func.func @rsqrt_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.rsqrt %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// tanh C1: operand and result have one type.
func.func @tanh_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.tanh' op requires the same type for all operands and results}}
  %0 = "fk.tanh"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// tanh C2: the type is a static tensor of f32, f16 or bf16.
func.func @tanh_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.tanh %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// sigmoid C1: operand and result have one type.
func.func @sigmoid_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.sigmoid' op requires the same type for all operands and results}}
  %0 = "fk.sigmoid"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// sigmoid C2: the type is a static tensor of f32, f16 or bf16.
func.func @sigmoid_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.sigmoid' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.sigmoid %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// silu C1: operand and result have one type.
func.func @silu_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.silu' op requires the same type for all operands and results}}
  %0 = "fk.silu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// silu C2: the type is a static tensor of f32, f16 or bf16.
func.func @silu_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.silu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.silu %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// erf C1: operand and result have one type.
func.func @erf_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.erf' op requires the same type for all operands and results}}
  %0 = "fk.erf"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// erf C2: the type is a static tensor of f32, f16 or bf16.
func.func @erf_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.erf' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.erf %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// sin C1: operand and result have one type.
func.func @sin_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.sin' op requires the same type for all operands and results}}
  %0 = "fk.sin"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// sin C2: the type is a static tensor of f32, f16 or bf16.
func.func @sin_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.sin' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.sin %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// cos C1: operand and result have one type.
func.func @cos_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.cos' op requires the same type for all operands and results}}
  %0 = "fk.cos"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// cos C2: the type is a static tensor of f32, f16 or bf16.
func.func @cos_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.cos' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.cos %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// floor C1: operand and result have one type.
func.func @floor_c1(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'fk.floor' op requires the same type for all operands and results}}
  %0 = "fk.floor"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// floor C2: the type is a static tensor of f32, f16, bf16 or i32.
func.func @floor_c2(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.floor' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = fk.floor %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// gelu C1: operand and result have one type.
func.func @gelu_c1(%a: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{'fk.gelu' op requires the same type for all operands and results}}
  %0 = "fk.gelu"(%a) <{approximate = #fk<gelu_approximation none>}> : (tensor<4xf32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// gelu C2: the type is a static tensor of f32, f16 or bf16.
func.func @gelu_c2(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fk.gelu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = fk.gelu %a approximate = tanh : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// compare C1: lhs and rhs have one type.
func.func @compare_c1(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xi1> {
  // expected-error @+1 {{'fk.compare' op requires all operands to have the same type}}
  %0 = "fk.compare"(%a, %b) <{direction = #fk<comparison_direction lt>}> : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// compare C2: the result has the operands' shape.
func.func @compare_c2(%a: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error @+1 {{'fk.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = fk.compare lt, %a, %a : tensor<4xf32> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// compare C3: operands are static tensors of a language dtype, the result is i1.
func.func @compare_c3(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = fk.compare eq, %a, %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select C1: the condition is an i1 tensor.
func.func @select_c1(%c: tensor<4xi32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = fk.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select C2: on_true, on_false and result have one type.
func.func @select_c2(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "fk.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select C3: the condition has the result's shape.
func.func @select_c3(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.select' op failed to verify that all of {condition, result} have same shape}}
  %0 = fk.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select C4: the branches are static tensors of a language dtype.
func.func @select_c4(%c: tensor<4xi1>, %a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'fk.select' op operand #1 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = fk.select %c, %a, %a : tensor<4xi1>, tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// cast C1: operand and result have one shape.
func.func @cast_c1(%a: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'fk.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = fk.cast %a : tensor<4xf32> -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// cast C2: operand and result are static tensors of a language dtype.
func.func @cast_c2(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'fk.cast' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = fk.cast %a : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// reduce_sum C1 (reduce C1): axes is not empty.
func.func @reduce_sum_c1(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fk.reduce_sum' op expects at least one axis}}
  %0 = fk.reduce_sum %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reduce_sum C2 (reduce C2): 0 <= axis < rank for every axis.
func.func @reduce_sum_c2(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fk.reduce_sum' op axis 2 is out of range for rank 2}}
  %0 = fk.reduce_sum %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reduce_sum C3 (reduce C3): axes are distinct and ascending.
func.func @reduce_sum_c3(%a: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fk.reduce_sum' op axes must be distinct and ascending, got [1, 0]}}
  %0 = fk.reduce_sum %a axes = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduce_sum C4 (reduce C4): the result is the operand without the reduced dimensions.
func.func @reduce_sum_c4(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.reduce_sum' op result type 'tensor<3xf32>' differs from the inferred 'tensor<2xf32>'}}
  %0 = fk.reduce_sum %a axes = [1] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_sum C5 (reduce C5): the operand is a static tensor of f32, f16, bf16 or i32.
func.func @reduce_sum_c5(%a: tensor<2x3xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'fk.reduce_sum' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x3xi1>'}}
  %0 = fk.reduce_sum %a axes = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// reduce_max C1 (reduce C1): axes is not empty.
func.func @reduce_max_c1(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fk.reduce_max' op expects at least one axis}}
  %0 = fk.reduce_max %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reduce_max C2 (reduce C2): 0 <= axis < rank for every axis.
func.func @reduce_max_c2(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fk.reduce_max' op axis 2 is out of range for rank 2}}
  %0 = fk.reduce_max %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reduce_max C3 (reduce C3): axes are distinct and ascending.
func.func @reduce_max_c3(%a: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fk.reduce_max' op axes must be distinct and ascending, got [1, 0]}}
  %0 = fk.reduce_max %a axes = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduce_max C4 (reduce C4): the result is the operand without the reduced dimensions.
func.func @reduce_max_c4(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.reduce_max' op result type 'tensor<3xf32>' differs from the inferred 'tensor<2xf32>'}}
  %0 = fk.reduce_max %a axes = [1] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_max C5 (reduce C5): the operand is a static tensor of f32, f16, bf16 or i32.
func.func @reduce_max_c5(%a: tensor<2x3xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'fk.reduce_max' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x3xi1>'}}
  %0 = fk.reduce_max %a axes = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// reduce_min C1 (reduce C1): axes is not empty.
func.func @reduce_min_c1(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fk.reduce_min' op expects at least one axis}}
  %0 = fk.reduce_min %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reduce_min C2 (reduce C2): 0 <= axis < rank for every axis.
func.func @reduce_min_c2(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fk.reduce_min' op axis 2 is out of range for rank 2}}
  %0 = fk.reduce_min %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reduce_min C3 (reduce C3): axes are distinct and ascending.
func.func @reduce_min_c3(%a: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fk.reduce_min' op axes must be distinct and ascending, got [1, 0]}}
  %0 = fk.reduce_min %a axes = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduce_min C4 (reduce C4): the result is the operand without the reduced dimensions.
func.func @reduce_min_c4(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.reduce_min' op result type 'tensor<3xf32>' differs from the inferred 'tensor<2xf32>'}}
  %0 = fk.reduce_min %a axes = [1] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_min C5 (reduce C5): the operand is a static tensor of f32, f16, bf16 or i32.
func.func @reduce_min_c5(%a: tensor<2x3xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'fk.reduce_min' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x3xi1>'}}
  %0 = fk.reduce_min %a axes = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// reduce_mean C1 (reduce C1): axes is not empty.
func.func @reduce_mean_c1(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fk.reduce_mean' op expects at least one axis}}
  %0 = fk.reduce_mean %a axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reduce_mean C2 (reduce C2): 0 <= axis < rank for every axis.
func.func @reduce_mean_c2(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'fk.reduce_mean' op axis 2 is out of range for rank 2}}
  %0 = fk.reduce_mean %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reduce_mean C3 (reduce C3): axes are distinct and ascending.
func.func @reduce_mean_c3(%a: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fk.reduce_mean' op axes must be distinct and ascending, got [1, 0]}}
  %0 = fk.reduce_mean %a axes = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// reduce_mean C4 (reduce C4): the result is the operand without the reduced dimensions.
func.func @reduce_mean_c4(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.reduce_mean' op result type 'tensor<3xf32>' differs from the inferred 'tensor<2xf32>'}}
  %0 = fk.reduce_mean %a axes = [1] : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_mean C5 (reduce C5): the operand is a static tensor of f32, f16 or bf16.
func.func @reduce_mean_c5(%a: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'fk.reduce_mean' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<2x3xi32>'}}
  %0 = fk.reduce_mean %a axes = [1] : tensor<2x3xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// reshape C1: operand and result have one dtype.
func.func @reshape_c1(%a: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{'fk.reshape' op reshape cannot change the dtype: 'f32' vs 'f16'}}
  %0 = fk.reshape %a : tensor<2x3xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// reshape C2: operand and result have one element count.
func.func @reshape_c2(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'fk.reshape' op cannot reshape [2, 3] (6 elements) to [5] (5 elements)}}
  %0 = fk.reshape %a : tensor<2x3xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// reshape C3: operand and result are static tensors of a language dtype.
func.func @reshape_c3(%a: tensor<?x3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'fk.reshape' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<?x3xf32>'}}
  %0 = fk.reshape %a : tensor<?x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// transpose C1: perm has one entry per operand dimension.
func.func @transpose_c1(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'fk.transpose' op perm [1, 0, 2] has 3 entries for an operand of rank 2}}
  %0 = fk.transpose %a perm = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// transpose C2: perm is a permutation of 0..rank-1.
func.func @transpose_c2(%a: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'fk.transpose' op perm [1, 1] is not a permutation of the dimensions 0..1}}
  %0 = fk.transpose %a perm = [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// transpose C3: result dimension i is operand dimension perm[i], dtype kept.
func.func @transpose_c3(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'fk.transpose' op result type 'tensor<2x3xf32>' differs from the inferred 'tensor<3x2xf32>'}}
  %0 = fk.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// transpose C4: operand and result are static tensors of a language dtype.
func.func @transpose_c4(%a: tensor<2x3xf64>) -> tensor<3x2xf64> {
  // expected-error @+1 {{'fk.transpose' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<2x3xf64>'}}
  %0 = fk.transpose %a perm = [1, 0] : tensor<2x3xf64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}

// -----

// broadcast C1: the operand's rank is at most the result's.
func.func @broadcast_c1(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.broadcast' op cannot broadcast shape [2, 3] to the lower rank shape [3]}}
  %0 = fk.broadcast %a : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// broadcast C2: each operand dimension is 1 or equals the aligned (trailing) result dimension.
func.func @broadcast_c2(%a: tensor<2x3xf32>) -> tensor<4x2x4xf32> {
  // expected-error @+1 {{'fk.broadcast' op cannot broadcast shape [2, 3] to [4, 2, 4]: dimension 3 vs 4}}
  %0 = fk.broadcast %a : tensor<2x3xf32> -> tensor<4x2x4xf32>
  return %0 : tensor<4x2x4xf32>
}

// -----

// broadcast C3: operand and result have one dtype.
func.func @broadcast_c3(%a: tensor<3xf32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'fk.broadcast' op broadcast cannot change the dtype: 'f32' vs 'i32'}}
  %0 = fk.broadcast %a : tensor<3xf32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// broadcast C4: operand and result are static tensors of a language dtype.
func.func @broadcast_c4(%a: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'fk.broadcast' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<?x3xf32>'}}
  %0 = fk.broadcast %a : tensor<3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// matmul C1: both operands have rank >= 2.
func.func @matmul_c1(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.matmul' op operands must have rank >= 2, got rank 1 and rank 2}}
  %0 = fk.matmul %a, %b : tensor<8xf32>, tensor<8x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// matmul C2: lhs and rhs have one dtype.
func.func @matmul_c2(%a: tensor<2x8xf32>, %b: tensor<8x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'fk.matmul' op operand dtypes differ: 'f32' vs 'f16'}}
  %0 = fk.matmul %a, %b : tensor<2x8xf32>, tensor<8x4xf16> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// matmul C3: lhs's last dimension equals rhs's second to last.
func.func @matmul_c3(%a: tensor<2x8xf32>, %b: tensor<7x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'fk.matmul' op contracting dimensions differ: [2, 8] has 8, [7, 4] has 7}}
  %0 = fk.matmul %a, %b : tensor<2x8xf32>, tensor<7x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// matmul C4: the batch dimensions broadcast.
func.func @matmul_c4(%a: tensor<3x2x8xf32>, %b: tensor<5x8x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{'fk.matmul' op shapes [3] and [5] do not broadcast: dimension 3 vs 5}}
  %0 = fk.matmul %a, %b : tensor<3x2x8xf32>, tensor<5x8x4xf32> -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// matmul C5: the result is [batch..., M, N] of the operands' dtype.
func.func @matmul_c5(%a: tensor<3x2x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'fk.matmul' op result type 'tensor<2x4xf32>' differs from the inferred 'tensor<3x2x4xf32>'}}
  %0 = fk.matmul %a, %b : tensor<3x2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// matmul C6: operands and result are static tensors of f32, f16, bf16 or i32.
func.func @matmul_c6(%a: tensor<2x8xi1>, %b: tensor<8x4xi1>) -> tensor<2x4xi1> {
  // expected-error @+1 {{'fk.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x8xi1>'}}
  %0 = fk.matmul %a, %b : tensor<2x8xi1>, tensor<8x4xi1> -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// softmax C1: 0 <= axis < rank.
func.func @softmax_c1(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.softmax' op axis 2 is out of range for rank 2}}
  %0 = fk.softmax %a axis = 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax C2: operand and result have one type.
func.func @softmax_c2(%a: tensor<4x8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'fk.softmax' op requires the same type for all operands and results}}
  %0 = "fk.softmax"(%a) <{axis = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// softmax C3: the operand is a static tensor of f32, f16 or bf16.
func.func @softmax_c3(%a: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'fk.softmax' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = fk.softmax %a axis = 1 : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// layernorm C1: 0 <= axis < rank.
func.func @layernorm_c1(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.layernorm' op axis -1 is out of range for rank 2}}
  %0 = fk.layernorm %x, %g, %b axis = -1 eps = 1.0e-05 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layernorm C2: gamma has the operand's dtype and shape [d] (d: the length of axis).
func.func @layernorm_c2(%x: tensor<4x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.layernorm' op parameter 'gamma' must have shape [8] (the normalized axis), got [4]}}
  %0 = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layernorm C2, the dtype half.
func.func @layernorm_c2_dtype(%x: tensor<4x8xf32>, %g: tensor<8xf16>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.layernorm' op parameter 'gamma' has dtype 'f16' but the operand has 'f32'}}
  %0 = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xf32>, tensor<8xf16>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layernorm C3: beta has the operand's dtype and shape [d].
func.func @layernorm_c3(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.layernorm' op parameter 'beta' must have shape [8] (the normalized axis), got [1, 8]}}
  %0 = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xf32>, tensor<8xf32>, tensor<1x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layernorm C4: eps is finite and >= 0.
func.func @layernorm_c4(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.layernorm' op eps must be finite and non-negative, got -1.000000e-05}}
  %0 = fk.layernorm %x, %g, %b axis = 1 eps = -1.0e-05 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// layernorm C5: operand and result have one type.
func.func @layernorm_c5(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'fk.layernorm' op failed to verify that all of {operand, result} have same type}}
  %0 = "fk.layernorm"(%x, %g, %b) <{axis = 1 : i64, eps = 1.0e-05 : f64}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// layernorm C6: operands and result are static tensors of f32, f16 or bf16.
func.func @layernorm_c6(%x: tensor<4x8xi32>, %g: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'fk.layernorm' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05 : tensor<4x8xi32>, tensor<8xi32>, tensor<8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// rmsnorm C1: the operand has rank >= 1.
func.func @rmsnorm_c1(%x: tensor<f32>, %g: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fk.rmsnorm' op expects an operand of rank >= 1}}
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<f32>, tensor<1xf32>
  return %0 : tensor<f32>
}

// -----

// rmsnorm C2: gamma has the operand's dtype and shape [d] (d: the last dimension).
func.func @rmsnorm_c2(%x: tensor<4x8xf32>, %g: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.rmsnorm' op parameter 'gamma' must have shape [8] (the normalized axis), got [4]}}
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xf32>, tensor<4xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rmsnorm C2, the dtype half.
func.func @rmsnorm_c2_dtype(%x: tensor<4x8xbf16>, %g: tensor<8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'fk.rmsnorm' op parameter 'gamma' has dtype 'f32' but the operand has 'bf16'}}
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xbf16>, tensor<8xf32>
  return %0 : tensor<4x8xbf16>
}

// -----

// rmsnorm C3: eps is finite and >= 0.
func.func @rmsnorm_c3(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.rmsnorm' op eps must be finite and non-negative, got nan}}
  %0 = fk.rmsnorm %x, %g eps = 0x7FF8000000000000 : tensor<4x8xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rmsnorm C4: operand and result have one type.
func.func @rmsnorm_c4(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'fk.rmsnorm' op failed to verify that all of {operand, result} have same type}}
  %0 = "fk.rmsnorm"(%x, %g) <{eps = 1.0e-06 : f64}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// rmsnorm C5: operands and result are static tensors of f32, f16 or bf16.
func.func @rmsnorm_c5(%x: tensor<4x8xi32>, %g: tensor<8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'fk.rmsnorm' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xi32>, tensor<8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// attention C1: query, key and value have rank >= 2.
func.func @attention_c1(%q: tensor<16xf32>, %k: tensor<16xf32>, %v: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'fk.attention' op query, key and value must have rank >= 2}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// attention C2: query, key, value and mask have one dtype.
func.func @attention_c2(%q: tensor<4x16xf32>, %k: tensor<8x16xf16>, %v: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op query, key, value and mask must share one dtype}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x16xf16>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C2, the mask's dtype.
func.func @attention_c2_mask(%q: tensor<4x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<4x8xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op query, key, value and mask must share one dtype}}
  %0 = fk.attention %q, %k, %v mask %m : tensor<4x8xbf16> scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C3: query and key have one head dimension D.
func.func @attention_c3(%q: tensor<4x16xf32>, %k: tensor<8x32xf32>, %v: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op query and key head dimensions differ: 16 vs 32}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x32xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C4: key and value have one sequence length Nk.
func.func @attention_c4(%q: tensor<4x16xf32>, %k: tensor<8x16xf32>, %v: tensor<6x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op key and value sequence lengths differ: 8 vs 6}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x16xf32>, tensor<6x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C5: the batch dimensions of query, key and value broadcast.
func.func @attention_c5(%q: tensor<2x4x16xf32>, %k: tensor<3x8x16xf32>, %v: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  // expected-error @+1 {{'fk.attention' op shapes [2] and [3] do not broadcast: dimension 2 vs 3}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<2x4x16xf32>, tensor<3x8x16xf32>, tensor<3x8x16xf32> -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// attention C6: the mask broadcasts to the scores' shape [batch..., Nq, Nk].
func.func @attention_c6(%q: tensor<4x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %m: tensor<4x4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op cannot broadcast shape [4, 4] to [4, 8]: dimension 4 vs 8}}
  %0 = fk.attention %q, %k, %v mask %m : tensor<4x4xf32> scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C7: scale is finite.
func.func @attention_c7(%q: tensor<4x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op scale must be finite, got inf}}
  %0 = fk.attention %q, %k, %v scale = 0x7FF0000000000000 causal = false : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C8: the result is [batch..., Nq, Dv] of the operands' dtype.
func.func @attention_c8(%q: tensor<4x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x32xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'fk.attention' op result type 'tensor<4x16xf32>' differs from the inferred 'tensor<4x32xf32>'}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x32xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// attention C9: operands and result are static tensors of f32, f16 or bf16.
func.func @attention_c9(%q: tensor<4x16xi32>, %k: tensor<8x16xi32>, %v: tensor<8x16xi32>) -> tensor<4x16xi32> {
  // expected-error @+1 {{'fk.attention' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x16xi32>'}}
  %0 = fk.attention %q, %k, %v scale = 1.250000e-01 causal = false : tensor<4x16xi32>, tensor<8x16xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// gather C1: indices are a static tensor of i32 or i64.
func.func @gather_c1(%t: tensor<8x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'fk.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = fk.gather %t, %i axis = 0 : tensor<8x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// gather C2: 0 <= axis < rank(table).
func.func @gather_c2(%t: tensor<8x4xf32>, %i: tensor<3xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'fk.gather' op axis 2 is out of range for rank 2}}
  %0 = fk.gather %t, %i axis = 2 : tensor<8x4xf32>, tensor<3xi32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// gather C3: the gathered axis has elements unless the indices have none.
func.func @gather_c3(%t: tensor<0x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'fk.gather' op gathers from the empty axis 0 of a table of shape [0, 4]}}
  %0 = fk.gather %t, %i axis = 0 : tensor<0x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// gather C4: the result is table.shape[:axis] + indices.shape + table.shape[axis+1:].
func.func @gather_c4(%t: tensor<8x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'fk.gather' op result type 'tensor<2x3x4xf32>' differs from the inferred 'tensor<8x2x3xf32>'}}
  %0 = fk.gather %t, %i axis = 1 : tensor<8x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// argmax C1: the operand is a static numeric tensor, the result i32.
func.func @argmax_c1(%a: tensor<2x3xi1>) -> tensor<2xi32> {
  // expected-error @+1 {{'fk.argmax' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x3xi1>'}}
  %0 = fk.argmax %a axis = 1 : tensor<2x3xi1> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// argmax C2: 0 <= axis < rank.
func.func @argmax_c2(%a: tensor<2x3xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{'fk.argmax' op axis 2 is out of range for rank 2}}
  %0 = fk.argmax %a axis = 2 : tensor<2x3xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// argmax C3: the axis has 1 to 2^31 - 1 elements.
func.func @argmax_c3(%a: tensor<2x0xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{'fk.argmax' op axis 1 has 0 elements; expected 1 to 2147483647}}
  %0 = fk.argmax %a axis = 1 : tensor<2x0xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// argmax C4: the result is the operand's shape without the axis, of i32.
func.func @argmax_c4(%a: tensor<2x3xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{'fk.argmax' op result type 'tensor<3xi32>' differs from the inferred 'tensor<2xi32>'}}
  %0 = fk.argmax %a axis = 1 : tensor<2x3xf32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// argmin C1: the operand is a static numeric tensor, the result i32.
func.func @argmin_c1(%a: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'fk.argmin' op result #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %0 = fk.argmin %a axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// argmin C2: 0 <= axis < rank.
func.func @argmin_c2(%a: tensor<f32>) -> tensor<i32> {
  // expected-error @+1 {{'fk.argmin' op axis 0 is out of range for rank 0}}
  %0 = fk.argmin %a axis = 0 : tensor<f32> -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// argmin C3: the axis has 1 to 2^31 - 1 elements.
func.func @argmin_c3(%a: tensor<0xi64>) -> tensor<i32> {
  // expected-error @+1 {{'fk.argmin' op axis 0 has 0 elements; expected 1 to 2147483647}}
  %0 = fk.argmin %a axis = 0 : tensor<0xi64> -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// argmin C4: the result is the operand's shape without the axis, of i32.
func.func @argmin_c4(%a: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'fk.argmin' op result type 'tensor<2x3xi32>' differs from the inferred 'tensor<3xi32>'}}
  %0 = fk.argmin %a axis = 0 : tensor<2x3xf32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// slice C1: start and step have one entry per dimension.
func.func @slice_c1(%a: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fk.slice' op start [0] and step [1, 1] must have one entry per dimension of the operand (rank 2)}}
  %0 = fk.slice %a start = [0] step = [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// slice C2: every step is at least 1.
func.func @slice_c2(%a: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'fk.slice' op step entries must be >= 1, got [0, 1]}}
  %0 = fk.slice %a start = [0, 0] step = [0, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// slice C3: the result has the operand's dtype and rank, and its window
// lies in the operand.
func.func @slice_c3(%a: tensor<4x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'fk.slice' op a window of 3 elements from 1 by 2 does not fit dimension 0 of size 4}}
  %0 = fk.slice %a start = [1, 0] step = [2, 1] : tensor<4x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// slice C4: the operand and the result are static tensors of a language dtype.
func.func @slice_c4(%a: tensor<4xf64>) -> tensor<2xf64> {
  // expected-error @+1 {{'fk.slice' op operand #0 must be statically shaped tensor}}
  %0 = fk.slice %a start = [0] step = [1] : tensor<4xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// concat C1: at least one operand.
func.func @concat_c1() -> tensor<0xf32> {
  // expected-error @+1 {{'fk.concat' op expects at least one operand}}
  %0 = "fk.concat"() <{axis = 0 : i64}> : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// concat C2: 0 <= axis < rank.
func.func @concat_c2(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fk.concat' op axis 1 is out of range for rank 1}}
  %0 = fk.concat %a, %a axis = 1 : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// concat C3: the operands have one dtype and rank.
func.func @concat_c3(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fk.concat' op operand dtypes differ: 'f32' vs 'i32'}}
  %0 = fk.concat %a, %b axis = 0 : tensor<4xf32>, tensor<4xi32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// concat C4: the operands' sizes are equal except along the axis.
func.func @concat_c4(%a: tensor<2x4xf32>, %b: tensor<3x5xf32>) -> tensor<5x4xf32> {
  // expected-error @+1 {{'fk.concat' op operand shapes [2, 4] and [3, 5] differ in dimension 1, not the joined axis 0}}
  %0 = fk.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x5xf32> -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// concat C5: the result is the joined type.
func.func @concat_c5(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'fk.concat' op result type 'tensor<6x4xf32>' differs from the inferred 'tensor<5x4xf32>'}}
  %0 = fk.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// concat C6: the operands and the result are static tensors of a language dtype.
func.func @concat_c6(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'fk.concat' op operand #0 must be variadic of statically shaped tensor}}
  %0 = fk.concat %a axis = 0 : tensor<4xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// pad C1: low and high have one entry per dimension.
func.func @pad_c1(%a: tensor<4x8xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'fk.pad' op low [1] and high [0, 0] must have one entry per dimension of the operand (rank 2)}}
  %0 = fk.pad %a low = [1] high = [0, 0] value = 0.0 : tensor<4x8xf32> -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// pad C2: low and high are non-negative.
func.func @pad_c2(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'fk.pad' op low [-1] and high [0] must be non-negative}}
  %0 = fk.pad %a low = [-1] high = [0] value = 0.0 : tensor<4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// pad C3: the result is the padded type.
func.func @pad_c3(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fk.pad' op result type 'tensor<4xf32>' differs from the inferred 'tensor<6xf32>'}}
  %0 = fk.pad %a low = [1] high = [1] value = 0.0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pad C4: the value is a value of the dtype.
func.func @pad_c4(%a: tensor<4xi32>) -> tensor<6xi32> {
  // expected-error @+1 {{'fk.pad' op padding value 2.500000e+00 is not a value of 'i32'}}
  %0 = fk.pad %a low = [1] high = [1] value = 2.5 : tensor<4xi32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// pad C5: the operand and the result are static tensors of a language dtype.
func.func @pad_c5(%a: tensor<4xf64>) -> tensor<6xf64> {
  // expected-error @+1 {{'fk.pad' op operand #0 must be statically shaped tensor}}
  %0 = fk.pad %a low = [1] high = [1] value = 0.0 : tensor<4xf64> -> tensor<6xf64>
  return %0 : tensor<6xf64>
}

// -----

// dynamic_slice C1: the start has one entry per dimension.
func.func @dynamic_slice_c1(%a: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'fk.dynamic_slice' op start has 1 entries for a tensor of rank 2}}
  %0 = fk.dynamic_slice %a start = [%p] : tensor<4x8xf32>, tensor<i32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// dynamic_slice C2: a start operand per dynamic entry.
func.func @dynamic_slice_c2(%a: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'fk.dynamic_slice' op start has 0 dynamic entries but there are 1 start operands}}
  %0 = "fk.dynamic_slice"(%a, %p) <{static_start = array<i64: 0, 0>}> : (tensor<4x8xf32>, tensor<i32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// dynamic_slice C3: the result has the operand's dtype and rank and fits in it.
func.func @dynamic_slice_c3(%a: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'fk.dynamic_slice' op result shape [5, 8] exceeds [4, 8] in dimension 0}}
  %0 = fk.dynamic_slice %a start = [%p, 0] : tensor<4x8xf32>, tensor<i32> -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// dynamic_slice C4: static starts lie in [0, dim - size].
func.func @dynamic_slice_c4(%a: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'fk.dynamic_slice' op static start 5 of dimension 1 is outside [0, 4]}}
  %0 = fk.dynamic_slice %a start = [%p, 5] : tensor<4x8xf32>, tensor<i32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// dynamic_slice C5: start operands are rank-0 tensors of i32 or i64.
func.func @dynamic_slice_c5(%a: tensor<4x8xf32>, %p: tensor<1xi32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'fk.dynamic_slice' op operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fk.dynamic_slice %a start = [%p, 0] : tensor<4x8xf32>, tensor<1xi32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// dynamic_slice C6: the operand and the result are static tensors of a
// language dtype.
func.func @dynamic_slice_c6(%a: tensor<4xf64>, %p: tensor<i32>) -> tensor<1xf64> {
  // expected-error @+1 {{'fk.dynamic_slice' op operand #0 must be statically shaped tensor}}
  %0 = fk.dynamic_slice %a start = [%p] : tensor<4xf64>, tensor<i32> -> tensor<1xf64>
  return %0 : tensor<1xf64>
}

// -----

// update_slice C1: the start has one entry per dimension.
func.func @update_slice_c1(%a: tensor<4x8xf32>, %u: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.update_slice' op start has 3 entries for a tensor of rank 2}}
  %0 = fk.update_slice %a, %u start = [0, 0, 0] : tensor<4x8xf32>, tensor<1x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// update_slice C2: a start operand per dynamic entry.
func.func @update_slice_c2(%a: tensor<4x8xf32>, %u: tensor<1x8xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.update_slice' op start has 1 dynamic entries but there are 0 start operands}}
  %0 = "fk.update_slice"(%a, %u) <{static_start = array<i64: -9223372036854775808, 0>}> : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// update_slice C3: the update has the destination's dtype and rank and fits
// in it.
func.func @update_slice_c3(%a: tensor<4x8xf32>, %u: tensor<1x8xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.update_slice' op update dtype 'i32' differs from 'f32'}}
  %0 = fk.update_slice %a, %u start = [0, 0] : tensor<4x8xf32>, tensor<1x8xi32>
  return %0 : tensor<4x8xf32>
}

// -----

// update_slice C4: static starts lie in [0, dim - size].
func.func @update_slice_c4(%a: tensor<4x8xf32>, %u: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.update_slice' op static start -1 of dimension 0 is outside [0, 3]}}
  %0 = fk.update_slice %a, %u start = [-1, 0] : tensor<4x8xf32>, tensor<1x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// update_slice C5: the result has the destination's type.
func.func @update_slice_c5(%a: tensor<4x8xf32>, %u: tensor<1x8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'fk.update_slice' op failed to verify that all of {dest, result} have same type}}
  %0 = "fk.update_slice"(%a, %u) <{static_start = array<i64: 0, 0>}> : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// update_slice C6: start operands are rank-0 tensors of i32 or i64.
func.func @update_slice_c6(%a: tensor<4x8xf32>, %u: tensor<1x8xf32>, %p: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'fk.update_slice' op operand #2 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fk.update_slice %a, %u start = [%p, 0] : tensor<4x8xf32>, tensor<1x8xf32>, tensor<f32>
  return %0 : tensor<4x8xf32>
}

// -----

// update_slice C7: the operands and the result are static tensors of a
// language dtype.
func.func @update_slice_c7(%a: tensor<4xf64>, %u: tensor<1xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'fk.update_slice' op operand #0 must be statically shaped tensor}}
  %0 = fk.update_slice %a, %u start = [0] : tensor<4xf64>, tensor<1xf64>
  return %0 : tensor<4xf64>
}
