// fk-lower-to-gpu turns each graph of fusions into a host function on memrefs
// (inputs, then one buffer per result) that launches one kernel per fusion,
// and each fusion into a gpu.func of fk_kernels: a grid-stride loop over the
// result's elements that reads its inputs through the index arithmetic of the
// fusion's shape ops. (Loop fusions here have an odd innermost dimension, so
// that a work item is one element.)
// Host side, as the gpu stage prints it (constants merged by CSE):
// RUN: fkc-opt %s --pass-pipeline='builtin.module(fk-lower-to-gpu,func.func(cse))' | FileCheck %s --check-prefix=HOST
// Kernels, canonicalized (constants hoisted and merged, x * 1 folded):
// RUN: fkc-opt %s --fk-lower-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=KERNEL
// and as the pass builds them:
// RUN: fkc-opt %s --fk-lower-to-gpu | FileCheck %s --check-prefixes=GLOBAL,RAW
// A fusion with nothing to compute gets no kernel:
// RUN: fkc-opt %s --fk-lower-to-gpu | FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL-NOT: @zero_elements_k0
// NOKERNEL-NOT: @zero_elements_k2
// The output parses again (fkc-opt knows every dialect it uses):
// RUN: fkc-opt %s --fk-lower-to-gpu | fkc-opt | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP: gpu.launch_func @fk_kernels::@signature_k0
// ROUNDTRIP: gpu.func @signature_k0(

// HOST: module attributes {gpu.container_module}

//===----------------------------------------------------------------------===//
// The host function
//===----------------------------------------------------------------------===//

// Inputs keep their attributes; results become arguments marked fk.output
// that keep theirs; i1 tensors live in i8 buffers. A value passed between
// fusions gets a memref.alloc, a result is written straight into its output
// buffer (and read from there by later kernels).
// HOST-LABEL: func.func @signature(
// HOST-SAME:    %[[X:[a-z0-9_]+]]: memref<5xf32> {fk.name = "x"},
// HOST-SAME:    %[[M:[a-z0-9_]+]]: memref<5xi8> {fk.name = "mask"},
// HOST-SAME:    %[[Y:[a-z0-9_]+]]: memref<5xf32> {fk.name = "y", fk.output},
// HOST-SAME:    %[[KEEP:[a-z0-9_]+]]: memref<5xi8> {fk.name = "keep", fk.output}) {
// HOST-NEXT:    %[[T:[a-z0-9_]+]] = memref.alloc() : memref<5xf32>
// HOST-DAG:     %[[C1:[a-z0-9_]+]] = arith.constant 1 : index
// HOST-DAG:     %[[C256:[a-z0-9_]+]] = arith.constant 256 : index
// HOST:         gpu.launch_func @fk_kernels::@signature_k0 blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X]] : memref<5xf32>, %[[M]] : memref<5xi8>, %[[T]] : memref<5xf32>)
// HOST-NOT:     memref.alloc
// HOST-NEXT:    gpu.launch_func @fk_kernels::@signature_k1 blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[T]] : memref<5xf32>, %[[Y]] : memref<5xf32>)
// HOST-NEXT:    gpu.launch_func @fk_kernels::@signature_k2 blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[Y]] : memref<5xf32>, %[[KEEP]] : memref<5xi8>)
// HOST-NEXT:    return
// HOST-NEXT:  }
// An i1 input is loaded as a byte and compared with 0...
// KERNEL-LABEL: gpu.func @signature_k0(
// KERNEL-SAME:    %[[X:[a-z0-9_]+]]: memref<5xf32>
// KERNEL-SAME:    %[[M:[a-z0-9_]+]]: memref<5xi8>
// KERNEL-SAME:    %[[T:[a-z0-9_]+]]: memref<5xf32>
// KERNEL-SAME:    kernel
// KERNEL-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// KERNEL-DAG:     %[[ZERO8:[a-z0-9_]+]] = arith.constant 0 : i8
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-DAG:       %[[BYTE:[a-z0-9_]+]] = memref.load %[[M]][%[[I]]] : memref<5xi8>
// KERNEL-DAG:       %[[BIT:[a-z0-9_]+]] = arith.cmpi ne, %[[BYTE]], %[[ZERO8]] : i8
// KERNEL-DAG:       %[[XV:[a-z0-9_]+]] = memref.load %[[X]][%[[I]]] : memref<5xf32>
// KERNEL:           %[[S:[a-z0-9_]+]] = arith.select %[[BIT]], %[[XV]], %[[ZERO]] : f32
// KERNEL-NEXT:      memref.store %[[S]], %[[T]][%[[I]]] : memref<5xf32>
// KERNEL-NEXT:    }
// KERNEL-NEXT:    gpu.return
// ...and an i1 result stored as a zero-extended byte.
// KERNEL-LABEL: gpu.func @signature_k2(
// KERNEL-SAME:    %[[Y:[a-z0-9_]+]]: memref<5xf32>
// KERNEL-SAME:    %[[KEEP:[a-z0-9_]+]]: memref<5xi8>
// KERNEL:           %[[YV:[a-z0-9_]+]] = memref.load %[[Y]][%[[I:[a-z0-9_]+]]] : memref<5xf32>
// KERNEL-NEXT:      %[[CMP:[a-z0-9_]+]] = arith.cmpf ogt, %[[YV]], %{{[a-z0-9_]+}} : f32
// KERNEL-NEXT:      %[[B:[a-z0-9_]+]] = arith.extui %[[CMP]] : i1 to i8
// KERNEL-NEXT:      memref.store %[[B]], %[[KEEP]][%[[I]]] : memref<5xi8>
func.func @signature(%x: tensor<5xf32> {fk.name = "x"}, %m: tensor<5xi1> {fk.name = "mask"})
    -> (tensor<5xf32> {fk.name = "y"}, tensor<5xi1> {fk.name = "keep"}) {
  %0 = fk.fusion loop(%x, %m) : (tensor<5xf32>, tensor<5xi1>) -> tensor<5xf32> {
  ^bb0(%a: tensor<5xf32>, %b: tensor<5xi1>):
    %z = fk.constant dense<0.0> : tensor<5xf32>
    %s = fk.select %b, %a, %z : tensor<5xi1>, tensor<5xf32>
    fk.yield %s : tensor<5xf32>
  }
  %1 = fk.fusion loop(%0) : (tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%a: tensor<5xf32>):
    %e = fk.exp %a : tensor<5xf32>
    fk.yield %e : tensor<5xf32>
  }
  %2 = fk.fusion loop(%1) : (tensor<5xf32>) -> tensor<5xi1> {
  ^bb0(%a: tensor<5xf32>):
    %one = fk.constant dense<1.0> : tensor<5xf32>
    %c = fk.compare gt, %a, %one : tensor<5xf32> -> tensor<5xi1>
    fk.yield %c : tensor<5xi1>
  }
  return %1, %2 : tensor<5xf32>, tensor<5xi1>
}

//===----------------------------------------------------------------------===//
// Launch shapes
//===----------------------------------------------------------------------===//

// Blocks of 256 threads, enough of them for one element per thread (1000
// elements: 4 blocks; 255: 1; 257: 2; a scalar: 1), at most 2^20 (the rest is
// the grid-stride loop's).
// HOST-LABEL: func.func @launch_shapes(
// HOST-DAG:     %[[C1:[a-z0-9_]+]] = arith.constant 1 : index
// HOST-DAG:     %[[C2:[a-z0-9_]+]] = arith.constant 2 : index
// HOST-DAG:     %[[C4:[a-z0-9_]+]] = arith.constant 4 : index
// HOST-DAG:     %[[C256:[a-z0-9_]+]] = arith.constant 256 : index
// HOST-DAG:     %[[CMAX:[a-z0-9_]+]] = arith.constant 1048576 : index
// HOST-DAG:     gpu.launch_func @fk_kernels::@launch_shapes_k0 blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// HOST-DAG:     gpu.launch_func @fk_kernels::@launch_shapes_k1 blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// HOST-DAG:     gpu.launch_func @fk_kernels::@launch_shapes_k2 blocks in (%[[C2]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// HOST-DAG:     gpu.launch_func @fk_kernels::@launch_shapes_k3 blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// HOST-DAG:     gpu.launch_func @fk_kernels::@launch_shapes_k4 blocks in (%[[CMAX]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// HOST:         return
// The loop runs from the global thread index to the element count, by the
// number of threads in the grid.
// KERNEL-LABEL: gpu.func @launch_shapes_k0(
// KERNEL:         %[[N:[a-z0-9_]+]] = arith.constant 1000 : index
// KERNEL:         %[[BID:[a-z0-9_]+]] = gpu.block_id x
// KERNEL-NEXT:    %[[BDIM:[a-z0-9_]+]] = gpu.block_dim x
// KERNEL-NEXT:    %[[TID:[a-z0-9_]+]] = gpu.thread_id x
// KERNEL-NEXT:    %[[GDIM:[a-z0-9_]+]] = gpu.grid_dim x
// KERNEL-NEXT:    %[[BASE:[a-z0-9_]+]] = arith.muli %[[BID]], %[[BDIM]]{{.*}} : index
// KERNEL-NEXT:    %[[START:[a-z0-9_]+]] = arith.addi %[[BASE]], %[[TID]]{{.*}} : index
// KERNEL-NEXT:    %[[STEP:[a-z0-9_]+]] = arith.muli %[[GDIM]], %[[BDIM]]{{.*}} : index
// KERNEL-NEXT:    scf.for %{{[a-z0-9_]+}} = %[[START]] to %[[N]] step %[[STEP]] {
// KERNEL-LABEL: gpu.func @launch_shapes_k4(
// KERNEL:         %[[N:[a-z0-9_]+]] = arith.constant 268435457 : index
// KERNEL:         scf.for %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}} to %[[N]] step
func.func @launch_shapes(%a: tensor<8x125xf32>, %b: tensor<255xf32>, %c: tensor<257xf32>, %d: tensor<f32>, %e: tensor<268435457xf32>)
    -> (tensor<8x125xf32>, tensor<255xf32>, tensor<257xf32>, tensor<f32>, tensor<268435457xf32>) {
  %0 = fk.fusion loop(%a) : (tensor<8x125xf32>) -> tensor<8x125xf32> {
  ^bb0(%x: tensor<8x125xf32>):
    %r = fk.neg %x : tensor<8x125xf32>
    fk.yield %r : tensor<8x125xf32>
  }
  %1 = fk.fusion loop(%b) : (tensor<255xf32>) -> tensor<255xf32> {
  ^bb0(%x: tensor<255xf32>):
    %r = fk.neg %x : tensor<255xf32>
    fk.yield %r : tensor<255xf32>
  }
  %2 = fk.fusion loop(%c) : (tensor<257xf32>) -> tensor<257xf32> {
  ^bb0(%x: tensor<257xf32>):
    %r = fk.neg %x : tensor<257xf32>
    fk.yield %r : tensor<257xf32>
  }
  %3 = fk.fusion loop(%d) : (tensor<f32>) -> tensor<f32> {
  ^bb0(%x: tensor<f32>):
    %r = fk.neg %x : tensor<f32>
    fk.yield %r : tensor<f32>
  }
  %4 = fk.fusion loop(%e) : (tensor<268435457xf32>) -> tensor<268435457xf32> {
  ^bb0(%x: tensor<268435457xf32>):
    %r = fk.neg %x : tensor<268435457xf32>
    fk.yield %r : tensor<268435457xf32>
  }
  return %0, %1, %2, %3, %4 : tensor<8x125xf32>, tensor<255xf32>, tensor<257xf32>, tensor<f32>, tensor<268435457xf32>
}

//===----------------------------------------------------------------------===//
// Shape ops as index arithmetic
//===----------------------------------------------------------------------===//

// The element (i, j) of the result reads element (0, j) of a [1, 5] operand
// (a size-1 dimension reads index 0) and element j of a [5] operand (the
// missing leading dimension is dropped).
// KERNEL-LABEL: gpu.func @broadcasts_k0(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<1x5xf32>
// KERNEL-SAME:    %[[V:[a-z0-9_]+]]: memref<5xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<8x5xf32>
// KERNEL-DAG:     %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// KERNEL-DAG:     %[[C5:[a-z0-9_]+]] = arith.constant 5 : index
// KERNEL-DAG:     %[[C40:[a-z0-9_]+]] = arith.constant 40 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[C40]] step
// KERNEL-DAG:       %[[COL:[a-z0-9_]+]] = arith.remui %[[I]], %[[C5]] : index
// KERNEL-DAG:       %[[ROW:[a-z0-9_]+]] = arith.divui %[[I]], %[[C5]] : index
// KERNEL-DAG:       %[[AV:[a-z0-9_]+]] = memref.load %[[A]][%[[C0]], %[[COL]]] : memref<1x5xf32>
// KERNEL-DAG:       %[[VV:[a-z0-9_]+]] = memref.load %[[V]][%[[COL]]] : memref<5xf32>
// KERNEL:           %[[S:[a-z0-9_]+]] = arith.addf %[[AV]], %[[VV]] : f32
// KERNEL-NEXT:      memref.store %[[S]], %[[OUT]][%[[ROW]], %[[COL]]] : memref<8x5xf32>
// KERNEL-NEXT:    }
// KERNEL-NEXT:    gpu.return
func.func @broadcasts(%a: tensor<1x5xf32>, %v: tensor<5xf32>) -> tensor<8x5xf32> {
  %0 = fk.fusion loop(%a, %v) : (tensor<1x5xf32>, tensor<5xf32>) -> tensor<8x5xf32> {
  ^bb0(%x: tensor<1x5xf32>, %y: tensor<5xf32>):
    %bx = fk.broadcast %x : tensor<1x5xf32> -> tensor<8x5xf32>
    %by = fk.broadcast %y : tensor<5xf32> -> tensor<8x5xf32>
    %s = fk.add %bx, %by : tensor<8x5xf32>
    fk.yield %s : tensor<8x5xf32>
  }
  return %0 : tensor<8x5xf32>
}

// transpose(perm = [2, 0, 1]): result (i0, i1, i2) reads operand
// (i1, i2, i0).
// KERNEL-LABEL: gpu.func @transpose_k0(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<2x3x4xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<4x2x3xf32>
// KERNEL-DAG:     %[[C2:[a-z0-9_]+]] = arith.constant 2 : index
// KERNEL-DAG:     %[[C3:[a-z0-9_]+]] = arith.constant 3 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-DAG:       %[[I2:[a-z0-9_]+]] = arith.remui %[[I]], %[[C3]] : index
// KERNEL-DAG:       %[[Q:[a-z0-9_]+]] = arith.divui %[[I]], %[[C3]] : index
// KERNEL-DAG:       %[[I1:[a-z0-9_]+]] = arith.remui %[[Q]], %[[C2]] : index
// KERNEL-DAG:       %[[I0:[a-z0-9_]+]] = arith.divui %[[Q]], %[[C2]] : index
// KERNEL:           %[[V:[a-z0-9_]+]] = memref.load %[[A]][%[[I1]], %[[I2]], %[[I0]]] : memref<2x3x4xf32>
// KERNEL-NEXT:      memref.store %[[V]], %[[OUT]][%[[I0]], %[[I1]], %[[I2]]] : memref<4x2x3xf32>
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = fk.fusion loop(%a) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  ^bb0(%x: tensor<2x3x4xf32>):
    %t = fk.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
    fk.yield %t : tensor<4x2x3xf32>
  }
  return %0 : tensor<4x2x3xf32>
}

// reshape [2, 6] -> [4, 3]: (i, j) is the linear index 3i + j, element
// (lin / 6, lin % 6) of the operand.
// KERNEL-LABEL: gpu.func @reshape_k0(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<2x6xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<4x3xf32>
// KERNEL-DAG:     %[[C3:[a-z0-9_]+]] = arith.constant 3 : index
// KERNEL-DAG:     %[[C6:[a-z0-9_]+]] = arith.constant 6 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-DAG:       %[[J:[a-z0-9_]+]] = arith.remui %[[I]], %[[C3]] : index
// KERNEL-DAG:       %[[R:[a-z0-9_]+]] = arith.divui %[[I]], %[[C3]] : index
// KERNEL:           %[[R3:[a-z0-9_]+]] = arith.muli %[[R]], %[[C3]]{{.*}} : index
// KERNEL-NEXT:      %[[LIN:[a-z0-9_]+]] = arith.addi %[[R3]], %[[J]]{{.*}} : index
// KERNEL-NEXT:      %[[COL:[a-z0-9_]+]] = arith.remui %[[LIN]], %[[C6]] : index
// KERNEL-NEXT:      %[[ROW:[a-z0-9_]+]] = arith.divui %[[LIN]], %[[C6]] : index
// KERNEL-NEXT:      %[[V:[a-z0-9_]+]] = memref.load %[[A]][%[[ROW]], %[[COL]]] : memref<2x6xf32>
// KERNEL-NEXT:      memref.store %[[V]], %[[OUT]][%[[R]], %[[J]]] : memref<4x3xf32>
func.func @reshape(%a: tensor<2x6xf32>) -> tensor<4x3xf32> {
  %0 = fk.fusion loop(%a) : (tensor<2x6xf32>) -> tensor<4x3xf32> {
  ^bb0(%x: tensor<2x6xf32>):
    %r = fk.reshape %x : tensor<2x6xf32> -> tensor<4x3xf32>
    fk.yield %r : tensor<4x3xf32>
  }
  return %0 : tensor<4x3xf32>
}

// iota is the coordinate along its dimension; f16 values are computed in f32
// and rounded to f16 after every op; a loop fusion writes all its results.
// KERNEL-LABEL: gpu.func @generators_k0(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<4x3xf16>
// KERNEL-SAME:    %[[OUT0:[a-z0-9_]+]]: memref<4x3xf16>
// KERNEL-SAME:    %[[OUT1:[a-z0-9_]+]]: memref<4x3xi32>
// (Canonicalization merges the conversions of the iota into one sitofp to
// f16, and the rounding of the product with the truncation of its store.)
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-DAG:       %[[COL:[a-z0-9_]+]] = arith.remui %[[I]], %{{[a-z0-9_]+}} : index
// KERNEL-DAG:       %[[ROW:[a-z0-9_]+]] = arith.divui %[[I]], %{{[a-z0-9_]+}} : index
// KERNEL-DAG:       %[[H:[a-z0-9_]+]] = memref.load %[[A]][%[[ROW]], %[[COL]]] : memref<4x3xf16>
// KERNEL-DAG:       %[[X:[a-z0-9_]+]] = arith.extf %[[H]] : f16 to f32
// KERNEL-DAG:       %[[ROWI:[a-z0-9_]+]] = arith.index_cast %[[ROW]] : index to i32
// KERNEL-DAG:       %[[ROWH:[a-z0-9_]+]] = arith.sitofp %[[ROWI]] : i32 to f16
// KERNEL-DAG:       %[[ROWR:[a-z0-9_]+]] = arith.extf %[[ROWH]] : f16 to f32
// KERNEL:           %[[P:[a-z0-9_]+]] = arith.mulf %[[X]], %[[ROWR]] : f32
// KERNEL-NEXT:      %[[PH:[a-z0-9_]+]] = arith.truncf %[[P]] : f32 to f16
// KERNEL-DAG:       %[[COLI:[a-z0-9_]+]] = arith.index_cast %[[COL]] : index to i32
// KERNEL-DAG:       memref.store %[[PH]], %[[OUT0]][%[[ROW]], %[[COL]]] : memref<4x3xf16>
// KERNEL-DAG:       memref.store %[[COLI]], %[[OUT1]][%[[ROW]], %[[COL]]] : memref<4x3xi32>
func.func @generators(%a: tensor<4x3xf16>) -> (tensor<4x3xf16>, tensor<4x3xi32>) {
  %0:2 = fk.fusion loop(%a) : (tensor<4x3xf16>) -> (tensor<4x3xf16>, tensor<4x3xi32>) {
  ^bb0(%x: tensor<4x3xf16>):
    %rows = fk.iota dim = 0 : tensor<4x3xf16>
    %p = fk.mul %x, %rows : tensor<4x3xf16>
    %cols = fk.iota dim = 1 : tensor<4x3xi32>
    fk.yield %p, %cols : tensor<4x3xf16>, tensor<4x3xi32>
  }
  return %0#0, %0#1 : tensor<4x3xf16>, tensor<4x3xi32>
}

// A dense constant that is not a splat becomes a constant global of the
// kernel module (i1 as bytes), read like an input.
// GLOBAL:        gpu.module @fk_kernels
// GLOBAL-NEXT:     memref.global "private" constant @[[G:[a-z0-9_]+]] : memref<2x3xi8> = dense<{{\[\[}}1, 0, 1], [0, 0, 1]]>
// GLOBAL:        gpu.func @dense_constant_k0(
// GLOBAL:          memref.get_global @[[G]] : memref<2x3xi8>
// KERNEL-LABEL: gpu.func @dense_constant_k0(
// KERNEL-SAME:    %[[X:[a-z0-9_]+]]: memref<2x3xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<2x3xf32>
// KERNEL:         scf.for
// KERNEL-DAG:       %[[COL:[a-z0-9_]+]] = arith.remui
// KERNEL-DAG:       %[[ROW:[a-z0-9_]+]] = arith.divui
// KERNEL-DAG:       %[[XV:[a-z0-9_]+]] = memref.load %[[X]][%[[ROW]], %[[COL]]] : memref<2x3xf32>
// KERNEL-DAG:       %[[GV:[a-z0-9_]+]] = memref.get_global @{{[a-z0-9_]+}} : memref<2x3xi8>
// KERNEL-DAG:       %[[BYTE:[a-z0-9_]+]] = memref.load %[[GV]][%[[ROW]], %[[COL]]] : memref<2x3xi8>
// KERNEL-DAG:       %[[BIT:[a-z0-9_]+]] = arith.cmpi ne, %[[BYTE]], %{{[a-z0-9_]+}} : i8
// KERNEL-DAG:       %[[NEG:[a-z0-9_]+]] = arith.negf %[[XV]] : f32
// KERNEL:           %[[S:[a-z0-9_]+]] = arith.select %[[BIT]], %[[XV]], %[[NEG]] : f32
// KERNEL-NEXT:      memref.store %[[S]], %[[OUT]][%[[ROW]], %[[COL]]] : memref<2x3xf32>
func.func @dense_constant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fk.fusion loop(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %m = fk.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
    %n = fk.neg %a : tensor<2x3xf32>
    %s = fk.select %m, %a, %n : tensor<2x3xi1>, tensor<2x3xf32>
    fk.yield %s : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Reductions and matmuls
//===----------------------------------------------------------------------===//

// One thread per result element loops over the reduced elements with the
// accumulator in iter_args, starting from the identity (-inf for max):
// reduce_max over axis 0 of [100, 10] reads (r, i).
// KERNEL-LABEL: gpu.func @reductions_k0(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<100x10xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<10xf32>
// KERNEL-DAG:     %[[N:[a-z0-9_]+]] = arith.constant 10 : index
// KERNEL-DAG:     %[[INIT:[a-z0-9_]+]] = arith.constant 0xFF800000 : f32
// KERNEL-DAG:     %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// KERNEL-DAG:     %[[C100:[a-z0-9_]+]] = arith.constant 100 : index
// KERNEL-DAG:     %[[C1:[a-z0-9_]+]] = arith.constant 1 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[N]] step %{{[a-z0-9_]+}} {
// KERNEL-NEXT:      %[[MAX:[a-z0-9_]+]] = scf.for %[[R:[a-z0-9_]+]] = %[[C0]] to %[[C100]] step %[[C1]] iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (f32) {
// KERNEL-NEXT:        %[[V:[a-z0-9_]+]] = memref.load %[[A]][%[[R]], %[[I]]] : memref<100x10xf32>
// KERNEL-NEXT:        %[[NEXT:[a-z0-9_]+]] = arith.maximumf %[[ACC]], %[[V]] : f32
// KERNEL-NEXT:        scf.yield %[[NEXT]] : f32
// KERNEL-NEXT:      }
// KERNEL-NEXT:      memref.store %[[MAX]], %[[OUT]][%[[I]]] : memref<10xf32>
// The mean of axes 0 and 2 of [3, 4, 5] (kept axis 1) divides the sum by 15.
// KERNEL-LABEL: gpu.func @reductions_k1(
// KERNEL-SAME:    %[[A:[a-z0-9_]+]]: memref<3x4x5xf32>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<4xf32>
// KERNEL-DAG:     %[[INIT:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// KERNEL-DAG:     %[[COUNT:[a-z0-9_]+]] = arith.constant 1.500000e+01 : f32
// KERNEL-DAG:     %[[C5:[a-z0-9_]+]] = arith.constant 5 : index
// KERNEL-DAG:     %[[C15:[a-z0-9_]+]] = arith.constant 15 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-NEXT:      %[[SUM:[a-z0-9_]+]] = scf.for %[[R:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[C15]] step %{{[a-z0-9_]+}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (f32) {
// KERNEL-DAG:         %[[R2:[a-z0-9_]+]] = arith.remui %[[R]], %[[C5]] : index
// KERNEL-DAG:         %[[R0:[a-z0-9_]+]] = arith.divui %[[R]], %[[C5]] : index
// KERNEL:             %[[V:[a-z0-9_]+]] = memref.load %[[A]][%[[R0]], %[[I]], %[[R2]]] : memref<3x4x5xf32>
// KERNEL-NEXT:        %[[NEXT:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[V]] : f32
// KERNEL-NEXT:        scf.yield %[[NEXT]] : f32
// KERNEL-NEXT:      }
// KERNEL-NEXT:      %[[MEAN:[a-z0-9_]+]] = arith.divf %[[SUM]], %[[COUNT]] : f32
// KERNEL-NEXT:      memref.store %[[MEAN]], %[[OUT]][%[[I]]] : memref<4xf32>
// i32 min starts from INT32_MAX.
// KERNEL-LABEL: gpu.func @reductions_k2(
// KERNEL:         %[[INIT:[a-z0-9_]+]] = arith.constant 2147483647 : i32
// KERNEL:           scf.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (i32) {
// KERNEL:             %[[V:[a-z0-9_]+]] = memref.load
// KERNEL-NEXT:        %[[NEXT:[a-z0-9_]+]] = arith.minsi %[[ACC]], %[[V]] : i32
func.func @reductions(%a: tensor<100x10xf32>, %b: tensor<3x4x5xf32>, %c: tensor<6x7xi32>)
    -> (tensor<10xf32>, tensor<4xf32>, tensor<7xi32>) {
  %0 = fk.fusion reduction(%a) : (tensor<100x10xf32>) -> tensor<10xf32> {
  ^bb0(%x: tensor<100x10xf32>):
    %r = fk.reduce_max %x axes = [0] : tensor<100x10xf32> -> tensor<10xf32>
    fk.yield %r : tensor<10xf32>
  }
  %1 = fk.fusion reduction(%b) : (tensor<3x4x5xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<3x4x5xf32>):
    %r = fk.reduce_mean %x axes = [0, 2] : tensor<3x4x5xf32> -> tensor<4xf32>
    fk.yield %r : tensor<4xf32>
  }
  %2 = fk.fusion reduction(%c) : (tensor<6x7xi32>) -> tensor<7xi32> {
  ^bb0(%x: tensor<6x7xi32>):
    %r = fk.reduce_min %x axes = [0] : tensor<6x7xi32> -> tensor<7xi32>
    fk.yield %r : tensor<7xi32>
  }
  return %0, %1, %2 : tensor<10xf32>, tensor<4xf32>, tensor<7xi32>
}

// One thread per result element accumulates lhs[b, i, k] * rhs[k, j] over k
// in f32 and rounds to f16 once, after the loop; the rhs has no batch axis.
// KERNEL-LABEL: gpu.func @matmul_k0(
// KERNEL-SAME:    %[[L:[a-z0-9_]+]]: memref<2x4x8xf16>
// KERNEL-SAME:    %[[R:[a-z0-9_]+]]: memref<8x3xf16>
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<2x4x3xf16>
// KERNEL-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// KERNEL-DAG:     %[[C3:[a-z0-9_]+]] = arith.constant 3 : index
// KERNEL-DAG:     %[[C4:[a-z0-9_]+]] = arith.constant 4 : index
// KERNEL-DAG:     %[[C8:[a-z0-9_]+]] = arith.constant 8 : index
// KERNEL-DAG:     %[[N:[a-z0-9_]+]] = arith.constant 24 : index
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[N]] step
// KERNEL-DAG:       %[[COL:[a-z0-9_]+]] = arith.remui %[[I]], %[[C3]] : index
// KERNEL-DAG:       %[[Q:[a-z0-9_]+]] = arith.divui %[[I]], %[[C3]] : index
// KERNEL-DAG:       %[[ROW:[a-z0-9_]+]] = arith.remui %[[Q]], %[[C4]] : index
// KERNEL-DAG:       %[[B:[a-z0-9_]+]] = arith.divui %[[Q]], %[[C4]] : index
// KERNEL:           %[[DOT:[a-z0-9_]+]] = scf.for %[[K:[a-z0-9_]+]] = %{{[a-z0-9_]+}} to %[[C8]] step %{{[a-z0-9_]+}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[ZERO]]) -> (f32) {
// KERNEL-DAG:         %[[LH:[a-z0-9_]+]] = memref.load %[[L]][%[[B]], %[[ROW]], %[[K]]] : memref<2x4x8xf16>
// KERNEL-DAG:         %[[LV:[a-z0-9_]+]] = arith.extf %[[LH]] : f16 to f32
// KERNEL-DAG:         %[[RH:[a-z0-9_]+]] = memref.load %[[R]][%[[K]], %[[COL]]] : memref<8x3xf16>
// KERNEL-DAG:         %[[RV:[a-z0-9_]+]] = arith.extf %[[RH]] : f16 to f32
// KERNEL-NOT:         arith.truncf
// KERNEL:             %[[P:[a-z0-9_]+]] = arith.mulf %[[LV]], %[[RV]] : f32
// KERNEL-NEXT:        %[[NEXT:[a-z0-9_]+]] = arith.addf %[[ACC]], %[[P]] : f32
// KERNEL-NEXT:        scf.yield %[[NEXT]] : f32
// KERNEL-NEXT:      }
// KERNEL-NEXT:      %[[H:[a-z0-9_]+]] = arith.truncf %[[DOT]] : f32 to f16
// KERNEL-NEXT:      memref.store %[[H]], %[[OUT]][%[[B]], %[[ROW]], %[[COL]]] : memref<2x4x3xf16>
func.func @matmul(%l: tensor<2x4x8xf16>, %r: tensor<8x3xf16>) -> tensor<2x4x3xf16> {
  %0 = fk.fusion matmul(%l, %r) : (tensor<2x4x8xf16>, tensor<8x3xf16>) -> tensor<2x4x3xf16> {
  ^bb0(%x: tensor<2x4x8xf16>, %y: tensor<8x3xf16>):
    %m = fk.matmul %x, %y : tensor<2x4x8xf16>, tensor<8x3xf16> -> tensor<2x4x3xf16>
    fk.yield %m : tensor<2x4x3xf16>
  }
  return %0 : tensor<2x4x3xf16>
}

//===----------------------------------------------------------------------===//
// Nothing to compute
//===----------------------------------------------------------------------===//

// A fusion without elements is not launched (and has no kernel); a buffer
// without elements is not passed to a kernel: the sum over the empty axis
// never reads it (and writes zeros).
// HOST-LABEL: func.func @zero_elements(
// HOST-SAME:    %[[X:[a-z0-9_]+]]: memref<0x5xf32>, %[[SUM:[a-z0-9_]+]]: memref<5xf32> {fk.output}, %[[ZEROOUT:[a-z0-9_]+]]: memref<0x5xf32> {fk.output})
// HOST-NOT:     gpu.launch_func
// HOST:         gpu.launch_func @fk_kernels::@zero_elements_k1 blocks in {{.*}} args(%[[SUM]] : memref<5xf32>)
// HOST-NOT:     gpu.launch_func
// HOST:         return
// (Canonicalized, the loop over no elements is gone: the kernel stores 0.)
// KERNEL-LABEL: gpu.func @zero_elements_k1(
// KERNEL-SAME:    %[[OUT:[a-z0-9_]+]]: memref<5xf32>
// KERNEL-SAME:    ) kernel
// KERNEL:         %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// KERNEL:         scf.for %[[I:[a-z0-9_]+]] =
// KERNEL-NEXT:      memref.store %[[ZERO]], %[[OUT]][%[[I]]] : memref<5xf32>
// KERNEL-NEXT:    }
// RAW-LABEL: gpu.func @zero_elements_k1(
// RAW:         %[[LB:[a-z0-9_]+]] = arith.constant 0 : index
// RAW-NEXT:    %[[UB:[a-z0-9_]+]] = arith.constant 0 : index
// RAW-NEXT:    %[[STEP:[a-z0-9_]+]] = arith.constant 1 : index
// RAW-NEXT:    scf.for %{{[a-z0-9_]+}} = %[[LB]] to %[[UB]] step %[[STEP]] iter_args
func.func @zero_elements(%x: tensor<0x5xf32>) -> (tensor<5xf32>, tensor<0x5xf32>) {
  %0 = fk.fusion loop(%x) : (tensor<0x5xf32>) -> tensor<0x5xf32> {
  ^bb0(%a: tensor<0x5xf32>):
    %e = fk.exp %a : tensor<0x5xf32>
    fk.yield %e : tensor<0x5xf32>
  }
  %1 = fk.fusion reduction(%0) : (tensor<0x5xf32>) -> tensor<5xf32> {
  ^bb0(%a: tensor<0x5xf32>):
    %s = fk.reduce_sum %a axes = [0] : tensor<0x5xf32> -> tensor<5xf32>
    fk.yield %s : tensor<5xf32>
  }
  %2 = fk.fusion loop(%x) : (tensor<0x5xf32>) -> tensor<0x5xf32> {
  ^bb0(%a: tensor<0x5xf32>):
    %n = fk.neg %a : tensor<0x5xf32>
    fk.yield %n : tensor<0x5xf32>
  }
  return %1, %2 : tensor<5xf32>, tensor<0x5xf32>
}
