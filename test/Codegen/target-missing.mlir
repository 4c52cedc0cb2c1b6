// The passes that decide for the target read it from the module's
// `fk.target`; a module without one is an error at what needed it: the
// function for fk-tile and fk-promote, which always do; the fusion for
// fk-lower-to-gpu, which needs the target for tensor-core and flash
// kernels only; the module for fk-attach-nvvm-target.
// RUN: not fkc-opt %s --fk-tile 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not fkc-opt %s --fk-promote 2>&1 | FileCheck %s --check-prefix=PROMOTE
// RUN: not fkc-opt %s --fk-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not fkc-opt %s --fk-attach-nvvm-target 2>&1 | FileCheck %s --check-prefix=NVVM

// TILE: target-missing.mlir:[[#@LINE+4]]:1: error: 'fk-tile' needs the module's 'fk.target' attribute
// PROMOTE: target-missing.mlir:[[#@LINE+3]]:1: error: 'fk-promote' needs the module's 'fk.target' attribute
// GPU: target-missing.mlir:[[#@LINE+3]]:8: error: 'fk-lower-to-gpu' needs the module's 'fk.target' attribute
// NVVM: target-missing.mlir:0:0: error: 'fk-attach-nvvm-target' needs the module's 'fk.target' attribute
func.func @gemm(%x: tensor<128x64xf16>, %w: tensor<64x128xf16>) -> tensor<128x128xf16> {
  %0 = fk.fusion matmul(%x, %w) {fk.tiling = #fk.tiling<tensor_core, tile = [128, 128, 64], threads = 128>, fk.promotion = #fk.promotion<operands = [0, 1], copy = tma, stages = 3, swizzle = 128>} : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16> {
  ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>):
    %m = fk.matmul %a, %b : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf16>
    fk.yield %m : tensor<128x128xf16>
  }
  return %0 : tensor<128x128xf16>
}
