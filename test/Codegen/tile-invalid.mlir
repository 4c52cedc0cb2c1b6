// Bad fk-tile and fk-promote options, and a tensor-core tiling without its
// promotion, are errors with a reason.
// RUN: not fkc-opt %s --fk-tile="matmul-tile=96,128,64" 2>&1 | FileCheck %s --check-prefix=TILE-M
// TILE-M: error: fk-tile: matmul-tile: tile M must be 64 or 128 (64-row wgmma)
// RUN: not fkc-opt %s --fk-tile="matmul-tile=128,100,64" 2>&1 | FileCheck %s --check-prefix=TILE-N
// TILE-N: error: fk-tile: matmul-tile: tile N must be 64, 128, 192 or 256 (64-column TMA boxes)
// RUN: not fkc-opt %s --fk-tile="matmul-tile=128,256,64 matmul-threads=128" 2>&1 | FileCheck %s --check-prefix=REGS
// REGS: error: fk-tile: matmul-tile: the accumulator tile needs more than 128 registers per thread (two consumer warpgroups, 384 threads, share a larger tile)
// RUN: not fkc-opt %s --fk-tile="matmul-tile=128,128,64 matmul-threads=512" 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: fk-tile: matmul-tile: a tensor-core kernel is one warpgroup (128 threads), or a producer and one or two consumer warpgroups (256 or 384)
// RUN: not fkc-opt %s --fk-tile="matmul-tile=64,64,64,2 matmul-threads=256" 2>&1 | FileCheck %s --check-prefix=WS-SPLIT
// WS-SPLIT: error: fk-tile: matmul-tile: the warp-specialized kernel does not split K
// RUN: not fkc-opt %s --fk-promote 2>&1 | FileCheck %s --check-prefix=UNTILED
// UNTILED: error: fk-promote: the fusion has no fk.tiling (run fk-tile first)
// RUN: not fkc-opt %s --fk-tile="matmul-tile=128,128,64" --fk-promote="stages=8" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: fk-promote: 8 stages of 32768 bytes do not fit: a 128x128 tile needs 2 to 7 on sm_90a
// RUN: not fkc-opt %s --fk-tile --fk-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=NOPROMOTION
// NOPROMOTION: error: 'fk.fusion' op is tiled for tensor cores but has no fk.promotion (run fk-promote)

module attributes {fk.target = #fk.target<chip = "sm_90a">} {
  func.func @gemm(%x: tensor<128x2048xf16>, %w: tensor<2048x128xf16>) -> tensor<128x128xf16> {
    %0 = fk.fusion matmul(%x, %w) : (tensor<128x2048xf16>, tensor<2048x128xf16>) -> tensor<128x128xf16> {
    ^bb0(%a: tensor<128x2048xf16>, %b: tensor<2048x128xf16>):
      %m = fk.matmul %a, %b : tensor<128x2048xf16>, tensor<2048x128xf16> -> tensor<128x128xf16>
      fk.yield %m : tensor<128x128xf16>
    }
    return %0 : tensor<128x128xf16>
  }
}
