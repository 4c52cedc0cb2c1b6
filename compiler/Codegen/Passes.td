//===- Passes.td - from fusions to GPU kernels ----------------------------===//

#ifndef FKC_CODEGEN_PASSES_TD
#define FKC_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    (see compiler/Codegen/KernelBuilder.h).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::DLTIDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // FKC_CODEGEN_PASSES_TD
