//===- Passes.td - from fusions to GPU kernels ----------------------------===//

#ifndef FKC_CODEGEN_PASSES_TD
#define FKC_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def FkTile : Pass<"fk-tile", "func::FuncOp"> {
  let summary = "Chooses each fusion's kernel and how it divides its work";
  let description = [{
    Sets `fk.tiling` (#fk.tiling) on every `fk.fusion` from the module's
    target (`fk.target`, which the pass needs; here, whether it has wgmma
    and TMA and its shared memory per SM) and a heuristic per fusion kind:

    - loop fusions: `transpose` where the fusion only swaps the last two
      dimensions of an input (32 x 32 tiles through shared memory); else
      `elements`, each thread computing runs of 16 bytes of the narrowest
      element (vector accesses), 256 threads per block;
    - reduction fusions over rows that fit in registers: `rows`, one block
      per row, runs as above, enough threads for about 8 elements each;
      other reductions: `elements`, one result element per thread;
    - matmul fusions: `tensor_core` (wgmma) where the target has wgmma and
      TMA (sm_90a) and TMA can read the operands (f16/bf16 fusion inputs,
      or f32 as TF32 where the module allows it with B read K-major, rows
      of 16-byte multiples); else `mma_sync` from sm_80 (16-bit operands,
      or f32 as TF32 where allowed); else `simt` from sm_80 (f32, i32,
      i64); else `elements`, one output element per thread. `explain` says
      which kernel each matmul got and why not the faster ones.
    - attention fusions (those a flash or decode kernel computes on the
      target, which fk-decompose keeps whole; any other is an error):
      `decode` for few query rows, `flash` (wgmma) or `flash_mma_sync`.

    docs/tiling.md has the tiles each strategy takes and why.
  }];
  let options = [
    ListOption<"matmulTile", "matmul-tile", "int64_t",
               "the tensor-core tile M,N,K and optionally the K splits "
               "(default: chosen per matmul, see docs/tiling.md)">,
    Option<"tuningFile", "tuning-file", "std::string", /*default=*/"",
           "a tuning file (fkc-tune): measured wgmma tiles per matmul shape, "
           "used where matmul-tile and matmul-threads are not given">,
    Option<"matmulThreads", "matmul-threads", "int64_t", /*default=*/"0",
           "the wgmma kernel's block: 128 (one warpgroup) or 256 / 384 (a "
           "producer and one / two consumer warpgroups) (default: chosen "
           "per tile)">,
    ListOption<"attentionTile", "attention-tile", "int64_t",
               "the flash tile: query rows, key block (default: 128 rows; "
               "keys 128 where two blocks fit on an SM and there is no "
               "mask input, else 64)">,
    Option<"attentionThreads", "attention-threads", "int64_t",
           /*default=*/"0",
           "the wgmma flash kernel's block: 128 per 64 query rows (every "
           "warpgroup computes) or 384 (a producer and two consumer "
           "warpgroups, 128 query rows) (default: 384 at head dims 96 to "
           "128 with 128-row blocks over more than 256 keys and no "
           "attention-tile, else the former)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each matmul kept off the tensor cores, and why">,
  ];
}

def FkPairMatmuls : Pass<"fk-pair-matmuls", "func::FuncOp"> {
  let summary = "Computes two matmuls of one left operand in one kernel";
  let description = [{
    Merges two `matmul` fusions into one that holds both matmuls (a pair,
    `fk.fusion` C3) where the first's result is read only by the second's
    epilogue and both matmuls read one left operand: SwiGLU's
    `silu(x @ wg) * (x @ wu)`. The wgmma kernel then computes the products
    side by side, its tiles holding columns of each, so that it reads the
    left operand once and the first product never reaches device memory.
    Pairs form only where each matmul would run on the wgmma kernel
    (16-bit operands, the module's target, `fk.target`, has wgmma) without
    splitting K, with both right operands in one layout, and where no
    kernel between the two writes a parameter in place; without a target
    the pass does nothing. `explain` remarks on each pair and on each
    near miss (a matmul kernel of the same left operand read by another's
    epilogue). docs/fusion.md, "Matmul pairs".
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each pair formed, and why candidates were not">,
  ];
}

def FkGroupMatmuls : Pass<"fk-group-matmuls", "func::FuncOp"> {
  let summary = "Computes the matmuls of one left operand in one kernel";
  let description = [{
    Merges `matmul` fusions of one left operand whose results go their own
    ways (a layer's query, key and value projections: `x @ wq`, `x @ wk`,
    `x @ wv`) into one fusion that holds all their matmuls and yields all
    their results (a group, `fk.fusion` C3). The wgmma kernel then walks
    every product's tiles in one persistent grid, each tile computing one
    product's columns and running that product's epilogue: one launch
    instead of several, and one partial last wave of tiles instead of one
    per product. Groups form where each matmul would run on the wgmma
    kernel alone without splitting K (16-bit operands, rows known when
    compiled, the module's target, `fk.target`, has wgmma), their right
    operands are read in one layout with one K, none reads another's
    result, no kernel between them writes a parameter in place, and the
    group's tile divides each product's columns; without a target the pass
    does nothing. It runs after fk-pair-matmuls, whose pairs stay as they
    are. `explain` remarks on each group and on each matmul of a shared
    left operand left out of one. docs/fusion.md, "Matmul groups".
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each group formed, and why candidates were not">,
  ];
}

def FkPromote : Pass<"fk-promote", "func::FuncOp"> {
  let summary = "Puts the operand tiles that a block's threads share in "
                "shared memory";
  let description = [{
    Sets `fk.promotion` (#fk.promotion) on tiled fusions whose threads
    reuse operand tiles: the two operands of a `tensor_core` matmul, each
    tile of which every warp of the block reads. They go through a ring of
    shared-memory stages filled by TMA, swizzled by 128 bytes (the layout
    wgmma reads without bank conflicts), with one mbarrier per stage. The
    ring is as deep as fits in the shared memory of the module's target
    (`fk.target`, which the pass needs) while two blocks share an SM (so
    that one block's epilogue overlaps another's main loop; three where
    the tiles fill four waves of three; one, the deepest ring, for the
    warp-specialized kernel of 256 or 384 threads), at least 2
    stages and at most what one block may hold and one per K step plus one
    (a larger `stages` is cut to that); it must also hold the f32
    accumulator tile, which the epilogue stages through it. A `flash`
    fusion promotes Q, K and V; its K/V ring is double-buffered (deeper
    only where the epilogue's output tile needs the room). `elements` and
    `rows` kernels read each input element once and keep rows in
    registers: nothing to promote.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "ring depth for every promoted fusion (0: the heuristic)">,
    Option<"tuningFile", "tuning-file", "std::string", /*default=*/"",
           "a tuning file (fkc-tune): the ring depth of the wgmma matmuls "
           "whose shape and tiling it holds, where `stages` is 0">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each wgmma matmul kernel's form: its tile, its "
           "warpgroups, its ring and how its results leave">,
  ];
}

def FkAttachNvvmTarget : Pass<"fk-attach-nvvm-target", "ModuleOp"> {
  let summary = "Makes the module's target the target of its GPU modules";
  let description = [{
    Sets `#nvvm.target` on every `gpu.module`: the chip of the module's
    `fk.target`, the oldest PTX ISA that knows it, and LLVM optimization
    level `O`; `gpu-module-to-binary` generates PTX for that target.
    Upstream's `nvvm-attach-target` does the same for a chip given as an
    option.
  }];
  let options = [
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level of the kernels (0-3)">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def FkLowerToGpu : Pass<"fk-lower-to-gpu", "ModuleOp"> {
  let summary = "Turns each graph of fusions into kernels and a launch "
                "sequence";
  let description = [{
    Each graph (a `func.func` whose body holds only `fk.fusion` ops, splat
    constants and the return) becomes a host function on memrefs, in
    destination-passing style: the graph's inputs, then one argument per
    result (marked `fk.output`). Every fusion becomes a `gpu.func` kernel in
    the `gpu.module @fk_kernels`, launched by a `gpu.launch_func` with a
    constant grid and block; values passed between fusions live in
    `memref.alloc` buffers, which the artifact writer places in the run's
    workspace. A fusion with no elements to compute is not launched.

    Kernels compute one result element per thread in a grid-stride loop,
    reading inputs through the index arithmetic of the fusion's shape ops
    (see compiler/Codegen/KernelBuilder.h). A fusion without `fk.tiling`
    gets the one fk-tile gives loop, reduction and matmul fusions on a
    target without tensor cores; `tensor_core` and `flash` fusions are
    checked against, and built for, the module's `fk.target`, which the
    pass needs when there are such fusions.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::DLTIDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def FkDedupKernels : Pass<"fk-dedup-kernels", "ModuleOp"> {
  let summary = "Keeps one copy of kernels that are structurally identical";
  let description = [{
    A layer called twelve times, or written out twelve times, becomes twelve
    fusions that fk-lower-to-gpu builds as twelve identical `gpu.func`s. This
    pass keeps the first of each set of kernels that are equal but for
    their name (same signature, argument attributes and body, locations
    ignored), points every `gpu.launch_func` of the others at it and erases
    them, before the NVVM and PTX passes compile each kernel once. Kernels
    that differ in anything else, a constant or a shape, stay apart. The
    kept kernel keeps its name, so names stay deterministic; launches of
    several graphs may share it.
  }];
}

#endif // FKC_CODEGEN_PASSES_TD
