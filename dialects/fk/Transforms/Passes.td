//===- Passes.td - transformations of the fk dialect ----------------------===//

#ifndef FK_TRANSFORMS_PASSES_TD
#define FK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FkBindDims : Pass<"fk-bind-dims", "ModuleOp"> {
  let summary = "Gives every symbolic dimension its size";
  let description = [{
    A graph whose parameter types name dimensions (`x: f16[B, S, 768]`) is
    symbolic at the `graph` stage: its tensor types carry the symbols in
    their encoding (`tensor<?x?x768xf16, ["B", "S"]>`, see
    dialects/fk/IR/FkSymbolicShape.h). This pass, the first of the
    `canonical` stage, replaces every symbol by its size in `sizes`
    (`fk-bind-dims{sizes=S=128,B=1}`, what `fkc --bind S=128,B=1` passes):
    in function signatures, block arguments, op results and the types
    attributes hold. The result is the static graph the rest of the
    compiler works on, one artifact per binding; the bounds of the graph
    (`where S <= 4096`, the `fk.dim_bounds` attribute) are checked and
    dropped, and the module is verified again, so that a size the static
    rules reject (an `argmax` over an axis bound to 0) is reported.

    With `runtime-sizes` (what fkc's pipeline sets), a symbol without a
    size stays in the types, sized at run time (its bound is kept);
    fk-check-runtime-sizes then reports the ops whose kernels cannot read
    it.

    Errors: a size for a symbol no graph has; without `runtime-sizes`, a
    graph with a symbol that has no size (naming the graph and the
    symbols); a size above the graph's bound; a type whose size overflows
    64 bits.
  }];
  let options = [
    ListOption<"sizes", "sizes", "std::string",
               "the symbols' sizes, NAME=INT each">,
    Option<"runtimeSizes", "runtime-sizes", "bool", /*default=*/"false",
           "leave the symbols without a size to run time">,
  ];
}

def FkCheckRuntimeSizes : Pass<"fk-check-runtime-sizes", "ModuleOp"> {
  let summary = "Reports the ops whose kernels cannot read sizes given at "
                "run time";
  let description = [{
    A symbol that fk-bind-dims left without a size is read by the kernels
    at run time. Each op whose kernel cannot read it is an error at the op
    naming the symbols to bind (`whyNotRuntimeSized`,
    fk/IR/FkKernelLimits.h): `the sizes of B, S are left to run time, but
    this op finds the first index along an axis of size S, which may be 0,
    ...; give them sizes (--bind B=SIZE,S=SIZE)`. The last pass of the
    `canonical` stage, after
    fk-recognize-attention, so that an attention written as matmul,
    softmax and matmul is judged as the fk.attention its kernel computes.
  }];
}

def FkInlineCalls : Pass<"fk-inline-calls", "ModuleOp"> {
  let summary = "Replaces every call of a graph by the callee's body";
  let description = [{
    A graph that calls another graph (`h = layer(x, w)` in a .graph file) is
    a `func.call` of the callee's `func.func` until this pass, which runs
    first in the `canonical` stage, so that fusion and code generation see
    one straight-line graph. Callees are inlined before their callers, each
    call once; the callees stay in the module (every graph remains an entry
    point of the artifact).

    Inlined ops keep their callee's source location under a `CallSiteLoc`
    of the call, and their statement's name prefixed with the call's:
    `h` of `layer` called as `x3 = layer(...)` is `loc("x3/h"(...))`, so
    remarks and `--explain-fusion` name the statement at the call.

    A call of a function without a body, of an unknown symbol, or one that
    recurses (directly or through other functions) is an error at the call.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def FkDecomposeCompositeOps : Pass<"fk-decompose", "func::FuncOp"> {
  let summary = "Rewrites softmax, layernorm, rmsnorm and attention into "
                "reductions, matmuls and elementwise ops";
  let description = [{
    After this pass the graph holds only ops that a loop, reduction or matmul
    kernel computes. Each composite op becomes the formula its reference
    semantics states (docs/language.md); f16 and bf16 operands are cast to
    f32 first and the result back, so intermediates keep f32 precision:

    - `softmax(x)`: `e = exp(x - max(x))`, `e / sum(e)`;
    - `layernorm(x, g, b)`: `d = x - mean(x)`,
      `d * rsqrt(mean(d * d) + eps) * g + b`;
    - `rmsnorm(x, g)`: `x * rsqrt(mean(x * x) + eps) * g`;
    - `attention(q, k, v, mask)`: `softmax(scale * q @ k^T + mask) @ v`, the
      causal mask as a `select` of `-inf` on an `iota` comparison.

    Reduced values are reshaped to keep the reduced axes (as size 1) and
    broadcast back.

    An attention that an attention kernel computes on the module's target
    (`fk.target`, which the pass needs when the function holds an
    attention) stays whole: see `whyNoAttentionKernel` in
    dialects/fk/IR/FkKernelLimits.h (the flash kernel: a target with wgmma
    and TMA, f16/bf16, head dim 64 or 128; the decode kernel: any target,
    at most 16 query rows, f16/bf16/f32, head dims up to 256). `explain`
    remarks on each attention decomposed, and why.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each attention decomposed, and why">,
    Option<"everyAttention", "every-attention", "bool", /*default=*/"false",
           "decompose every attention, also those an attention kernel "
           "computes (tests of the decomposition itself)">,
  ];
  let dependentDialects = ["::mlir::fk::FkDialect"];
}

def FkRecognizeAttention : Pass<"fk-recognize-attention", "func::FuncOp"> {
  let summary = "Finds attention written as plain ops and makes it one "
                "fk.attention";
  let description = [{
    Matches `softmax(scale * Q @ K^T + mask) @ V` on canonicalized IR:
    the softmax as `fk.softmax` over the last axis or spelled out
    (`exp(s - max(s)) / sum(...)`, with or without the max), float casts
    anywhere around it; the scale as `mul` or `div` by a scalar constant on
    the scores, on Q or on K; K transposed in the graph or passed
    transposed; an additive mask that does not depend on Q, K or V (a scale
    applied after the mask scales it too: `(s + m) * c` gives the mask
    `m * c`, an `fk.mul` in front of the attention); a causal mask
    `select(j <= i + Nk - Nq, s, fill)` of iotas with fill `-inf` or at most
    -1e4, times any scale applied after the select; leading (batch, head)
    dims, with K and V broadcast over heads (grouped-query attention). The
    result computes what the matched ops compute, with f16/bf16
    intermediates kept in f32 (a difference within f16 rounding) and NaN
    scores under a causal mask giving NaN where the select would have hidden
    them. A match that `fk.attention` cannot express (what its verifier
    rejects: operands of different dtypes, a scale that is not finite) is a
    near miss, and a near miss leaves the graph as it was. `explain` remarks
    on each recognition and, once a softmax is found, on each near miss with
    the condition that failed.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "remark on each attention recognized or nearly recognized">,
  ];
  let dependentDialects = ["::mlir::fk::FkDialect"];
}

def FkFormFusions : Pass<"fk-form-fusions", "func::FuncOp"> {
  let summary = "Wraps every computing op in a fusion of its own";
  let description = [{
    Each op other than a splat constant becomes an `fk.fusion` holding just
    that op: a loop fusion for elementwise and shape ops, a reduction or
    matmul fusion for those. Splat constants are cloned into the fusions that
    use them, since a kernel materializes them for free. A graph result that
    is a graph argument, a splat constant or another result gets a copy
    fusion, so that every result is written by a kernel.
  }];
  let dependentDialects = ["::mlir::fk::FkDialect"];
}

def FkFuse : Pass<"fk-fuse", "func::FuncOp"> {
  let summary = "Groups ops into fusions (kernels) by a cost model in bytes "
                "of device memory";
  let description = [{
    Walks each graph from its results to its inputs and offers every op to
    the kernel of its consumers: elementwise chains, broadcasts, casts,
    reshapes and transposes fuse into their consumer (loop fusion), producers
    into reductions (input fusion), a reduction over the trailing axes of a
    row into the elementwise ops that consume it while the row stays on chip
    (softmax, layernorm, rmsnorm as one kernel), and a value that is also a
    graph result becomes an extra output of the kernel that computes it.
    Each fusion saves a write and a read of the value; vetoes keep matmuls
    and their neighbours apart, refuse to recompute arithmetic for several
    consumers, and refuse reductions that are not rows or whose rows do not
    fit on chip. With `explain`, every decision is a remark at the op with
    its reason and the bytes it saves, and each graph gets a summary of
    kernels and predicted traffic. See docs/fusion.md.
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report every fusion decision as a remark">
  ];
  let dependentDialects = ["::mlir::fk::FkDialect"];
}

#endif // FK_TRANSFORMS_PASSES_TD
