// RUN: fkc-opt %s --test-fk-scalar-semantics -o /dev/null | FileCheck %s

// Each elementwise op states its semantics twice, in double (folding, the
// reference interpreter) and as arith/math ops (kernels); on every element
// below, in every dtype the op takes, the two must agree: the pass folds
// the lowered scalar ops and compares. Values include signed zeros,
// infinities, NaN and, for i32 and i64, the wrapping edges.
// CHECK: fk.neg f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.abs f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.relu f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.floor f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.exp f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.log f32: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.sqrt f32: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.rsqrt f32: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.tanh f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sigmoid f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.silu f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.erf f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sin f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cos f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.add f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sub f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.mul f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.div f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.max f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.min f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.pow f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i64: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.neg f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.abs f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.relu f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.floor f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.exp f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.log f16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.sqrt f16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.rsqrt f16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.tanh f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sigmoid f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.silu f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.erf f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sin f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cos f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.add f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sub f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.mul f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.div f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.max f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.min f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.pow f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i64: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.neg bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.abs bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.relu bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.floor bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.exp bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.log bf16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.sqrt bf16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.rsqrt bf16: 7 elements agree, 4 not folded
// CHECK-NEXT: fk.tanh bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sigmoid bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.silu bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.erf bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sin bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cos bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.add bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.sub bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.mul bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.div bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.max bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.min bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.pow bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.gelu bf16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f16: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i32: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i64: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i1: 11 elements agree, 0 not folded
// CHECK-NEXT: fk.neg i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.abs i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.relu i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.floor i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.add i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.sub i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.mul i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.div i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.max i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.min i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f16: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast bf16: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.neg i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.abs i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.relu i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.floor i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.add i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.sub i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.mul i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.div i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.max i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.min i64: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f16: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast bf16: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i32: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i1: 10 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 4 elements agree, 0 not folded
// CHECK-NEXT: fk.compare i1: 4 elements agree, 0 not folded
// CHECK-NEXT: fk.cast f32: 4 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i32: 4 elements agree, 0 not folded
// CHECK-NEXT: fk.cast bf16: 4 elements agree, 0 not folded
// CHECK-NEXT: fk.cast i64: 4 elements agree, 0 not folded

func.func @float_f32() {
  %x32 = fk.constant dense<[-2.5, -1.0, -0.0, 0.0, 0.25, 1.0, 3.0, 100.0, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<11xf32>
  %y32 = fk.constant dense<[0.5, -3.0, 2.0, -0.0, 7.0, 0x7FC00000, -1.5, 0.0, 2.0, 0x7F800000, 1.0]> : tensor<11xf32>
  %u0 = fk.neg %x32 : tensor<11xf32>
  %u1 = fk.abs %x32 : tensor<11xf32>
  %u2 = fk.relu %x32 : tensor<11xf32>
  %u3 = fk.floor %x32 : tensor<11xf32>
  %u4 = fk.exp %x32 : tensor<11xf32>
  %u5 = fk.log %x32 : tensor<11xf32>
  %u6 = fk.sqrt %x32 : tensor<11xf32>
  %u7 = fk.rsqrt %x32 : tensor<11xf32>
  %u8 = fk.tanh %x32 : tensor<11xf32>
  %u9 = fk.sigmoid %x32 : tensor<11xf32>
  %u10 = fk.silu %x32 : tensor<11xf32>
  %u11 = fk.erf %x32 : tensor<11xf32>
  %u12 = fk.sin %x32 : tensor<11xf32>
  %u13 = fk.cos %x32 : tensor<11xf32>
  %b0 = fk.add %x32, %y32 : tensor<11xf32>
  %b1 = fk.sub %x32, %y32 : tensor<11xf32>
  %b2 = fk.mul %x32, %y32 : tensor<11xf32>
  %b3 = fk.div %x32, %y32 : tensor<11xf32>
  %b4 = fk.max %x32, %y32 : tensor<11xf32>
  %b5 = fk.min %x32, %y32 : tensor<11xf32>
  %b6 = fk.pow %x32, %y32 : tensor<11xf32>
  %g0 = fk.gelu %x32 approximate = none : tensor<11xf32>
  %g1 = fk.gelu %x32 approximate = tanh : tensor<11xf32>
  %ceq = fk.compare eq, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %cne = fk.compare ne, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %clt = fk.compare lt, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %cle = fk.compare le, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %cgt = fk.compare gt, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %cge = fk.compare ge, %x32, %y32 : tensor<11xf32> -> tensor<11xi1>
  %sel = fk.select %clt, %x32, %y32 : tensor<11xi1>, tensor<11xf32>
  %to_f16 = fk.cast %x32 : tensor<11xf32> -> tensor<11xf16>
  %to_bf16 = fk.cast %x32 : tensor<11xf32> -> tensor<11xbf16>
  %to_i32 = fk.cast %x32 : tensor<11xf32> -> tensor<11xi32>
  %to_i64 = fk.cast %x32 : tensor<11xf32> -> tensor<11xi64>
  %to_i1 = fk.cast %x32 : tensor<11xf32> -> tensor<11xi1>
  return
}

func.func @float_f16() {
  %x = fk.constant dense<[-2.5, -1.0, -0.0, 0.0, 0.25, 1.0, 3.0, 100.0, 0x7C00, 0xFC00, 0x7E00]> : tensor<11xf16>
  %y = fk.constant dense<[0.5, -3.0, 2.0, -0.0, 7.0, 0x7E00, -1.5, 0.0, 2.0, 0x7C00, 1.0]> : tensor<11xf16>
  %u0 = fk.neg %x : tensor<11xf16>
  %u1 = fk.abs %x : tensor<11xf16>
  %u2 = fk.relu %x : tensor<11xf16>
  %u3 = fk.floor %x : tensor<11xf16>
  %u4 = fk.exp %x : tensor<11xf16>
  %u5 = fk.log %x : tensor<11xf16>
  %u6 = fk.sqrt %x : tensor<11xf16>
  %u7 = fk.rsqrt %x : tensor<11xf16>
  %u8 = fk.tanh %x : tensor<11xf16>
  %u9 = fk.sigmoid %x : tensor<11xf16>
  %u10 = fk.silu %x : tensor<11xf16>
  %u11 = fk.erf %x : tensor<11xf16>
  %u12 = fk.sin %x : tensor<11xf16>
  %u13 = fk.cos %x : tensor<11xf16>
  %b0 = fk.add %x, %y : tensor<11xf16>
  %b1 = fk.sub %x, %y : tensor<11xf16>
  %b2 = fk.mul %x, %y : tensor<11xf16>
  %b3 = fk.div %x, %y : tensor<11xf16>
  %b4 = fk.max %x, %y : tensor<11xf16>
  %b5 = fk.min %x, %y : tensor<11xf16>
  %b6 = fk.pow %x, %y : tensor<11xf16>
  %g0 = fk.gelu %x approximate = none : tensor<11xf16>
  %g1 = fk.gelu %x approximate = tanh : tensor<11xf16>
  %ceq = fk.compare eq, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %cne = fk.compare ne, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %clt = fk.compare lt, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %cle = fk.compare le, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %cgt = fk.compare gt, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %cge = fk.compare ge, %x, %y : tensor<11xf16> -> tensor<11xi1>
  %sel = fk.select %clt, %x, %y : tensor<11xi1>, tensor<11xf16>
  %to_f32 = fk.cast %x : tensor<11xf16> -> tensor<11xf32>
  %to_bf16 = fk.cast %x : tensor<11xf16> -> tensor<11xbf16>
  %to_i32 = fk.cast %x : tensor<11xf16> -> tensor<11xi32>
  %to_i64 = fk.cast %x : tensor<11xf16> -> tensor<11xi64>
  %to_i1 = fk.cast %x : tensor<11xf16> -> tensor<11xi1>
  return
}

func.func @float_bf16() {
  %x = fk.constant dense<[-2.5, -1.0, -0.0, 0.0, 0.25, 1.0, 3.0, 100.0, 0x7F80, 0xFF80, 0x7FC0]> : tensor<11xbf16>
  %y = fk.constant dense<[0.5, -3.0, 2.0, -0.0, 7.0, 0x7FC0, -1.5, 0.0, 2.0, 0x7F80, 1.0]> : tensor<11xbf16>
  %u0 = fk.neg %x : tensor<11xbf16>
  %u1 = fk.abs %x : tensor<11xbf16>
  %u2 = fk.relu %x : tensor<11xbf16>
  %u3 = fk.floor %x : tensor<11xbf16>
  %u4 = fk.exp %x : tensor<11xbf16>
  %u5 = fk.log %x : tensor<11xbf16>
  %u6 = fk.sqrt %x : tensor<11xbf16>
  %u7 = fk.rsqrt %x : tensor<11xbf16>
  %u8 = fk.tanh %x : tensor<11xbf16>
  %u9 = fk.sigmoid %x : tensor<11xbf16>
  %u10 = fk.silu %x : tensor<11xbf16>
  %u11 = fk.erf %x : tensor<11xbf16>
  %u12 = fk.sin %x : tensor<11xbf16>
  %u13 = fk.cos %x : tensor<11xbf16>
  %b0 = fk.add %x, %y : tensor<11xbf16>
  %b1 = fk.sub %x, %y : tensor<11xbf16>
  %b2 = fk.mul %x, %y : tensor<11xbf16>
  %b3 = fk.div %x, %y : tensor<11xbf16>
  %b4 = fk.max %x, %y : tensor<11xbf16>
  %b5 = fk.min %x, %y : tensor<11xbf16>
  %b6 = fk.pow %x, %y : tensor<11xbf16>
  %g0 = fk.gelu %x approximate = none : tensor<11xbf16>
  %g1 = fk.gelu %x approximate = tanh : tensor<11xbf16>
  %ceq = fk.compare eq, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %cne = fk.compare ne, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %clt = fk.compare lt, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %cle = fk.compare le, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %cgt = fk.compare gt, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %cge = fk.compare ge, %x, %y : tensor<11xbf16> -> tensor<11xi1>
  %sel = fk.select %clt, %x, %y : tensor<11xi1>, tensor<11xbf16>
  %to_f32 = fk.cast %x : tensor<11xbf16> -> tensor<11xf32>
  %to_f16 = fk.cast %x : tensor<11xbf16> -> tensor<11xf16>
  %to_i32 = fk.cast %x : tensor<11xbf16> -> tensor<11xi32>
  %to_i64 = fk.cast %x : tensor<11xbf16> -> tensor<11xi64>
  %to_i1 = fk.cast %x : tensor<11xbf16> -> tensor<11xi1>
  return
}

func.func @int_i32() {
  %x = fk.constant dense<[-2147483648, -7, -1, 0, 1, 2, 3, 2147483647, 46341, -46341]> : tensor<10xi32>
  %y = fk.constant dense<[-1, 2, 0, 0, -1, 3, -2, 2147483647, 46341, 7]> : tensor<10xi32>
  %neg = fk.neg %x : tensor<10xi32>
  %abs = fk.abs %x : tensor<10xi32>
  %relu = fk.relu %x : tensor<10xi32>
  %floor = fk.floor %x : tensor<10xi32>
  %add = fk.add %x, %y : tensor<10xi32>
  %sub = fk.sub %x, %y : tensor<10xi32>
  %mul = fk.mul %x, %y : tensor<10xi32>
  %div = fk.div %x, %y : tensor<10xi32>
  %max = fk.max %x, %y : tensor<10xi32>
  %min = fk.min %x, %y : tensor<10xi32>
  %ceq = fk.compare eq, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %cne = fk.compare ne, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %clt = fk.compare lt, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %cle = fk.compare le, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %cgt = fk.compare gt, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %cge = fk.compare ge, %x, %y : tensor<10xi32> -> tensor<10xi1>
  %sel = fk.select %clt, %x, %y : tensor<10xi1>, tensor<10xi32>
  %to_f32 = fk.cast %x : tensor<10xi32> -> tensor<10xf32>
  %to_f16 = fk.cast %x : tensor<10xi32> -> tensor<10xf16>
  %to_bf16 = fk.cast %x : tensor<10xi32> -> tensor<10xbf16>
  %to_i1 = fk.cast %x : tensor<10xi32> -> tensor<10xi1>
  %to_i64 = fk.cast %x : tensor<10xi32> -> tensor<10xi64>
  return
}

// i64 values the interpreter's doubles hold exactly (within 2^53, or powers
// of two other than 2^63, which stands for INT64_MAX there): the wrapping
// product 3037000499^2 and casts that keep the low 32 bits.
func.func @int_i64() {
  %x = fk.constant dense<[-4503599627370496, -7, -1, 0, 1, 2, 3, 4503599627370496, 3037000499, -3037000500]> : tensor<10xi64>
  %y = fk.constant dense<[-1, 2, 0, 0, -1, 3, -2, 2, 3037000499, 7]> : tensor<10xi64>
  %neg = fk.neg %x : tensor<10xi64>
  %abs = fk.abs %x : tensor<10xi64>
  %relu = fk.relu %x : tensor<10xi64>
  %floor = fk.floor %x : tensor<10xi64>
  %add = fk.add %x, %y : tensor<10xi64>
  %sub = fk.sub %x, %y : tensor<10xi64>
  %mul = fk.mul %x, %y : tensor<10xi64>
  %div = fk.div %x, %y : tensor<10xi64>
  %max = fk.max %x, %y : tensor<10xi64>
  %min = fk.min %x, %y : tensor<10xi64>
  %ceq = fk.compare eq, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %cne = fk.compare ne, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %clt = fk.compare lt, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %cle = fk.compare le, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %cgt = fk.compare gt, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %cge = fk.compare ge, %x, %y : tensor<10xi64> -> tensor<10xi1>
  %sel = fk.select %clt, %x, %y : tensor<10xi1>, tensor<10xi64>
  %to_f32 = fk.cast %x : tensor<10xi64> -> tensor<10xf32>
  %to_f16 = fk.cast %x : tensor<10xi64> -> tensor<10xf16>
  %to_bf16 = fk.cast %x : tensor<10xi64> -> tensor<10xbf16>
  %to_i32 = fk.cast %x : tensor<10xi64> -> tensor<10xi32>
  %to_i1 = fk.cast %x : tensor<10xi64> -> tensor<10xi1>
  return
}

func.func @bool_i1() {
  %p = fk.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = fk.constant dense<[true, false, true, false]> : tensor<4xi1>
  %lt = fk.compare lt, %p, %q : tensor<4xi1> -> tensor<4xi1>
  %ge = fk.compare ge, %p, %q : tensor<4xi1> -> tensor<4xi1>
  %sel = fk.select %p, %q, %lt : tensor<4xi1>, tensor<4xi1>
  %to_f32 = fk.cast %p : tensor<4xi1> -> tensor<4xf32>
  %to_i32 = fk.cast %p : tensor<4xi1> -> tensor<4xi32>
  %to_bf16 = fk.cast %p : tensor<4xi1> -> tensor<4xbf16>
  %to_i64 = fk.cast %p : tensor<4xi1> -> tensor<4xi64>
  return
}
