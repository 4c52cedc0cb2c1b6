// fk.tensor_map holds the rules the runtime checks when it loads an
// artifact, so that a bad map is an error at compile time.
// RUN: fkc-opt %s --split-input-file --verify-diagnostics

func.func @ok(%a: memref<100x64xf16>) -> !llvm.ptr {
  %m = fk.tensor_map %a dims [64, 100] strides [128] box [64, 128] swizzle 128 : memref<100x64xf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @stride(%a: memref<100x60xf16>) -> !llvm.ptr {
  // expected-error @+1 {{expects strides that are positive multiples of 16 bytes}}
  %m = fk.tensor_map %a dims [60, 100] strides [120] box [64, 128] swizzle 128 : memref<100x60xf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @wide_box(%a: memref<100x256xf16>) -> !llvm.ptr {
  // expected-error @+1 {{expects a box row of a multiple of 16 bytes, at most the swizzle}}
  %m = fk.tensor_map %a dims [256, 100] strides [512] box [128, 64] swizzle 128 : memref<100x256xf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @outside(%a: memref<100x64xf16>) -> !llvm.ptr {
  // expected-error @+1 {{addresses 25600 bytes of a buffer of 12800}}
  %m = fk.tensor_map %a dims [64, 200] strides [128] box [64, 128] swizzle 128 : memref<100x64xf16> -> !llvm.ptr
  return %m : !llvm.ptr
}
