// REQUIRES: dnnl
// A forward NCHW convolution runs in the layouts oneDNN chooses (blocked or
// NHWC), reordered in and out inside the kernel (docs/runtime.md, "Host
// kernels"): with 3 input and 17 output channels (blocks of 16 and a
// padded one), SAME padding, strides and a grouped filter, its results
// equal the NHWC convolution's (run in place) exactly. The inputs are small
// integers, so every sum is exact in f32 whatever the order.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %sx = gplace.constant dense<[1, 2]> : tensor<2xi64>
  %sw = gplace.constant dense<[3, 4]> : tensor<2xi64>
  %eight = gplace.constant dense<8.0> : tensor<f32>
  %ux = gplace.stateless_random_uniform %sx : tensor<2xi64> -> tensor<2x7x6x3xf32>
  %uw = gplace.stateless_random_uniform %sw : tensor<2xi64> -> tensor<3x3x3x17xf32>
  %x8 = gplace.mul %ux, %eight : (tensor<2x7x6x3xf32>, tensor<f32>) -> tensor<2x7x6x3xf32>
  %w8 = gplace.mul %uw, %eight : (tensor<3x3x3x17xf32>, tensor<f32>) -> tensor<3x3x3x17xf32>
  %xi = gplace.cast %x8 : tensor<2x7x6x3xf32> to tensor<2x7x6x3xi32>
  %wi = gplace.cast %w8 : tensor<3x3x3x17xf32> to tensor<3x3x3x17xi32>
  %x = gplace.cast %xi : tensor<2x7x6x3xi32> to tensor<2x7x6x3xf32>
  %w = gplace.cast %wi : tensor<3x3x3x17xi32> to tensor<3x3x3x17xf32>
  %xc = gplace.transpose %x perm = [0, 3, 1, 2] : tensor<2x7x6x3xf32> -> tensor<2x3x7x6xf32>

  // SAME, stride 1.
  %a = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x7x6x3xf32>, tensor<3x3x3x17xf32> -> tensor<2x7x6x17xf32>
  %ac = gplace.conv2d %xc, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<2x3x7x6xf32>, tensor<3x3x3x17xf32> -> tensor<2x17x7x6xf32>
  %at = gplace.transpose %ac perm = [0, 2, 3, 1] : tensor<2x17x7x6xf32> -> tensor<2x7x6x17xf32>
  %ad = gplace.sub %at, %a : (tensor<2x7x6x17xf32>, tensor<2x7x6x17xf32>) -> tensor<2x7x6x17xf32>
  %ad2 = gplace.mul %ad, %ad : (tensor<2x7x6x17xf32>, tensor<2x7x6x17xf32>) -> tensor<2x7x6x17xf32>
  %da = gplace.reduce_sum %ad2 axes = [0, 1, 2, 3] : tensor<2x7x6x17xf32> -> tensor<f32>

  // VALID, strides 2 x 3, dilation 2 in height.
  %b = gplace.conv2d %x, %w strides = [1, 2, 3, 1] padding = "VALID" {dilations = array<i64: 1, 2, 1, 1>} : tensor<2x7x6x3xf32>, tensor<3x3x3x17xf32> -> tensor<2x2x2x17xf32>
  %bc = gplace.conv2d %xc, %w strides = [1, 1, 2, 3] padding = "VALID" {data_format = "NCHW", dilations = array<i64: 1, 1, 2, 1>} : tensor<2x3x7x6xf32>, tensor<3x3x3x17xf32> -> tensor<2x17x2x2xf32>
  %bt = gplace.transpose %bc perm = [0, 2, 3, 1] : tensor<2x17x2x2xf32> -> tensor<2x2x2x17xf32>
  %bd = gplace.sub %bt, %b : (tensor<2x2x2x17xf32>, tensor<2x2x2x17xf32>) -> tensor<2x2x2x17xf32>
  %bd2 = gplace.mul %bd, %bd : (tensor<2x2x2x17xf32>, tensor<2x2x2x17xf32>) -> tensor<2x2x2x17xf32>
  %db = gplace.reduce_sum %bd2 axes = [0, 1, 2, 3] : tensor<2x2x2x17xf32> -> tensor<f32>

  // Grouped: 3 groups of 1 input channel (a filter of 1 input channel).
  %wg = gplace.slice %w begin = [0, 0, 0, 0] size = [3, 3, 1, 15] : tensor<3x3x3x17xf32> -> tensor<3x3x1x15xf32>
  %g = gplace.conv2d %x, %wg strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x7x6x3xf32>, tensor<3x3x1x15xf32> -> tensor<2x7x6x15xf32>
  %gc = gplace.conv2d %xc, %wg strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<2x3x7x6xf32>, tensor<3x3x1x15xf32> -> tensor<2x15x7x6xf32>
  %gt = gplace.transpose %gc perm = [0, 2, 3, 1] : tensor<2x15x7x6xf32> -> tensor<2x7x6x15xf32>
  %gd = gplace.sub %gt, %g : (tensor<2x7x6x15xf32>, tensor<2x7x6x15xf32>) -> tensor<2x7x6x15xf32>
  %gd2 = gplace.mul %gd, %gd : (tensor<2x7x6x15xf32>, tensor<2x7x6x15xf32>) -> tensor<2x7x6x15xf32>
  %dg = gplace.reduce_sum %gd2 axes = [0, 1, 2, 3] : tensor<2x7x6x15xf32> -> tensor<f32>
  // Not all zeros: the NHWC convolution's sum.
  %sa = gplace.reduce_sum %a axes = [0, 1, 2, 3] : tensor<2x7x6x17xf32> -> tensor<f32>
  return %da, %db, %dg, %sa : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
// CHECK: result[0]: f32=0
// CHECK-NEXT: result[1]: f32=0
// CHECK-NEXT: result[2]: f32=0
// CHECK-NEXT: result[3]: f32=390184
