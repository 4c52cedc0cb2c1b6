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
    bf16, i32, i64 or i1. Each op's constraints are listed in docs/language.md
    with numbers (C1, C2, ...); the verifier code that checks each one is
    tagged with the same number.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // `fk.target` may only be a #fk.target on the builtin module.
  let hasOperationAttrVerify = 1;
  // `fk.inout` and `fk.updates` on graph arguments and results (FkInout.h).
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
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
      I32EnumAttrCase<"Matmul", 2, "matmul">,
      I32EnumAttrCase<"Attention", 3, "attention">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}
def Fk_FusionKindAttr : EnumAttr<Fk_Dialect, Fk_FusionKind, "fusion_kind"> {
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Kernel configuration: what fk-tile and fk-promote decide per fusion
//===----------------------------------------------------------------------===//

def Fk_KernelStrategy : I32EnumAttr<"KernelStrategy",
    "which kernel computes a fusion", [
      I32EnumAttrCase<"Elements", 0, "elements">,
      I32EnumAttrCase<"Rows", 1, "rows">,
      I32EnumAttrCase<"TensorCore", 2, "tensor_core">,
      I32EnumAttrCase<"Flash", 3, "flash">,
      I32EnumAttrCase<"Decode", 4, "decode">,
      I32EnumAttrCase<"WarpMma", 5, "mma_sync">,
      I32EnumAttrCase<"WarpMmaFlash", 6, "flash_mma_sync">,
      I32EnumAttrCase<"Simt", 7, "simt">,
      I32EnumAttrCase<"Transpose", 8, "transpose">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}
def Fk_KernelStrategyAttr
    : EnumAttr<Fk_Dialect, Fk_KernelStrategy, "kernel_strategy"> {
  let assemblyFormat = "$value";
}

def Fk_TilingAttr : AttrDef<Fk_Dialect, "Tiling"> {
  let mnemonic = "tiling";
  let summary = "how a fusion's kernel divides its work among blocks and threads";
  let description = [{
    Set on each `fk.fusion` by `fk-tile`. `strategy` picks the kernel:
    `elements` (each thread computes runs of `tile[0]` adjacent result
    elements in a grid-stride loop), `transpose` (a loop fusion that only
    swaps the last two dimensions of an input: a block of 32 x 8 threads
    per `tile = [32, 32]` tile, through shared memory, so that both the
    reads and the writes are of whole rows), `rows` (one block per row, the row in
    registers, `tile[0]` adjacent elements per access) or `tensor_core`
    (one block per output tile of `tile = [M, N, K-step]`, wgmma, sm_90a;
    f32 operands mean TF32 and B read K-major; `threads = 128` is one
    warpgroup that loads and computes, 256 or 384 a producer warpgroup and
    one or two consumer warpgroups: two consumers share each tile's rows
    where one warpgroup cannot hold its accumulator (128 x 256), else take
    turns on whole tiles) or
    `mma_sync` (the same on every GPU from sm_80: four warps per output tile
    of `tile = [M, N, K-step]`, mma.sync fed by ldmatrix) or `simt` (f32,
    i32 and i64 matmuls from sm_80: a thread per 8 x 8 outputs of `tile =
    [M, N, K-step]`, exact f32 FMAs or wrapping integer multiply-adds) or `flash`
    (attention: one block per `tile = [query rows, key block, head dim]`
    of one batch, a warpgroup per 64 query rows, looping over key blocks
    with an online softmax; wgmma, sm_90a) or `flash_mma_sync` (the same on
    mma.sync from sm_80, a warp per 16 query rows) or `decode` (attention with few query rows:
    one block per `tile[0]` query rows of one batch and per one of
    `tile[1]` interleaved key splits, warps walking the keys with an online
    softmax in f32 registers; with more than one split a second kernel
    combines the splits' partial results). `threads` is the block size.

    ```mlir
    fk.fusion matmul (...) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>}
    ```
  }];
  let parameters = (ins "KernelStrategy":$strategy,
                        ArrayRefParameter<"int64_t">:$tile,
                        "int64_t":$threads);
  let assemblyFormat = "`<` $strategy `,` `tile` `=` `[` $tile `]` `,` `threads` `=` $threads `>`";
}

def Fk_CopyEngine : I32EnumAttr<"CopyEngine",
    "how operand tiles reach shared memory", [
      I32EnumAttrCase<"Tma", 0, "tma">,
      I32EnumAttrCase<"AsyncCopy", 1, "cp_async">]> {
  let cppNamespace = "::mlir::fk";
  let genSpecializedAttr = 0;
}

def Fk_PromotionAttr : AttrDef<Fk_Dialect, "Promotion"> {
  let mnemonic = "promotion";
  let summary = "which operand tiles of a fusion's kernel live in shared memory";
  let description = [{
    Set on a tiled `fk.fusion` by `fk-promote`. The fusion inputs at
    `operands` (indices into the fusion's inputs) are read tile by tile into
    a ring of `stages` shared-memory buffers by `copy`, each buffer swizzled
    by `swizzle` bytes against bank conflicts, so that every thread of the
    block reads them from shared memory instead of device memory. The
    tensor-core kernel (sm_90a) takes `copy = tma` and `swizzle = 128`;
    the flash-attention kernel promotes Q (read once) and K and V (its ring
    of `stages` key blocks);
    the mma.sync kernels (`mma_sync`, `flash_mma_sync`, sm_80 and later)
    and the tiled CUDA-core kernel (`simt`) take `copy =
    cp_async` (every thread copies 16-byte pieces, zero-filled outside the
    operand) and `swizzle = 128` (16-byte chunks XORed within 128-byte
    spans).

    ```mlir
    {fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 3, swizzle = 128>}
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$operands,
                        "CopyEngine":$copy, "int64_t":$stages,
                        "int64_t":$swizzle);
  let assemblyFormat = "`<` `operands` `=` `[` $operands `]` `,` `copy` `=` $copy `,` `stages` `=` $stages `,` `swizzle` `=` $swizzle `>`";
}

//===----------------------------------------------------------------------===//
// The target: what the module is compiled for
//===----------------------------------------------------------------------===//

def Fk_TargetAttr : AttrDef<Fk_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU a module is compiled for";
  let description = [{
    Set on the builtin module as `fk.target` by the driver (`fkc --target`);
    every pass whose decisions depend on the GPU reads it there
    (dialects/fk/IR/FkTarget.h). `chip` is the architecture the PTX is
    generated for; the other parameters are what fkc knows of it, derived
    from the chip (the flagship part of its architecture):
    `compute_capability` (times ten), `sm_count`, the shared memory one
    block may use (`shared_memory_per_block`, opted in) and one SM holds
    (`shared_memory_per_sm`), in bytes, `registers_per_thread`, and whether
    the target has Hopper's warpgroup MMA (`wgmma`, sm_90a only: its PTX
    runs on sm_90 parts alone) and the tensor memory accelerator (`tma`,
    sm_90 and later).

    The printed form lists every parameter. When parsed, the parameters
    after `chip` are optional, each defaulting to the chip's: so a test
    names a real target by its chip and makes one up by overriding some
    facts. A made-up target may have less than its chip (less shared
    memory, no wgmma), never an instruction the chip's PTX lacks.

    ```mlir
    module attributes {fk.target = #fk.target<chip = "sm_90a", compute_capability = 90, sm_count = 132, shared_memory_per_block = 232448, shared_memory_per_sm = 233472, registers_per_thread = 255, wgmma = true, tma = true>} {}
    module attributes {fk.target = #fk.target<chip = "sm_90a", shared_memory_per_block = 101376, shared_memory_per_sm = 102400>} {}
    ```
  }];
  let parameters = (ins StringRefParameter<"the architecture">:$chip,
                        "int64_t":$computeCapability, "int64_t":$smCount,
                        "int64_t":$sharedMemoryPerBlock,
                        "int64_t":$sharedMemoryPerSm,
                        "int64_t":$registersPerThread, "bool":$wgmma,
                        "bool":$tma);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints: the dtypes of the language on static shapes
//===----------------------------------------------------------------------===//

def Fk_FloatElement : AnyTypeOf<[F32, F16, BF16]>;
def Fk_NumericElement : AnyTypeOf<[F32, F16, BF16, I32, I64]>;
def Fk_AnyElement : AnyTypeOf<[F32, F16, BF16, I32, I64, I1]>;

// A shape known at compile time: every dimension a size, or a monomial of
// the graph's symbols carried by the type's encoding (FkSymbolicShape.h).
def Fk_HasKnownShapePred : CPred<"::mlir::fk::hasKnownShape($_self)">;
class Fk_TensorOf<list<Type> allowedTypes>
    : RankedTensorOf<allowedTypes, [Fk_HasKnownShapePred],
                     "statically shaped tensor">;

def Fk_Tensor : Fk_TensorOf<[F32, F16, BF16, I32, I64, I1]>;
def Fk_NumericTensor : Fk_TensorOf<[F32, F16, BF16, I32, I64]>;
def Fk_IndexTensor : Fk_TensorOf<[I32, I64]>;
def Fk_FloatTensor : Fk_TensorOf<[F32, F16, BF16]>;
def Fk_BoolTensor : Fk_TensorOf<[I1]>;

class Fk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fk_Dialect, mnemonic, traits>;

#endif // FK_IR_FKBASE_TD
