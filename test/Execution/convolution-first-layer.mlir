// REQUIRES: dnnl
// A first layer (one input channel) with 8 or 16 output channels runs
// oneDNN's direct first-layer kernel, its source read as NCHW and its
// result written as nChw8c or nChw16c, which are NHWC's memory
// (docs/runtime.md, "Host kernels"); with 32 channels, in NCHW and fused
// with a bias and relu it takes the other paths. Each result equals the
// same convolution over two input channels, the second zero (the general
// path), exactly: the inputs are small integers, so every sum is exact in
// f32 whatever the order.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --layout-optimizer=false --remapping=false | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %sx = gplace.constant dense<[5, 6]> : tensor<2xi64>
  %sw = gplace.constant dense<[7, 8]> : tensor<2xi64>
  %eight = gplace.constant dense<8.0> : tensor<f32>
  %four = gplace.constant dense<4.0> : tensor<f32>
  %ux = gplace.stateless_random_uniform %sx : tensor<2xi64> -> tensor<2x9x8x1xf32>
  %uw = gplace.stateless_random_uniform %sw : tensor<2xi64> -> tensor<3x3x1x32xf32>
  %x8 = gplace.mul %ux, %eight : (tensor<2x9x8x1xf32>, tensor<f32>) -> tensor<2x9x8x1xf32>
  %w8 = gplace.mul %uw, %eight : (tensor<3x3x1x32xf32>, tensor<f32>) -> tensor<3x3x1x32xf32>
  %xi = gplace.cast %x8 : tensor<2x9x8x1xf32> to tensor<2x9x8x1xi32>
  %wi = gplace.cast %w8 : tensor<3x3x1x32xf32> to tensor<3x3x1x32xi32>
  %x = gplace.cast %xi : tensor<2x9x8x1xi32> to tensor<2x9x8x1xf32>
  %wf = gplace.cast %wi : tensor<3x3x1x32xi32> to tensor<3x3x1x32xf32>
  // Centred: negative sums for the relu.
  %w = gplace.sub %wf, %four : (tensor<3x3x1x32xf32>, tensor<f32>) -> tensor<3x3x1x32xf32>
  // Two input channels, the second zero, for the reference.
  %z = gplace.sub %x, %x : (tensor<2x9x8x1xf32>, tensor<2x9x8x1xf32>) -> tensor<2x9x8x1xf32>
  %x2 = gplace.concat %x, %z axis = 3 : tensor<2x9x8x1xf32>, tensor<2x9x8x1xf32> -> tensor<2x9x8x2xf32>
  %w2 = gplace.concat %w, %w axis = 2 : tensor<3x3x1x32xf32>, tensor<3x3x1x32xf32> -> tensor<3x3x2x32xf32>
  %w8c = gplace.slice %w begin = [0, 0, 0, 0] size = [3, 3, 1, 8] : tensor<3x3x1x32xf32> -> tensor<3x3x1x8xf32>
  %w8r = gplace.slice %w2 begin = [0, 0, 0, 0] size = [3, 3, 2, 8] : tensor<3x3x2x32xf32> -> tensor<3x3x2x8xf32>
  %w16c = gplace.slice %w begin = [0, 0, 0, 0] size = [3, 3, 1, 16] : tensor<3x3x1x32xf32> -> tensor<3x3x1x16xf32>
  %w16r = gplace.slice %w2 begin = [0, 0, 0, 0] size = [3, 3, 2, 16] : tensor<3x3x2x32xf32> -> tensor<3x3x2x16xf32>

  // 8 channels, SAME.
  %a = gplace.conv2d %x, %w8c strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x1xf32>, tensor<3x3x1x8xf32> -> tensor<2x9x8x8xf32>
  %ar = gplace.conv2d %x2, %w8r strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x9x8x8xf32>
  %ad = gplace.sub %a, %ar : (tensor<2x9x8x8xf32>, tensor<2x9x8x8xf32>) -> tensor<2x9x8x8xf32>
  %ad2 = gplace.mul %ad, %ad : (tensor<2x9x8x8xf32>, tensor<2x9x8x8xf32>) -> tensor<2x9x8x8xf32>
  %da = gplace.reduce_sum %ad2 axes = [0, 1, 2, 3] : tensor<2x9x8x8xf32> -> tensor<f32>

  // 16 channels, VALID, strides 2.
  %b = gplace.conv2d %x, %w16c strides = [1, 2, 2, 1] padding = "VALID" : tensor<2x9x8x1xf32>, tensor<3x3x1x16xf32> -> tensor<2x4x3x16xf32>
  %br = gplace.conv2d %x2, %w16r strides = [1, 2, 2, 1] padding = "VALID" : tensor<2x9x8x2xf32>, tensor<3x3x2x16xf32> -> tensor<2x4x3x16xf32>
  %bd = gplace.sub %b, %br : (tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>) -> tensor<2x4x3x16xf32>
  %bd2 = gplace.mul %bd, %bd : (tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>) -> tensor<2x4x3x16xf32>
  %db = gplace.reduce_sum %bd2 axes = [0, 1, 2, 3] : tensor<2x4x3x16xf32> -> tensor<f32>

  // 32 channels.
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x1xf32>, tensor<3x3x1x32xf32> -> tensor<2x9x8x32xf32>
  %cr = gplace.conv2d %x2, %w2 strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x2xf32>, tensor<3x3x2x32xf32> -> tensor<2x9x8x32xf32>
  %cd = gplace.sub %c, %cr : (tensor<2x9x8x32xf32>, tensor<2x9x8x32xf32>) -> tensor<2x9x8x32xf32>
  %cd2 = gplace.mul %cd, %cd : (tensor<2x9x8x32xf32>, tensor<2x9x8x32xf32>) -> tensor<2x9x8x32xf32>
  %dc = gplace.reduce_sum %cd2 axes = [0, 1, 2, 3] : tensor<2x9x8x32xf32> -> tensor<f32>

  // NCHW, 8 channels (the layout optimizer runs it NHWC on the CPU).
  %xc = gplace.transpose %x perm = [0, 3, 1, 2] : tensor<2x9x8x1xf32> -> tensor<2x1x9x8xf32>
  %e = gplace.conv2d %xc, %w8c strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<2x1x9x8xf32>, tensor<3x3x1x8xf32> -> tensor<2x8x9x8xf32>
  %et = gplace.transpose %e perm = [0, 2, 3, 1] : tensor<2x8x9x8xf32> -> tensor<2x9x8x8xf32>
  %ed = gplace.sub %et, %ar : (tensor<2x9x8x8xf32>, tensor<2x9x8x8xf32>) -> tensor<2x9x8x8xf32>
  %ed2 = gplace.mul %ed, %ed : (tensor<2x9x8x8xf32>, tensor<2x9x8x8xf32>) -> tensor<2x9x8x8xf32>
  %de = gplace.reduce_sum %ed2 axes = [0, 1, 2, 3] : tensor<2x9x8x8xf32> -> tensor<f32>

  // With a bias and relu (fused by the remapper), 16 channels.
  %bias = gplace.slice %w16c begin = [1, 1, 0, 0] size = [1, 1, 1, 16] : tensor<3x3x1x16xf32> -> tensor<1x1x1x16xf32>
  %bv = gplace.reshape %bias : tensor<1x1x1x16xf32> -> tensor<16xf32>
  %f = gplace.conv2d %x, %w16c strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x1xf32>, tensor<3x3x1x16xf32> -> tensor<2x9x8x16xf32>
  %fb = gplace.bias_add %f, %bv : tensor<2x9x8x16xf32>, tensor<16xf32>
  %fr = gplace.relu %fb : tensor<2x9x8x16xf32>
  %g = gplace.conv2d %x2, %w16r strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x9x8x2xf32>, tensor<3x3x2x16xf32> -> tensor<2x9x8x16xf32>
  %gb = gplace.bias_add %g, %bv : tensor<2x9x8x16xf32>, tensor<16xf32>
  %gr = gplace.relu %gb : tensor<2x9x8x16xf32>
  %fd = gplace.sub %fr, %gr : (tensor<2x9x8x16xf32>, tensor<2x9x8x16xf32>) -> tensor<2x9x8x16xf32>
  %fd2 = gplace.mul %fd, %fd : (tensor<2x9x8x16xf32>, tensor<2x9x8x16xf32>) -> tensor<2x9x8x16xf32>
  %df = gplace.reduce_sum %fd2 axes = [0, 1, 2, 3] : tensor<2x9x8x16xf32> -> tensor<f32>
  // Not all zeros: sums of the results.
  %sa = gplace.reduce_sum %a axes = [0, 1, 2, 3] : tensor<2x9x8x8xf32> -> tensor<f32>
  return %da, %db, %dc, %de, %df, %sa : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
// CHECK: result[0]: f32=0
// CHECK-NEXT: result[1]: f32=0
// CHECK-NEXT: result[2]: f32=0
// CHECK-NEXT: result[3]: f32=0
// CHECK-NEXT: result[4]: f32=0
// CHECK-NEXT: result[5]: f32={{-?[1-9][0-9]*}}
