// fk-fuse{explain}: every decision is a remark at the op with its reason
// (a join and the bytes it saves, or the veto that kept the op in a kernel
// of its own), sibling merges are remarks at the later kernel's root, and
// each graph gets a summary of kernels and predicted traffic. Every remark
// is expected here, so a decision that changes or a remark that appears or
// disappears fails the test. fuse.mlir checks the IR of the same decisions.
// RUN: fkc-opt %s --fk-fuse=explain -verify-diagnostics -o /dev/null
// Without explain the pass says nothing.
// RUN: fkc-opt %s --fk-fuse 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark:

// Join: a chain fuses into its consumer's kernel, saving a write and a read.
// expected-remark @+1 {{graph 'chain': 2 ops in 1 kernels; predicted device memory traffic 2.7 KiB (4.5 KiB with a kernel per op)}}
func.func @chain(%x: tensor<7x33xf32>, %y: tensor<7x33xf32>) -> tensor<7x33xf32> {
  // expected-remark @+1 {{'fk.add' fused into the kernel of 'fk.exp': saves 1.8 KiB of device memory traffic (a write and a read of 924 B)}}
  %h = fk.add %x, %y : tensor<7x33xf32>
  %e = fk.exp %h : tensor<7x33xf32>
  return %e : tensor<7x33xf32>
}

// Ops are named by their statement (the NameLoc the front end gives them).
// expected-remark @unknown {{'h' (fk.add) fused into the kernel of 'e' (fk.exp): saves 32 B of device memory traffic (a write and a read of 16 B)}}
// expected-remark @+1 {{graph 'named': 2 ops in 1 kernels; predicted device memory traffic 32 B (80 B with a kernel per op)}}
func.func @named(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = fk.add %x, %x : tensor<4xf32> loc("h")
  %e = fk.exp %h : tensor<4xf32> loc("e")
  return %e : tensor<4xf32>
}

// Join: a broadcast used by two kernels is duplicated into both; the two
// kernels then share x and are merged as siblings.
// expected-remark @+1 {{graph 'duplicated': 3 ops in 1 kernels; predicted device memory traffic 3.7 KiB (6.4 KiB with a kernel per op)}}
func.func @duplicated(%x: tensor<33xf32>, %a: tensor<7x33xf32>, %b: tensor<7x33xf32>) -> (tensor<7x33xf32>, tensor<7x33xf32>) {
  // expected-remark @+3 {{'fk.broadcast' fused into the kernel of 'fk.add': saves 1.8 KiB of device memory traffic (a write and a read of 924 B)}}
  // expected-remark @+2 {{'fk.broadcast' fused into the kernel of 'fk.mul': saves 1.8 KiB of device memory traffic (a write and a read of 924 B)}}
  // expected-remark @+1 {{duplicated into 2 kernels: it is index arithmetic or a cast}}
  %t = fk.broadcast %x : tensor<33xf32> -> tensor<7x33xf32>
  %m = fk.mul %a, %t : tensor<7x33xf32>
  // expected-remark @+1 {{sibling kernels of 'fk.mul' and 'fk.add' merged: saves 132 B of device memory traffic (their common inputs read once)}}
  %s = fk.add %b, %t : tensor<7x33xf32>
  return %m, %s : tensor<7x33xf32>, tensor<7x33xf32>
}

// Join: sibling kernels (both read x) become one.
// expected-remark @+1 {{graph 'siblings': 3 ops in 1 kernels; predicted device memory traffic 2.0 KiB (3.5 KiB with a kernel per op)}}
func.func @siblings(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %e = fk.exp %x : tensor<4x32xf32>
  // expected-remark @+1 {{'fk.tanh' fused into the kernel of 'fk.mul': saves 1.0 KiB of device memory traffic (a write and a read of 512 B)}}
  %t = fk.tanh %x : tensor<4x32xf32>
  // expected-remark @+1 {{sibling kernels of 'fk.exp' and 'fk.mul' merged: saves 512 B of device memory traffic (their common inputs read once)}}
  %m = fk.mul %t, %y : tensor<4x32xf32>
  return %e, %m : tensor<4x32xf32>, tensor<4x32xf32>
}

// Veto, recomputation: arithmetic used by two kernels is not computed in
// each.
// expected-remark @+1 {{graph 'two_consumers': 5 ops in 2 kernels; predicted device memory traffic 3.0 KiB (6.0 KiB with a kernel per op)}}
func.func @two_consumers(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // expected-remark @+1 {{'fk.exp' kept as a kernel of its own: it has 2 consumer kernels; fusing would compute it 2 times}}
  %e = fk.exp %x : tensor<8x16xf32>
  // expected-remark @+1 {{'fk.add' fused into the kernel of 'fk.reshape': saves 1.0 KiB of device memory traffic (a write and a read of 512 B)}}
  %a = fk.add %e, %y : tensor<8x16xf32>
  %m = fk.mul %e, %y : tensor<8x16xf32>
  // expected-remark @+1 {{'fk.transpose' fused into the kernel of 'fk.reshape': saves 1.0 KiB of device memory traffic (a write and a read of 512 B)}}
  %t = fk.transpose %a perm = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  // expected-remark @+1 {{sibling kernels of 'fk.mul' and 'fk.reshape' merged: saves 1.0 KiB of device memory traffic (their common inputs read once)}}
  %r = fk.reshape %t : tensor<16x8xf32> -> tensor<8x16xf32>
  return %r, %m : tensor<8x16xf32>, tensor<8x16xf32>
}

// Veto: index arithmetic is duplicated, but not when it is also a graph
// result (it is written once, by a kernel of its own).
// expected-remark @+1 {{graph 'returned_index': 3 ops in 2 kernels; predicted device memory traffic 672 B (768 B with a kernel per op)}}
func.func @returned_index(%x: tensor<6x4xf32>, %y: tensor<4x6xf32>, %z: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  // expected-remark @+1 {{'fk.transpose' kept as a kernel of its own: it is a graph result used by several kernels}}
  %t = fk.transpose %x perm = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %a = fk.add %t, %y : tensor<4x6xf32>
  // expected-remark @+1 {{sibling kernels of 'fk.add' and 'fk.mul' merged: saves 96 B of device memory traffic (their common inputs read once)}}
  %m = fk.mul %t, %z : tensor<4x6xf32>
  return %a, %m, %t : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// Vetoes on a reduction's own rows: empty rows, not a row (a leading axis),
// rows too long to stay on chip.
// expected-remark @+1 {{graph 'rows': 11 ops in 6 kernels; predicted device memory traffic 385.6 KiB (642.7 KiB with a kernel per op)}}
func.func @rows(%x: tensor<4x0xf32>, %c: tensor<33x4xf32>, %l: tensor<2x16385xf32>) -> (tensor<4x0xf32>, tensor<33x4xf32>, tensor<2x16385xf32>) {
  // expected-remark @+1 {{'fk.reduce_sum' kept as a kernel of its own: its rows are empty}}
  %s = fk.reduce_sum %x axes = [1] : tensor<4x0xf32> -> tensor<4xf32>
  // expected-remark @+1 {{'fk.reshape' fused into the kernel of 'fk.sub': saves 32 B of device memory traffic (a write and a read of 16 B)}}
  %sr = fk.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.sub': saves 0 B of device memory traffic (a write and a read of 0 B)}}
  %sb = fk.broadcast %sr : tensor<4x1xf32> -> tensor<4x0xf32>
  %d = fk.sub %x, %sb : tensor<4x0xf32>
  // expected-remark @+1 {{'fk.reduce_sum' kept as a kernel of its own: it reduces axes that are not the trailing axes of its operand (not a row)}}
  %cs = fk.reduce_sum %c axes = [0] : tensor<33x4xf32> -> tensor<4xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.sub': saves 1.0 KiB of device memory traffic (a write and a read of 528 B)}}
  %csb = fk.broadcast %cs : tensor<4xf32> -> tensor<33x4xf32>
  %cd = fk.sub %c, %csb : tensor<33x4xf32>
  // expected-remark @+1 {{'fk.reduce_max' kept as a kernel of its own: its rows of 16385 elements do not fit on chip (at most 16384)}}
  %m = fk.reduce_max %l axes = [1] : tensor<2x16385xf32> -> tensor<2xf32>
  // expected-remark @+1 {{'fk.reshape' fused into the kernel of 'fk.sub': saves 16 B of device memory traffic (a write and a read of 8 B)}}
  %mr = fk.reshape %m : tensor<2xf32> -> tensor<2x1xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.sub': saves 256.0 KiB of device memory traffic (a write and a read of 128.0 KiB)}}
  %mb = fk.broadcast %mr : tensor<2x1xf32> -> tensor<2x16385xf32>
  %ld = fk.sub %l, %mb : tensor<2x16385xf32>
  return %d, %cd, %ld : tensor<4x0xf32>, tensor<33x4xf32>, tensor<2x16385xf32>
}

// Vetoes against the consumer's rows: a broadcast across the rows
// (misaligned), reductions of two row spaces in one kernel, a row reduction
// into a column reduction's kernel.
// expected-remark @+1 {{graph 'row_spaces': 11 ops in 6 kernels; predicted device memory traffic 1.2 KiB (2.0 KiB with a kernel per op)}}
func.func @row_spaces(%x: tensor<6x6xf32>, %a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> (tensor<6x6xf32>, tensor<4xf32>, tensor<8xf32>) {
  // expected-remark @+1 {{'fk.reduce_sum' kept as a kernel of its own: its use by 'fk.broadcast' does not keep the rows aligned}}
  %s = fk.reduce_sum %x axes = [1] : tensor<6x6xf32> -> tensor<6xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.mul': saves 288 B of device memory traffic (a write and a read of 144 B)}}
  %sb = fk.broadcast %s : tensor<6xf32> -> tensor<6x6xf32>
  %y = fk.mul %x, %sb : tensor<6x6xf32>
  // expected-remark @+1 {{'fk.reduce_sum' kept as a kernel of its own: the consumer kernel reduces rows of another shape}}
  %sa = fk.reduce_sum %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  // expected-remark @+1 {{'fk.reduce_sum' fused into the kernel of 'fk.add': saves 32 B of device memory traffic (a write and a read of 16 B)}}
  %sbb = fk.reduce_sum %b axes = [1] : tensor<4x16xf32> -> tensor<4xf32>
  %two = fk.add %sa, %sbb : tensor<4xf32>
  // expected-remark @+1 {{'fk.reduce_max' kept as a kernel of its own: the consumer kernel's reduction is not over rows}}
  %r = fk.reduce_max %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  // expected-remark @+1 {{'fk.reshape' fused into the kernel of 'fk.reduce_sum': saves 32 B of device memory traffic (a write and a read of 16 B)}}
  %rr = fk.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.reduce_sum': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %rb = fk.broadcast %rr : tensor<4x1xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{'fk.mul' fused into the kernel of 'fk.reduce_sum': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %p = fk.mul %a, %rb : tensor<4x8xf32>
  %col = fk.reduce_sum %p axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %y, %two, %col : tensor<6x6xf32>, tensor<4xf32>, tensor<8xf32>
}

// Vetoes on values that are also graph results: a column reduction writes
// one result only; a loop kernel writes its result's shape ([8, 4], not
// [4, 8]). The two kernels left read x and are merged.
// expected-remark @+1 {{graph 'results': 5 ops in 3 kernels; predicted device memory traffic 928 B (1.4 KiB with a kernel per op)}}
func.func @results(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>) {
  // expected-remark @+1 {{'fk.mul' kept as a kernel of its own: it is also a graph result, and the consumer kernel's reduction writes one result only}}
  %h = fk.mul %x, %x : tensor<4x8xf32>
  %c = fk.reduce_sum %h axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // expected-remark @+2 {{'fk.exp' kept as a kernel of its own: it is also a graph result, of a shape the consumer kernel does not write}}
  // expected-remark @+1 {{sibling kernels of 'fk.mul' and 'fk.exp' merged: saves 128 B of device memory traffic (their common inputs read once)}}
  %g = fk.exp %x : tensor<4x8xf32>
  // expected-remark @+1 {{'fk.transpose' fused into the kernel of 'fk.mul': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %t = fk.transpose %g perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %p = fk.mul %t, %y : tensor<8x4xf32>
  return %c, %h, %p, %g : tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>
}

// Matmul vetoes: one matmul per kernel; an operand's producer stays out
// (TMA); a reduction does not join a matmul's epilogue; a transpose of the
// product is no epilogue. The elementwise epilogue joins.
// expected-remark @+1 {{graph 'matmuls': 11 ops in 6 kernels; predicted device memory traffic 1.8 KiB (2.8 KiB with a kernel per op)}}
func.func @matmuls(%a: tensor<4x6xf32>, %b: tensor<6x8xf32>, %c: tensor<4x5xf32>, %d: tensor<5x8xf32>, %z: tensor<4x3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // expected-remark @+1 {{'fk.reduce_sum' kept as a kernel of its own: the consumer kernel has a matmul, whose epilogue is elementwise}}
  %r = fk.reduce_sum %z axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  // expected-remark @+1 {{'fk.reshape' fused into the kernel of 'fk.add': saves 32 B of device memory traffic (a write and a read of 16 B)}}
  %rr = fk.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
  // expected-remark @+1 {{'fk.neg' kept as a kernel of its own: it is an operand of the consumer kernel's matmul, which the kernel reads from device memory (TMA)}}
  %na = fk.neg %a : tensor<4x6xf32>
  // expected-remark @+1 {{'fk.matmul' kept as a kernel of its own: the consumer kernel has a matmul already}}
  %m1 = fk.matmul %na, %b : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{'fk.matmul' fused into the kernel of 'fk.add': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %m2 = fk.matmul %c, %d : tensor<4x5xf32>, tensor<5x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{'fk.add' fused into the kernel of 'fk.add': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %s = fk.add %m1, %m2 : tensor<4x8xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.add': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %rb = fk.broadcast %rr : tensor<4x1xf32> -> tensor<4x8xf32>
  %y = fk.add %s, %rb : tensor<4x8xf32>
  // expected-remark @+1 {{'fk.matmul' kept as a kernel of its own: its use by 'fk.transpose' is not elementwise (an epilogue runs at the matmul's output elements)}}
  %m3 = fk.matmul %a, %b : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{'fk.transpose' fused into the kernel of 'fk.transpose': saves 256 B of device memory traffic (a write and a read of 128 B)}}
  %t = fk.transpose %m3 perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %tt = fk.transpose %t perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %y, %tt : tensor<4x8xf32>, tensor<4x8xf32>
}

// Matmul vetoes on the consumer kernel: its result is of another shape (a
// broadcast of the product), or it reduces.
// expected-remark @+1 {{graph 'matmul_shapes': 5 ops in 4 kernels; predicted device memory traffic 1.6 KiB (2.1 KiB with a kernel per op)}}
func.func @matmul_shapes(%a: tensor<4x6xf32>, %b: tensor<6x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>) {
  // expected-remark @+1 {{'fk.matmul' kept as a kernel of its own: the consumer kernel's result is not of the matmul's shape}}
  %m = fk.matmul %a, %b : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{'fk.broadcast' fused into the kernel of 'fk.add': saves 512 B of device memory traffic (a write and a read of 256 B)}}
  %mb = fk.broadcast %m : tensor<4x8xf32> -> tensor<2x4x8xf32>
  %s = fk.add %mb, %y : tensor<2x4x8xf32>
  // expected-remark @+1 {{'fk.matmul' kept as a kernel of its own: the consumer kernel reduces; a matmul's epilogue is elementwise}}
  %m2 = fk.matmul %a, %b : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %r = fk.reduce_sum %m2 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %s, %r : tensor<2x4x8xf32>, tensor<4xf32>
}

// An attention takes an elementwise epilogue of its shape; a second
// attention into the same kernel is refused.
// expected-remark @+1 {{graph 'attentions': 3 ops in 2 kernels; predicted device memory traffic 9.0 KiB (11.0 KiB with a kernel per op)}}
func.func @attentions(%q: tensor<1x8x64xf16>, %k: tensor<1x8x64xf16>, %v: tensor<1x8x64xf16>) -> tensor<1x8x64xf16> {
  // expected-remark @+1 {{'fk.attention' kept as a kernel of its own: the consumer kernel has a attention already}}
  %o1 = fk.attention %q, %k, %v scale = 0.125 causal = false : tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1x8x64xf16> -> tensor<1x8x64xf16>
  // expected-remark @+1 {{'fk.attention' fused into the kernel of 'fk.add': saves 2.0 KiB of device memory traffic (a write and a read of 1.0 KiB)}}
  %o2 = fk.attention %k, %q, %v scale = 0.125 causal = true : tensor<1x8x64xf16>, tensor<1x8x64xf16>, tensor<1x8x64xf16> -> tensor<1x8x64xf16>
  %y = fk.add %o1, %o2 : tensor<1x8x64xf16>
  return %y : tensor<1x8x64xf16>
}
