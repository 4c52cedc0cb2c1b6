//===- FkOps.td - operations of the fk dialect ----------------------------===//
//
// One op per operation of the .graph language. Shape rules live in
// FkTypeInference.cpp so that the front end (which infers result types) and
// the verifiers (which check them) share one implementation; each rule carries
// the constraint number that docs/language.md gives it.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKOPS_TD
#define FK_IR_FKOPS_TD

include "fk/IR/FkBase.td"
include "fk/IR/FkInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"

//===----------------------------------------------------------------------===//
// Constants and generators
//===----------------------------------------------------------------------===//

def Fk_ConstantOp : Fk_Op<"constant", [ConstantLike, Pure]> {
  let summary = "tensor constant";
  let description = [{
    A tensor whose elements are given by `value`. Numbers in a graph and
    `full(...)` become splat constants.

    ```mlir
    %0 = fk.constant dense<2.0> : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fk_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Fk_IotaOp : Fk_Op<"iota", [Pure]> {
  let summary = "tensor of indices along one dimension";
  let description = [{
    Element `[i0, ..., in]` of the result is `i_dim`, converted to the
    result's element type.

    ```mlir
    %0 = fk.iota dim = 1 : tensor<4x8xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Fk_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Every elementwise op states its scalar semantics through the interface
// (in FkElementwiseOps.cpp); an op that does not fails to link. On splat
// constant operands they fold through that semantics (FkFolds.cpp), so only
// algebraic identities need a folder of their own.
class Fk_ScalarOp<string mnemonic, list<Trait> traits = []>
    : Fk_Op<mnemonic, !listconcat([Pure, Elementwise], traits,
        [DeclareOpInterfaceMethods<Fk_ScalarElementwiseOpInterface>])>;

class Fk_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Fk_ScalarOp<mnemonic, !listconcat(traits, [SameOperandsAndResultType])>;

class Fk_BinaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Fk_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

class Fk_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Fk_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins operandType:$operand);
  let results = (outs operandType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Fk_AddOp : Fk_BinaryOp<"add", Fk_NumericTensor, [Commutative]> {
  let summary = "elementwise addition";
  let description = "`%r = fk.add %a, %b : tensor<4xf32>`";
}
def Fk_SubOp : Fk_BinaryOp<"sub", Fk_NumericTensor> {
  let summary = "elementwise subtraction";
  let description = "`%r = fk.sub %a, %b : tensor<4xf32>`";
}
def Fk_MulOp : Fk_BinaryOp<"mul", Fk_NumericTensor, [Commutative]> {
  let summary = "elementwise multiplication";
  let description = "`%r = fk.mul %a, %b : tensor<4xf32>`";
  let hasFolder = 1;
}
def Fk_DivOp : Fk_BinaryOp<"div", Fk_NumericTensor> {
  let summary = "elementwise division";
  let description = [{
    IEEE division on floats; on i32 and i64, division truncating toward zero
    (a zero divisor gives 0).
    `%r = fk.div %a, %b : tensor<4xf32>`
  }];
  let hasFolder = 1;
}
def Fk_MaxOp : Fk_BinaryOp<"max", Fk_NumericTensor, [Commutative]> {
  let summary = "elementwise maximum";
  let description = "NaN if either operand is NaN. `%r = fk.max %a, %b : tensor<4xf32>`";
}
def Fk_MinOp : Fk_BinaryOp<"min", Fk_NumericTensor, [Commutative]> {
  let summary = "elementwise minimum";
  let description = "NaN if either operand is NaN. `%r = fk.min %a, %b : tensor<4xf32>`";
}
def Fk_PowOp : Fk_BinaryOp<"pow", Fk_FloatTensor> {
  let summary = "elementwise power";
  let description = "`lhs` raised to `rhs`. `%r = fk.pow %a, %b : tensor<4xf32>`";
}

def Fk_NegOp : Fk_UnaryOp<"neg", Fk_NumericTensor> {
  let summary = "elementwise negation";
  let description = "`%r = fk.neg %a : tensor<4xf32>`";
  let hasFolder = 1;
}
def Fk_AbsOp : Fk_UnaryOp<"abs", Fk_NumericTensor> {
  let summary = "elementwise absolute value";
  let description = "`%r = fk.abs %a : tensor<4xf32>`";
}
def Fk_ReluOp : Fk_UnaryOp<"relu", Fk_NumericTensor> {
  let summary = "elementwise max(x, 0)";
  let description = "`%r = fk.relu %a : tensor<4xf32>`";
}
def Fk_FloorOp : Fk_UnaryOp<"floor", Fk_NumericTensor> {
  let summary = "elementwise largest integer not greater than x";
  let description =
      "On i32 and i64, x itself. `%r = fk.floor %a : tensor<4xf32>`";
}
def Fk_ExpOp : Fk_UnaryOp<"exp", Fk_FloatTensor> {
  let summary = "elementwise e^x";
  let description = "`%r = fk.exp %a : tensor<4xf32>`";
}
def Fk_LogOp : Fk_UnaryOp<"log", Fk_FloatTensor> {
  let summary = "elementwise natural logarithm";
  let description = "`%r = fk.log %a : tensor<4xf32>`";
}
def Fk_SqrtOp : Fk_UnaryOp<"sqrt", Fk_FloatTensor> {
  let summary = "elementwise square root";
  let description = "`%r = fk.sqrt %a : tensor<4xf32>`";
}
def Fk_RsqrtOp : Fk_UnaryOp<"rsqrt", Fk_FloatTensor> {
  let summary = "elementwise 1/sqrt(x)";
  let description = "`%r = fk.rsqrt %a : tensor<4xf32>`";
}
def Fk_TanhOp : Fk_UnaryOp<"tanh", Fk_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
  let description = "`%r = fk.tanh %a : tensor<4xf32>`";
}
def Fk_SigmoidOp : Fk_UnaryOp<"sigmoid", Fk_FloatTensor> {
  let summary = "elementwise 1/(1+e^-x)";
  let description = "`%r = fk.sigmoid %a : tensor<4xf32>`";
}
def Fk_SiluOp : Fk_UnaryOp<"silu", Fk_FloatTensor> {
  let summary = "elementwise x*sigmoid(x)";
  let description = "`%r = fk.silu %a : tensor<4xf32>`";
}
def Fk_ErfOp : Fk_UnaryOp<"erf", Fk_FloatTensor> {
  let summary = "elementwise error function";
  let description = "`%r = fk.erf %a : tensor<4xf32>`";
}
def Fk_SinOp : Fk_UnaryOp<"sin", Fk_FloatTensor> {
  let summary = "elementwise sine";
  let description = "Of x in radians. `%r = fk.sin %a : tensor<4xf32>`";
}
def Fk_CosOp : Fk_UnaryOp<"cos", Fk_FloatTensor> {
  let summary = "elementwise cosine";
  let description = "Of x in radians. `%r = fk.cos %a : tensor<4xf32>`";
}

def Fk_GeluOp : Fk_ElementwiseOp<"gelu"> {
  let summary = "elementwise gaussian error linear unit";
  let description = [{
    `x * Phi(x)`, with `Phi` the gaussian CDF computed exactly through erf
    (`approximate = none`) or by the tanh formula (`approximate = tanh`).

    ```mlir
    %r = fk.gelu %a approximate = tanh : tensor<4xf32>
    ```
  }];
  let arguments = (ins Fk_FloatTensor:$operand,
                   Fk_GeluApproximationAttr:$approximate);
  let results = (outs Fk_FloatTensor:$result);
  let assemblyFormat =
      "$operand `approximate` `=` `` $approximate attr-dict `:` type($result)";
}

def Fk_CompareOp : Fk_ScalarOp<"compare", [SameTypeOperands,
                                           SameOperandsAndResultShape]> {
  let summary = "elementwise comparison";
  let description = [{
    Compares `lhs` with `rhs` in `direction`, giving i1. Any comparison with
    NaN is false except `ne`.

    ```mlir
    %r = fk.compare lt, %a, %b : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Fk_ComparisonDirectionAttr:$direction,
                   Fk_Tensor:$lhs, Fk_Tensor:$rhs);
  let results = (outs Fk_BoolTensor:$result);
  let assemblyFormat = [{
    `` $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)
  }];
}

def Fk_SelectOp : Fk_ScalarOp<"select", [
    AllTypesMatch<["on_true", "on_false", "result"]>,
    AllShapesMatch<["condition", "result"]>]> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    `on_true` where `condition` holds, else `on_false`.

    ```mlir
    %r = fk.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Fk_BoolTensor:$condition, Fk_Tensor:$on_true,
                   Fk_Tensor:$on_false);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,`
    type($result)
  }];
  let hasFolder = 1;
}

def Fk_CastOp : Fk_ScalarOp<"cast", [SameOperandsAndResultShape]> {
  let summary = "elementwise dtype conversion";
  let description = [{
    Converts each element to the result's element type: floats round to
    nearest even; float to i32 or i64 truncates toward zero (NaN gives 0, out
    of range saturates); i64 to i32 keeps the low 32 bits, i32 to i64 sign
    extends; to i1 gives `x != 0`.

    ```mlir
    %r = fk.cast %a : tensor<4xf32> -> tensor<4xf16>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Fk_ReduceOp<string mnemonic, Type operandType, string what>
    : Fk_Op<mnemonic, [Pure]> {
  let summary = "reduction by " # what # " over axes";
  let description = [{
    Reduces `operand` over `axes` (distinct, ascending) by }] # what # [{; the
    reduced dimensions are dropped. f16/bf16 accumulate in f32.

    ```mlir
    %r = fk.}] # mnemonic # [{ %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins operandType:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $operand `axes` `=` $axes attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fk_ReduceSumOp : Fk_ReduceOp<"reduce_sum", Fk_NumericTensor, "sum">;
def Fk_ReduceMaxOp : Fk_ReduceOp<"reduce_max", Fk_NumericTensor, "maximum">;
def Fk_ReduceMinOp : Fk_ReduceOp<"reduce_min", Fk_NumericTensor, "minimum">;
def Fk_ReduceMeanOp : Fk_ReduceOp<"reduce_mean", Fk_FloatTensor, "mean">;

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Fk_ReshapeOp : Fk_Op<"reshape", [Pure]> {
  let summary = "same elements in row-major order, another shape";
  let description = [{
    ```mlir
    %r = fk.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_TransposeOp : Fk_Op<"transpose", [Pure]> {
  let summary = "permutation of dimensions";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    ```mlir
    %r = fk.transpose %a perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $operand `perm` `=` $perm attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_BroadcastOp : Fk_Op<"broadcast", [Pure]> {
  let summary = "numpy broadcast to a larger shape";
  let description = [{
    Aligns the operand's dimensions with the trailing dimensions of the
    result; each must equal the result's or be 1.

    ```mlir
    %r = fk.broadcast %a : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

def Fk_GatherOp : Fk_Op<"gather", [Pure]> {
  let summary = "elements of a table picked by an index tensor along one axis";
  let description = [{
    numpy's `take(table, indices, axis)`: the result has the shape
    `table.shape[:axis] + indices.shape + table.shape[axis+1:]`, and its
    element at `[a..., i..., b...]` is `table[a..., k, b...]` where `k` is
    `indices[i...]` normalized: an index in `[-n, n)` (n the size of
    `axis`) selects `index mod n`, others are clamped into `[0, n - 1]`, so
    no index reads outside the table.

    ```mlir
    %r = fk.gather %table, %ids axis = 0 : tensor<50257x768xf16>, tensor<4x128xi64> -> tensor<4x128x768xf16>
    ```
  }];
  let arguments = (ins Fk_Tensor:$table, Fk_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $table `,` $indices `axis` `=` $axis attr-dict `:` type($table) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

class Fk_ArgReduceOp<string mnemonic, string what>
    : Fk_Op<mnemonic, [Pure]> {
  let summary = "index of the " # what # " along one axis";
  let description = [{
    The i32 index along `axis` of the }] # what # [{ of `operand`, the
    dimension dropped; the first such index on ties, and the first NaN's
    where there is one (NaN counts as the extreme, as in PyTorch).
    fk-decompose rewrites it into two reductions over the axis.

    ```mlir
    %r = fk.}] # mnemonic # [{ %a axis = 1 : tensor<4x8xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Fk_NumericTensor:$operand, I64Attr:$axis);
  let results = (outs Fk_TensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $operand `axis` `=` $axis attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fk_ArgMaxOp : Fk_ArgReduceOp<"argmax", "maximum">;
def Fk_ArgMinOp : Fk_ArgReduceOp<"argmin", "minimum">;

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

// A start index computed in the graph: a rank-0 integer tensor, i32 or i64
// as the front end's named start; the kernels and the interpreter read
// either width.
def Fk_IndexScalar : 0DTensorOf<[I32, I64]>;

def Fk_SliceOp : Fk_Op<"slice", [Pure]> {
  let summary = "a strided window of a tensor";
  let description = [{
    Result element `[i0, ..., in]` is operand element
    `[start0 + step0 * i0, ..., startn + stepn * in]`; the result type gives
    the window's extent. A negative start counts from the end of its
    dimension (`-1` is the last element): a window of static size in a
    symbolic dimension is counted from its start or its end, and the graph's
    lower bounds (`fk.dim_lower_bounds`) make the dimension hold it. Every
    element read is in bounds.

    ```mlir
    %r = fk.slice %a start = [1, 0] step = [1, 2] : tensor<4x8xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand, DenseI64ArrayAttr:$start,
                   DenseI64ArrayAttr:$step);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $operand `start` `=` $start `step` `=` $step attr-dict `:` type($operand)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_ConcatOp : Fk_Op<"concat", [Pure]> {
  let summary = "operands joined along one axis";
  let description = [{
    The inputs, of one dtype and rank and equal sizes except along `axis`,
    one after the other along `axis`.

    ```mlir
    %r = fk.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Fk_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_PadOp : Fk_Op<"pad", [Pure]> {
  let summary = "a tensor surrounded by a constant";
  let description = [{
    `low[d]` elements of `value` before and `high[d]` after the operand in
    each dimension `d`.

    ```mlir
    %r = fk.pad %a low = [1, 0] high = [0, 2] value = 0.0 : tensor<4x8xf32> -> tensor<5x10xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $operand `low` `=` $low `high` `=` $high `value` `=` $value attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_DynamicSliceOp : Fk_Op<"dynamic_slice", [Pure]> {
  let summary = "a window of a tensor at starts computed in the graph";
  let description = [{
    Result element `[i0, ..., in]` is operand element
    `[s0 + i0, ..., sn + in]`, the result type giving the window's extent.
    `static_start` holds a start per dimension, `ShapedType::kDynamic` where
    it is the next of the `start` operands (rank-0 integer tensors, as the
    offsets of `tensor.extract_slice`). A dynamic start is clamped into
    `[0, dim - size]`, so every element read is in bounds.

    ```mlir
    %r = fk.dynamic_slice %a start = [%pos, 0] : tensor<16x8xf32>, tensor<i32> -> tensor<1x8xf32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$operand, Variadic<Fk_IndexScalar>:$start,
                   DenseI64ArrayAttr:$static_start);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $operand `start` `=` custom<DynamicIndexList>($start, $static_start)
    attr-dict `:` type($operand) (`,` type($start)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fk_UpdateSliceOp : Fk_Op<"update_slice", [Pure,
                                             AllTypesMatch<["dest", "result"]>]> {
  let summary = "a tensor with a window replaced";
  let description = [{
    `dest` with `update` written at `[s0, ..., sn]`: result element `i` is
    `update[i - s]` where `0 <= i - s < update.shape`, else `dest[i]`.
    Starts are given as for `fk.dynamic_slice` and clamped into
    `[0, dest dim - update dim]`.

    ```mlir
    %r = fk.update_slice %cache, %row start = [%pos, 0] : tensor<16x8xf32>, tensor<1x8xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Fk_Tensor:$dest, Fk_Tensor:$update,
                   Variadic<Fk_IndexScalar>:$start,
                   DenseI64ArrayAttr:$static_start);
  let results = (outs Fk_Tensor:$result);
  let assemblyFormat = [{
    $dest `,` $update `start` `=` custom<DynamicIndexList>($start, $static_start)
    attr-dict `:` type($dest) `,` type($update) (`,` type($start)^)?
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Compound ops
//===----------------------------------------------------------------------===//

def Fk_MatmulOp : Fk_Op<"matmul", [Pure]> {
  let summary = "numpy matmul of rank >= 2 operands";
  let description = [{
    Contracts the last dimension of `lhs` with the second to last of `rhs`;
    leading (batch) dimensions broadcast as in numpy. f16/bf16 accumulate
    in f32 and round the result.

    ```mlir
    %r = fk.matmul %a, %b : tensor<2x4x8xf16>, tensor<8x16xf16> -> tensor<2x4x16xf16>
    ```
  }];
  let arguments = (ins Fk_NumericTensor:$lhs, Fk_NumericTensor:$rhs);
  let results = (outs Fk_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fk_SoftmaxOp : Fk_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`; f16/bf16 compute
    in f32 inside.

    ```mlir
    %r = fk.softmax %a axis = 1 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fk_FloatTensor:$operand, I64Attr:$axis);
  let results = (outs Fk_FloatTensor:$result);
  let assemblyFormat = "$operand `axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fk_LayerNormOp : Fk_Op<"layernorm", [Pure,
                                        AllTypesMatch<["operand", "result"]>]> {
  let summary = "layer normalization along one axis";
  let description = [{
    `(x - mean) / sqrt(var + eps) * gamma + beta` with mean and (biased)
    variance along `axis`; `gamma` and `beta` are vectors of that axis'
    length. f16/bf16 compute in f32 inside.

    ```mlir
    %r = fk.layernorm %x, %g, %b axis = 1 eps = 1.0e-05
           : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Fk_FloatTensor:$operand, Fk_FloatTensor:$gamma,
                   Fk_FloatTensor:$beta, I64Attr:$axis, F64Attr:$eps);
  let results = (outs Fk_FloatTensor:$result);
  let assemblyFormat = [{
    $operand `,` $gamma `,` $beta `axis` `=` $axis `eps` `=` $eps attr-dict `:`
    type($operand) `,` type($gamma) `,` type($beta)
  }];
  let hasVerifier = 1;
}

def Fk_RmsNormOp : Fk_Op<"rmsnorm", [Pure, AllTypesMatch<["operand", "result"]>]> {
  let summary = "root-mean-square normalization along the last axis";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * gamma` along the last axis; `gamma` is a
    vector of that axis' length. f16/bf16 compute in f32 inside.

    ```mlir
    %r = fk.rmsnorm %x, %g eps = 1.0e-06 : tensor<4x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Fk_FloatTensor:$operand, Fk_FloatTensor:$gamma,
                   F64Attr:$eps);
  let results = (outs Fk_FloatTensor:$result);
  let assemblyFormat = [{
    $operand `,` $gamma `eps` `=` $eps attr-dict `:` type($operand) `,`
    type($gamma)
  }];
  let hasVerifier = 1;
}

def Fk_AttentionOp : Fk_Op<"attention", [Pure]> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(scale * query @ key^T + mask) @ value` over the key axis, with
    `query: [..., Nq, D]`, `key: [..., Nk, D]`, `value: [..., Nk, Dv]` and
    leading dimensions that broadcast as in numpy. `mask`, if present, is
    added to the scores and broadcasts to `[..., Nq, Nk]`. With `causal`,
    query `i` sees keys `j <= i + Nk - Nq`. f16/bf16 accumulate in f32.

    ```mlir
    %r = fk.attention %q, %k, %v scale = 1.250000e-01 causal = true
           : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16>
             -> tensor<2x16x64xf16>
    ```
  }];
  let arguments = (ins Fk_FloatTensor:$query, Fk_FloatTensor:$key,
                   Fk_FloatTensor:$value, Optional<Fk_FloatTensor>:$mask,
                   F64Attr:$scale, BoolAttr:$causal);
  let results = (outs Fk_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^ `:` type($mask))? `scale` `=`
    $scale `causal` `=` $causal attr-dict `:` type($query) `,` type($key) `,`
    type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Fk_FusionOp : Fk_Op<"fusion", [IsolatedFromAbove, Pure]> {
  let summary = "a group of ops that runs as one GPU kernel";
  let description = [{
    The body computes the results from the inputs (bound to the entry block's
    arguments) and yields them; it becomes one kernel, which reads the inputs
    from device memory and writes the results to it, keeping everything in
    between on chip. `kind` says how the kernel walks its work:

    - `loop`: one independent computation per element of the (single)
      result: elementwise ops, broadcasts, transposes, reshapes, iota and
      constants;
    - `reduction`: its root is a reduction whose operand is computed by loop
      ops of the body;
    - `matmul`: one matmul, with loop ops computing its operands
      (prologue) and elementwise ops of its shape consuming it (epilogue);
      every result has the matmul's shape. Or a pair of matmuls with the
      same left operand, right operand type and result type (`silu(x @ wg) * (x @ wu)`), whose
      epilogue combines both: the kernel reads each tile of the left
      operand once for the two products (fk-pair-matmuls). Or a group of
      matmuls with the same left operand and result element type, each
      result computed from one of them by its own epilogue and of its
      shape (`x @ wq`, `x @ wk`, `x @ wv`): one kernel computes every
      product's tiles (fk-group-matmuls);
    - `attention`: one `fk.attention` whose operands are fusion inputs or,
      for a query, key or value, head splits of them (`transpose(x, perm =
      [0, 2, 1, 3])` of a [B, T, H, D] input, or of a reshape splitting the
      last dim of a [B, T, H * D] input, possibly with its batch dims
      regrouped by a reshape: the kernel reads the input's layout), and
      elementwise ops of its shape consuming it (epilogue); every result
      has the attention's shape or is a head merge of such a value
      (`transpose(e, perm = [0, 2, 1, 3])`, `e` possibly regrouped, the
      transpose possibly reshaped to [B, T, H * D]), which the kernel
      stores at the permuted coordinates.

    ```mlir
    %r = fk.fusion loop (%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%x: tensor<8xf32>, %y: tensor<8xf32>):
      %s = fk.add %x, %y : tensor<8xf32>
      fk.yield %s : tensor<8xf32>
    }
    ```
  }];
  let arguments = (ins Fk_FusionKindAttr:$kind, Variadic<Fk_Tensor>:$inputs);
  let results = (outs Variadic<Fk_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind (`(` $inputs^ `)`)? attr-dict `:` functional-type($inputs, $results)
    $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The op that yields the fusion's first result: what the kernel is
    /// built around.
    Operation *getRoot();
    /// The matmul of a fusion of kind matmul (the first of a pair), else
    /// null.
    MatmulOp getMatmul();
    /// The second matmul of a pair, else null.
    MatmulOp getPairedMatmul();
    /// The matmuls of a fusion of kind matmul, in body order.
    SmallVector<MatmulOp, 4> getMatmuls();
    /// Whether the fusion is a group of matmuls: several, and each result
    /// computed from one of them (a layer's query, key and value
    /// projections).
    bool isMatmulGroup();
    /// The one matmul result `result` is computed from, else null.
    MatmulOp getResultMatmul(unsigned result);
    /// The attention of a fusion of kind attention, else null.
    AttentionOp getAttention();
  }];
}

def Fk_YieldOp : Fk_Op<"yield", [Pure, ReturnLike, Terminator,
                                 HasParent<"FusionOp">]> {
  let summary = "the results of a fusion";
  let arguments = (ins Variadic<Fk_Tensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

//===----------------------------------------------------------------------===//
// Host side of the GPU stage
//===----------------------------------------------------------------------===//

def Fk_TensorMapOp : Fk_Op<"tensor_map", [Pure, AttrSizedOperandSegments]> {
  let summary = "a TMA descriptor of a device buffer, made by the runtime";
  let description = [{
    Names, in the host function of the `gpu` stage, the Hopper tensor map
    (`CUtensorMap`) a kernel reads `buffer` through with
    `cp.async.bulk.tensor`. The result is what the kernel receives: the
    device address of the 128-byte descriptor, which the runtime encodes for
    the buffer's address at every run (the artifact's `tensor_map`
    argument, docs/artifact.md). `dims` are the global extents innermost
    first, `strides` the byte strides of `dims[1:]`, `box` the tile a load
    brings, innermost first, and `swizzle` the shared-memory swizzle in
    bytes (0, 32, 64 or 128). Elements outside `dims` read as zero.

    An extent or a stride may be an index value of the host function (a
    size given at run time, computed from the inputs' dimensions): the
    runtime then encodes the map with that run's extents and strides, and
    checks per run that they are valid and stay inside the buffer.

    ```mlir
    %map = fk.tensor_map %a dims [4096, 4096] strides [8192] box [64, 128]
        swizzle 128 : memref<4096x4096xf16> -> !llvm.ptr
    %rows_map = fk.tensor_map %x dims [768, %rows] strides [1536]
        box [64, 128] swizzle 128 : memref<?x?x768xf16> -> !llvm.ptr
    %seq_map = fk.tensor_map %y dims [64, %s, %b] strides [128, %bytes]
        box [64, 64, 1] swizzle 128 : memref<?x?x64xf16> -> !llvm.ptr
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, Variadic<Index>:$dynamic_dims,
                       Variadic<Index>:$dynamic_strides,
                       DenseI64ArrayAttr:$dims, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$box, I64Attr:$swizzle);
  let results = (outs LLVM_AnyPointer:$descriptor);
  let assemblyFormat = [{
    $buffer `dims` custom<DynamicIndexList>($dynamic_dims, $dims)
    `strides` custom<DynamicIndexList>($dynamic_strides, $strides)
    `box` $box `swizzle` $swizzle
    attr-dict `:` type($buffer) `->` type($descriptor)
  }];
  let hasVerifier = 1;
}

#endif // FK_IR_FKOPS_TD
