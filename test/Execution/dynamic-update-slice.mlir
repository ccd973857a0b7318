// gplace.dynamic_update_slice (TensorFlow's XlaDynamicUpdateSlice, XLA's
// DynamicUpdateSlice): a 2x2 block written into a 4x3 table at runtime
// offsets, at the first position [0, 0], at the last one where it fits
// [2, 1], and at [7, -3], out of range, which XLA clamps to [2, 0]; a row
// of an integer stack at a row given by i32 indices (the first and the
// last); its gradient (the input's: dy with the block zeroed; the
// update's: dy's block, at the clamped offsets); on the CPU and with two
// emulated GPUs.
// RUN: gplace-run %s --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=0,0 | FileCheck %s --check-prefix=FIRST
// RUN: gplace-run %s --emulate-gpus=2 --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=0,0 | FileCheck %s --check-prefix=FIRST
// FIRST: result[0]: 4x3xf32={{\[\[}}100, 101, 2], [102, 103, 5], [6, 7, 8], [9, 10, 11]]
// RUN: gplace-run %s --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=2,1 | FileCheck %s --check-prefix=LAST
// RUN: gplace-run %s --emulate-gpus=2 --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=2,1 | FileCheck %s --check-prefix=LAST
// LAST: result[0]: 4x3xf32={{\[\[}}0, 1, 2], [3, 4, 5], [6, 100, 101], [9, 102, 103]]
// RUN: gplace-run %s --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=7,-3 | FileCheck %s --check-prefix=CLAMP
// RUN: gplace-run %s --emulate-gpus=2 --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xf32=100,101,102,103 --input=2xi64=7,-3 | FileCheck %s --check-prefix=CLAMP
// CLAMP: result[0]: 4x3xf32={{\[\[}}0, 1, 2], [3, 4, 5], [100, 101, 8], [102, 103, 11]]
// RUN: gplace-run %s --entry=stackRow --input=2xi32=0,0 | FileCheck %s --check-prefix=ROW0
// RUN: gplace-run %s --entry=stackRow --emulate-gpus=2 --input=2xi32=0,0 | FileCheck %s --check-prefix=ROW0
// ROW0: result[0]: 3x2xi64={{\[\[}}7, 8], [1, 1], [1, 1]]
// RUN: gplace-run %s --entry=stackRow --input=2xi32=2,0 | FileCheck %s --check-prefix=ROW2
// RUN: gplace-run %s --entry=stackRow --emulate-gpus=2 --input=2xi32=2,0 | FileCheck %s --check-prefix=ROW2
// ROW2: result[0]: 3x2xi64={{\[\[}}1, 1], [1, 1], [7, 8]]
// RUN: gplace-run %s --entry=gradients --input=2xi64=2,1 | FileCheck %s --check-prefix=GRAD
// RUN: gplace-run %s --entry=gradients --emulate-gpus=2 --input=2xi64=2,1 | FileCheck %s --check-prefix=GRAD
// GRAD: result[0]: 4x3xf32={{\[\[}}1, 2, 3], [4, 5, 6], [7, 0, 0], [10, 0, 0]]
// GRAD-NEXT: result[1]: 2x2xf32={{\[\[}}8, 9], [11, 12]]
// RUN: gplace-run %s --entry=gradients --input=2xi64=7,-3 | FileCheck %s --check-prefix=GRAD-CLAMP
// GRAD-CLAMP: result[0]: 4x3xf32={{\[\[}}1, 2, 3], [4, 5, 6], [0, 0, 9], [0, 0, 12]]
// GRAD-CLAMP-NEXT: result[1]: 2x2xf32={{\[\[}}7, 8], [10, 11]]

func.func @main(%t: tensor<4x3xf32>, %u: tensor<2x2xf32>, %i: tensor<2xi64>) -> tensor<4x3xf32> {
  %r = gplace.dynamic_update_slice %t, %u, %i {name = "write"} : (tensor<4x3xf32>, tensor<2x2xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

func.func @stackRow(%i: tensor<2xi32>) -> tensor<3x2xi64> {
  %stack = gplace.constant dense<1> : tensor<3x2xi64>
  %row = gplace.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %r = gplace.dynamic_update_slice %stack, %row, %i : (tensor<3x2xi64>, tensor<1x2xi64>, tensor<2xi32>) -> tensor<3x2xi64>
  return %r : tensor<3x2xi64>
}

func.func @gradients(%i: tensor<2xi64>) -> (tensor<4x3xf32>, tensor<2x2xf32>) {
  %t = gplace.constant dense<0.5> : tensor<4x3xf32>
  %u = gplace.constant dense<2.0> : tensor<2x2xf32>
  %w = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %r = gplace.dynamic_update_slice %t, %u, %i : (tensor<4x3xf32>, tensor<2x2xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  %p = gplace.mul %r, %w : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = gplace.reduce_sum %p axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %g:2 = gplace.gradients %s wrt %t, %u : tensor<f32> wrt tensor<4x3xf32>, tensor<2x2xf32>
  return %g#0, %g#1 : tensor<4x3xf32>, tensor<2x2xf32>
}
