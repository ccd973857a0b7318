// depthwise_conv2d_native against hand-computed values, NHWC and NCHW, and
// its two backprops, on the CPU (oneDNN), on an emulated GPU, and
// alternating between two emulated GPUs so that every edge is a copy.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 --load-policy=%plugins/libGPlaceTestPolicies.so --policy=test-alternate-gpus --allow-soft-placement | FileCheck %s
//
// x: channel 0 [[1, 2], [3, 4]], channel 1 [[10, 20], [30, 40]]. The filter
// [2, 2, 2 channels, multiplier 2]: channel 0's first filter sums the
// window, its second takes the top left; channel 1's first halves the
// sum, its second negates the bottom right. Result channel c * 2 + m:
// [10, 1, 50, -40].
//
// The backprops with out_backprop ones (1x1x1x4): the input's gradient at
// each position is the sum of the filters there over m, per channel:
// channel 0 [[2, 1], [1, 1]], channel 1 [[0.5, 0.5], [0.5, -0.5]]; the
// filter's gradient at [kh, kw, c, m] is x[kh, kw, c].
func.func @main() -> (tensor<1x1x1x4xf32>, tensor<1x4x1x1xf32>, tensor<1x2x2x2xf32>, tensor<2x2x2x2xf32>) {
  %x = gplace.constant dense<[[[[1.0, 10.0], [2.0, 20.0]], [[3.0, 30.0], [4.0, 40.0]]]]> : tensor<1x2x2x2xf32>
  %w = gplace.constant dense<[[[[1.0, 1.0], [0.5, 0.0]], [[1.0, 0.0], [0.5, 0.0]]], [[[1.0, 0.0], [0.5, 0.0]], [[1.0, 0.0], [0.5, -1.0]]]]> : tensor<2x2x2x2xf32>
  %y = gplace.depthwise_conv2d_native %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x2x2x2xf32>, tensor<2x2x2x2xf32> -> tensor<1x1x1x4xf32>
  %xn = gplace.transpose %x perm = [0, 3, 1, 2] : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32>
  %yn = gplace.depthwise_conv2d_native %xn, %w strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<1x2x2x2xf32>, tensor<2x2x2x2xf32> -> tensor<1x4x1x1xf32>
  %dy = gplace.constant dense<1.0> : tensor<1x1x1x4xf32>
  %dx = gplace.depthwise_conv2d_native_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<2x2x2x2xf32>, tensor<1x1x1x4xf32> -> tensor<1x2x2x2xf32>
  %dw = gplace.depthwise_conv2d_native_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x2x2x2xf32>, tensor<1x1x1x4xf32> -> tensor<2x2x2x2xf32>
  return %y, %yn, %dx, %dw : tensor<1x1x1x4xf32>, tensor<1x4x1x1xf32>, tensor<1x2x2x2xf32>, tensor<2x2x2x2xf32>
}
// CHECK: result[0]: 1x1x1x4xf32={{\[\[}}{{\[\[}}10, 1, 50, -40]]]]
// CHECK-NEXT: result[1]: 1x4x1x1xf32={{\[\[}}{{\[\[}}10]], {{\[\[}}1]], {{\[\[}}50]], {{\[\[}}-40]]]]
// CHECK-NEXT: result[2]: 1x2x2x2xf32={{\[\[}}{{\[\[}}2, 0.5], [1, 0.5]], {{\[\[}}1, 0.5], [1, -0.5]]]]
// CHECK-NEXT: result[3]: 2x2x2x2xf32={{\[\[}}{{\[\[}}1, 1], [10, 10]], {{\[\[}}2, 2], [20, 20]]], {{\[\[\[}}3, 3], [30, 30]], {{\[\[}}4, 4], [40, 40]]]]
