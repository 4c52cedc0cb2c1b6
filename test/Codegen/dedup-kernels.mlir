// fk-dedup-kernels keeps the first of the kernels that are equal but for
// their name (and locations), points every launch of the others at it and
// erases them. Kernels that differ in a constant, a type or an argument
// attribute stay.
// RUN: fkc-opt %s --fk-dedup-kernels | FileCheck %s

// CHECK-LABEL: func.func @graph
// CHECK:         gpu.launch_func @fk_kernels::@k0
// CHECK-NEXT:    gpu.launch_func @fk_kernels::@k0
// CHECK-NEXT:    gpu.launch_func @fk_kernels::@k2
// CHECK-NEXT:    gpu.launch_func @fk_kernels::@k3
// CHECK-NEXT:    gpu.launch_func @fk_kernels::@k4
// CHECK-NEXT:    gpu.launch_func @fk_kernels::@k0
// CHECK-LABEL: gpu.module @fk_kernels
// CHECK:         gpu.func @k0(
// CHECK-NOT:     gpu.func @k1(
// CHECK:         gpu.func @k2(
// CHECK:         gpu.func @k3(
// CHECK:         gpu.func @k4(
// CHECK-NOT:     gpu.func @k5(
module attributes {gpu.container_module} {
  func.func @graph(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<8xf32>) {
    %one = arith.constant 1 : index
    gpu.launch_func @fk_kernels::@k0 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<4xf32>, %b : memref<4xf32>)
    gpu.launch_func @fk_kernels::@k1 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%b : memref<4xf32>, %a : memref<4xf32>)
    gpu.launch_func @fk_kernels::@k2 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<4xf32>, %b : memref<4xf32>)
    gpu.launch_func @fk_kernels::@k3 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%c : memref<8xf32>, %c : memref<8xf32>)
    gpu.launch_func @fk_kernels::@k4 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<4xf32>, %b : memref<4xf32>)
    gpu.launch_func @fk_kernels::@k5 blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<4xf32>, %b : memref<4xf32>)
    return
  }
  gpu.module @fk_kernels {
    gpu.func @k0(%in: memref<4xf32> {llvm.align = 16 : i64}, %out: memref<4xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<4xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i] : memref<4xf32>
      gpu.return
    }
    // k0 but for its name and locations: merged.
    gpu.func @k1(%in: memref<4xf32> {llvm.align = 16 : i64}, %out: memref<4xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x loc("elsewhere":1:1)
      %v = memref.load %in[%i] : memref<4xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32 loc("elsewhere":2:2)
      memref.store %r, %out[%i] : memref<4xf32>
      gpu.return
    }
    // A constant differs.
    gpu.func @k2(%in: memref<4xf32> {llvm.align = 16 : i64}, %out: memref<4xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<4xf32>
      %two = arith.constant 3.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i] : memref<4xf32>
      gpu.return
    }
    // A shape differs.
    gpu.func @k3(%in: memref<8xf32> {llvm.align = 16 : i64}, %out: memref<8xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<8xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i] : memref<8xf32>
      gpu.return
    }
    // An argument attribute differs.
    gpu.func @k4(%in: memref<4xf32> {llvm.align = 8 : i64}, %out: memref<4xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<4xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i] : memref<4xf32>
      gpu.return
    }
    // k0 again.
    gpu.func @k5(%in: memref<4xf32> {llvm.align = 16 : i64}, %out: memref<4xf32> {llvm.align = 16 : i64}) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<4xf32>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i] : memref<4xf32>
      gpu.return
    }
  }
}
