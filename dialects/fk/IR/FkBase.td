//===- FkBase.td - the fk dialect, its enums and type constraints --------===//
//
// The `fk` dialect is the graph-level IR of fkc: one op per operation of the
// .graph language, on statically shaped tensors. Broadcasting is explicit
// (`fk.broadcast`), so elementwise ops see operands of one type.
//
//===----------------------------------------------------------------------===//

#ifndef FK_IR_FKBASE_TD
#define FK_IR_FKBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/AttrTypeBase.td"

def Fk_Dialect : Dialect {
  let name = "fk";
  let cppNamespace = "::mlir::fk";
  let summary = "Tensor-graph IR of the fkc compiler";
  let description = [{
    Ops of the fkc graph language on statically shaped tensors of f32, f16,
    bf16, i32 or i1. Each op's constraints are listed in docs/language.md
    with numbers (C1, C2, ...); the verifier code that checks each one is
    tagged with the same number.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fk_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "direction of an elementwise comparison", [
      I32EnumAttrCase<"EQ", 0, "eq">, I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">, I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">, I32EnumAttrCase<"GE", 5, "ge">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}
def Fk_ComparisonDirectionAttr
    : EnumAttr<Fk_Dialect, Fk_ComparisonDirection, "comparison_direction"> {
  let assemblyFormat = "$value";
}

def Fk_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the gaussian CDF", [
      I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"Tanh", 1, "tanh">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}
def Fk_GeluApproximationAttr
    : EnumAttr<Fk_Dialect, Fk_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "$value";
}

def Fk_FusionKind : I32EnumAttr<"FusionKind",
    "how the kernel of a fusion walks its iteration space", [
      I32EnumAttrCase<"Loop", 0, "loop">,
      I32EnumAttrCase<"Reduction", 1, "reduction">,
      I32EnumAttrCase<"Matmul", 2, "matmul">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}
def Fk_FusionKindAttr : EnumAttr<Fk_Dialect, Fk_FusionKind, "fusion_kind"> {
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Type constraints: the dtypes of the language on static shapes
//===----------------------------------------------------------------------===//

def Fk_FloatElement : AnyTypeOf<[F32, F16, BF16]>;
def Fk_NumericElement : AnyTypeOf<[F32, F16, BF16, I32]>;
def Fk_AnyElement : AnyTypeOf<[F32, F16, BF16, I32, I1]>;

def Fk_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I32, I1]>;
def Fk_NumericTensor : StaticShapeTensorOf<[F32, F16, BF16, I32]>;
def Fk_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def Fk_BoolTensor : StaticShapeTensorOf<[I1]>;

class Fk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fk_Dialect, mnemonic, traits>;

#endif // FK_IR_FKBASE_TD
