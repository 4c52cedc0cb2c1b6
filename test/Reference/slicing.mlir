// fk.slice, fk.concat, fk.pad, fk.dynamic_slice and fk.update_slice move
// elements as documented: strided windows, joins with empty operands, pads
// of empty operands, and dynamic starts clamped into the tensor.
// RUN: fkc-opt %s --fk-print-reference | FileCheck %s

// a = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]: rows 1.. by 1, columns
// 1.. by 2; an empty window; a window of one element.
// CHECK:      @slice result #0: tensor<2x2xf32> {{\[\[}}5, 7], [9, 11]]
// CHECK-NEXT: @slice result #1: tensor<0x4xf32> []
// CHECK-NEXT: @slice result #2: tensor<1x1xf32> {{\[\[}}11]]
func.func @slice() -> (tensor<2x2xf32>, tensor<0x4xf32>, tensor<1x1xf32>) {
  %a = fk.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %0 = fk.slice %a start = [1, 1] step = [1, 2] : tensor<3x4xf32> -> tensor<2x2xf32>
  %1 = fk.slice %a start = [3, 0] step = [1, 1] : tensor<3x4xf32> -> tensor<0x4xf32>
  %2 = fk.slice %a start = [2, 3] step = [1, 1] : tensor<3x4xf32> -> tensor<1x1xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<0x4xf32>, tensor<1x1xf32>
}

// Along the last axis, with an empty operand in the middle; along the first.
// CHECK:      @concat result #0: tensor<2x3xi32> {{\[\[}}1, 2, 5], [3, 4, 6]]
// CHECK-NEXT: @concat result #1: tensor<3x2xi32> {{\[\[}}1, 2], [3, 4], [7, 8]]
func.func @concat() -> (tensor<2x3xi32>, tensor<3x2xi32>) {
  %a = fk.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %e = fk.constant dense<0> : tensor<2x0xi32>
  %b = fk.constant dense<[[5], [6]]> : tensor<2x1xi32>
  %c = fk.constant dense<[[7, 8]]> : tensor<1x2xi32>
  %0 = fk.concat %a, %e, %b axis = 1 : tensor<2x2xi32>, tensor<2x0xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
  %1 = fk.concat %a, %c axis = 0 : tensor<2x2xi32>, tensor<1x2xi32> -> tensor<3x2xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<3x2xi32>
}

// The value rounds to the dtype (0.1 in f16 is 0.0999756); an empty operand
// pads to all value.
// CHECK:      @pad result #0: tensor<3x4xf16> {{\[\[}}0.0999756, 0.0999756, 0.0999756, 0.0999756], [0.0999756, 1, 2, 0.0999756], [0.0999756, 3, 4, 0.0999756]]
// CHECK-NEXT: @pad result #1: tensor<2x1xi1> {{\[\[}}true], [true]]
func.func @pad() -> (tensor<3x4xf16>, tensor<2x1xi1>) {
  %a = fk.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %0 = fk.pad %a low = [1, 1] high = [0, 1] value = 0.1 : tensor<2x2xf16> -> tensor<3x4xf16>
  %e = fk.constant dense<false> : tensor<0x1xi1>
  %1 = fk.pad %e low = [1, 0] high = [1, 0] value = 1.0 : tensor<0x1xi1> -> tensor<2x1xi1>
  return %0, %1 : tensor<3x4xf16>, tensor<2x1xi1>
}

// Starts -5, 1 and 9 for windows of 2 rows of [10, 20, 30, 40]: clamped to
// 0, 1 and 2.
// CHECK:      @dynamic_slice result #0: tensor<2xf32> [10, 20]
// CHECK-NEXT: @dynamic_slice result #1: tensor<2xf32> [20, 30]
// CHECK-NEXT: @dynamic_slice result #2: tensor<2xf32> [30, 40]
func.func @dynamic_slice() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = fk.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %low = fk.constant dense<-5> : tensor<i32>
  %one = fk.constant dense<1> : tensor<i32>
  %high = fk.constant dense<9> : tensor<i32>
  %0 = fk.dynamic_slice %a start = [%low] : tensor<4xf32>, tensor<i32> -> tensor<2xf32>
  %1 = fk.dynamic_slice %a start = [%one] : tensor<4xf32>, tensor<i32> -> tensor<2xf32>
  %2 = fk.dynamic_slice %a start = [%high] : tensor<4xf32>, tensor<i32> -> tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// An update of [[7, 8]] at rows -1 (clamped to 0) and 5 (clamped to 2) and
// at a static start; the destination is unchanged.
// CHECK:      @update_slice result #0: tensor<3x3xi32> {{\[\[}}7, 8, 0], [0, 0, 0], [0, 0, 0]]
// CHECK-NEXT: @update_slice result #1: tensor<3x3xi32> {{\[\[}}0, 0, 0], [0, 0, 0], [0, 7, 8]]
// CHECK-NEXT: @update_slice result #2: tensor<3x3xi32> {{\[\[}}0, 0, 0], [0, 7, 8], [0, 0, 0]]
// CHECK-NEXT: @update_slice result #3: tensor<3x3xi32> {{\[\[}}0, 0, 0], [0, 0, 0], [0, 0, 0]]
func.func @update_slice() -> (tensor<3x3xi32>, tensor<3x3xi32>, tensor<3x3xi32>, tensor<3x3xi32>) {
  %d = fk.constant dense<0> : tensor<3x3xi32>
  %u = fk.constant dense<[[7, 8]]> : tensor<1x2xi32>
  %low = fk.constant dense<-1> : tensor<i32>
  %high = fk.constant dense<5> : tensor<i32>
  %0 = fk.update_slice %d, %u start = [%low, 0] : tensor<3x3xi32>, tensor<1x2xi32>, tensor<i32>
  %1 = fk.update_slice %d, %u start = [%high, %high] : tensor<3x3xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>
  %2 = fk.update_slice %d, %u start = [1, 1] : tensor<3x3xi32>, tensor<1x2xi32>
  return %0, %1, %2, %d : tensor<3x3xi32>, tensor<3x3xi32>, tensor<3x3xi32>, tensor<3x3xi32>
}
