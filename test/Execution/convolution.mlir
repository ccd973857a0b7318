// conv2d, its backprops, max_pool, avg_pool, their gradients and dropout
// against hand-computed values (docs/dialect.md): padding VALID, SAME
// (the extra zero after), SAME with a kernel larger than the input,
// EXPLICIT, strides larger than the kernel, dilations, NCHW and groups. On
// the CPU (oneDNN), on an emulated GPU, and alternating between two
// emulated GPUs so that every edge is a copy.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 --load-policy=%plugins/libGPlaceTestPolicies.so --policy=test-alternate-gpus --allow-soft-placement | FileCheck %s
//
// result[16] keeps (times 2) exactly the elements whose uniform number,
// result[18], is >= 0.5; result[17] (rate 0) is the input.
func.func @main() -> (tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32>,
                      tensor<1x1x3x1xf32>, tensor<1x1x5x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>,
                      tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>,
                      tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>,
                      tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %x = gplace.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %w = gplace.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf32>
  %valid = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x1xf32>
  %same = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x3x3x1xf32>
  %same2 = gplace.conv2d %x, %w strides = [1, 2, 2, 1] padding = "SAME" : tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x1xf32>
  %xc = gplace.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x2x2x2xf32>
  %wc = gplace.constant dense<[[[[1.0], [10.0]]]]> : tensor<1x1x2x1xf32>
  %nchw = gplace.conv2d %xc, %wc strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x2x2xf32>
  %xg = gplace.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %wg = gplace.constant dense<[[[[3.0, 4.0]]]]> : tensor<1x1x1x2xf32>
  %grouped = gplace.conv2d %xg, %wg strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x1x1x2xf32>
  %xr = gplace.constant dense<[[[[1.0], [2.0], [3.0], [4.0], [5.0]]]]> : tensor<1x1x5x1xf32>
  %wr = gplace.constant dense<[[[[1.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %dilated = gplace.conv2d %xr, %wr strides = [1, 1, 1, 1] padding = "VALID" {dilations = array<i64: 1, 1, 2, 1>} : tensor<1x1x5x1xf32>, tensor<1x2x1x1xf32> -> tensor<1x1x3x1xf32>
  %x3 = gplace.slice %xr begin = [0, 0, 0, 0] size = [1, 1, 3, 1] : tensor<1x1x5x1xf32> -> tensor<1x1x3x1xf32>
  %explicit = gplace.conv2d %x3, %wr strides = [1, 1, 1, 1] padding = "EXPLICIT" {explicit_paddings = array<i64: 0, 0, 0, 0, 1, 2, 0, 0>} : tensor<1x1x3x1xf32>, tensor<1x2x1x1xf32> -> tensor<1x1x5x1xf32>
  %x2 = gplace.constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %ones3 = gplace.constant dense<1.0> : tensor<3x3x1x1xf32>
  %big = gplace.conv2d %x2, %ones3 strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x2x2x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x2x2x1xf32>
  %two = gplace.constant dense<2.0> : tensor<1x1x1x1xf32>
  %strided = gplace.conv2d %xr, %two strides = [1, 1, 3, 1] padding = "VALID" : tensor<1x1x5x1xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x2x1xf32>
  %dy = gplace.constant dense<1.0> : tensor<1x2x2x1xf32>
  %dx = gplace.conv2d_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<2x2x1x1xf32>, tensor<1x2x2x1xf32> -> tensor<1x3x3x1xf32>
  %dw = gplace.conv2d_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32> -> tensor<2x2x1x1xf32>
  %x16f = gplace.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %x16 = gplace.reshape %x16f : tensor<16xf32> -> tensor<1x4x4x1xf32>
  %mp = gplace.max_pool %x16 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
  %mps = gplace.max_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<1x3x3x1xf32> -> tensor<1x2x2x1xf32>
  %aps = gplace.avg_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<1x3x3x1xf32> -> tensor<1x2x2x1xf32>
  %g4 = gplace.constant dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %mpg = gplace.max_pool_grad %x16, %mp, %g4 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  %g16 = gplace.constant dense<[[[[4.0], [8.0]], [[12.0], [16.0]]]]> : tensor<1x2x2x1xf32>
  %apg = gplace.avg_pool_grad %g16 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x2x2x1xf32> -> tensor<1x4x4x1xf32>
  %ones8 = gplace.constant dense<1.0> : tensor<8xf32>
  %seed = gplace.constant dense<[7, 3]> : tensor<2xi64>
  %half = gplace.constant dense<0.5> : tensor<f32>
  %zero = gplace.constant dense<0.0> : tensor<f32>
  %drop = gplace.dropout %ones8, %half, %seed : tensor<8xf32>, tensor<f32>, tensor<2xi64>
  %keep = gplace.dropout %ones8, %zero, %seed : tensor<8xf32>, tensor<f32>, tensor<2xi64>
  %u = gplace.stateless_random_uniform %seed : tensor<2xi64> -> tensor<8xf32>
// CHECK: result[0]: 1x2x2x1xf32={{\[\[}}{{\[\[}}6], [8]], {{\[\[}}12], [14]]]]
// CHECK-NEXT: result[1]: 1x3x3x1xf32={{\[\[}}{{\[\[}}6], [8], [3]], {{\[\[}}12], [14], [6]], {{\[\[}}7], [8], [9]]]]
// CHECK-NEXT: result[2]: 1x2x2x1xf32={{\[\[}}{{\[\[}}6], [3]], {{\[\[}}7], [9]]]]
// CHECK-NEXT: result[3]: 1x1x2x2xf32={{\[\[}}{{\[\[}}51, 62], [73, 84]]]]
// CHECK-NEXT: result[4]: 1x1x1x2xf32={{\[\[}}{{\[\[}}3, 8]]]]
// CHECK-NEXT: result[5]: 1x1x3x1xf32={{\[\[}}{{\[\[}}4], [6], [8]]]]
// CHECK-NEXT: result[6]: 1x1x5x1xf32={{\[\[}}{{\[\[}}1], [3], [5], [3], [0]]]]
// CHECK-NEXT: result[7]: 1x2x2x1xf32={{\[\[}}{{\[\[}}10], [10]], {{\[\[}}10], [10]]]]
// CHECK-NEXT: result[8]: 1x1x2x1xf32={{\[\[}}{{\[\[}}2], [8]]]]
// CHECK-NEXT: result[9]: 1x3x3x1xf32={{\[\[}}{{\[\[}}1], [1], [0]], {{\[\[}}1], [2], [1]], {{\[\[}}0], [1], [1]]]]
// CHECK-NEXT: result[10]: 2x2x1x1xf32={{\[\[}}{{\[\[}}12]], {{\[\[}}16]]], {{\[\[}}[24]], {{\[\[}}28]]]]
// CHECK-NEXT: result[11]: 1x2x2x1xf32={{\[\[}}{{\[\[}}6], [8]], {{\[\[}}14], [16]]]]
// CHECK-NEXT: result[12]: 1x2x2x1xf32={{\[\[}}{{\[\[}}5], [6]], {{\[\[}}8], [9]]]]
// CHECK-NEXT: result[13]: 1x2x2x1xf32={{\[\[}}{{\[\[}}3], [4.5]], {{\[\[}}7.5], [9]]]]
// CHECK-NEXT: result[14]: 1x4x4x1xf32={{\[\[}}{{\[\[}}0], [0], [0], [0]], {{\[\[}}0], [1], [0], [2]], {{\[\[}}0], [0], [0], [0]], {{\[\[}}0], [3], [0], [4]]]]
// CHECK-NEXT: result[15]: 1x4x4x1xf32={{\[\[}}{{\[\[}}1], [1], [2], [2]], {{\[\[}}1], [1], [2], [2]], {{\[\[}}3], [3], [4], [4]], {{\[\[}}3], [3], [4], [4]]]]
// CHECK-NEXT: result[16]: 8xf32=[2, 0, 2, 2, 2, 0, 2, 0]
// CHECK-NEXT: result[17]: 8xf32=[1, 1, 1, 1, 1, 1, 1, 1]
// CHECK-NEXT: result[18]: 8xf32=[0.98180056, 0.39572632, 0.72238266, 0.7712573, 0.6807051, 0.20062089, 0.537223, 0.099838376]
  return %valid, %same, %same2, %nchw, %grouped, %dilated, %explicit, %big, %strided, %dx, %dw, %mp, %mps, %aps, %mpg, %apg, %drop, %keep, %u :
    tensor<1x2x2x1xf32>, tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32>,
    tensor<1x1x3x1xf32>, tensor<1x1x5x1xf32>, tensor<1x2x2x1xf32>, tensor<1x1x2x1xf32>,
    tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>,
    tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>, tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>,
    tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
