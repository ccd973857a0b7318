// fused_conv2d against hand-computed values: conv2d + bias_add + relu as
// written (gplace-run's --gplace-remap fuses them into one oneDNN kernel;
// --remapping=false runs them one by one, with the same results), the
// bias alone, NCHW, and an empty batch. On the CPU and on an emulated GPU.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --remapping=false | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
// RUN: gplace-opt %s --gplace-remap | FileCheck %s --check-prefix=IR
//
// x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]; filter channel 0 adds the
// diagonal (x[i][j] + x[i+1][j+1]), channel 1 subtracts the other one
// (-(x[i][j+1] + x[i+1][j])): [[6, 8], [12, 14]] and [[-6, -8], [-12, -14]],
// plus the bias [0.5, 10]: [[6.5, 8.5], [12.5, 14.5]] and [[4, 2], [-2, -4]].
// IR: gplace.fused_conv2d {{.*}} fused_ops = ["BiasAdd", "Relu"]
// IR-NOT: gplace.relu
func.func @main() -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<0x2x2x2xf32>) {
  %x = gplace.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %w = gplace.constant dense<[[[[1.0, 0.0]], [[0.0, -1.0]]], [[[0.0, -1.0]], [[1.0, 0.0]]]]> : tensor<2x2x1x2xf32>
  %b = gplace.constant dense<[0.5, 10.0]> : tensor<2xf32>
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32> -> tensor<1x2x2x2xf32>
  %a = gplace.bias_add %c, %b : tensor<1x2x2x2xf32>, tensor<2xf32>
  %y = gplace.relu %a : tensor<1x2x2x2xf32>
  %biased = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd"] : tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %xn = gplace.reshape %x : tensor<1x3x3x1xf32> -> tensor<1x1x3x3xf32>
  %nchw = gplace.fused_conv2d %xn, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] {data_format = "NCHW"} : tensor<1x1x3x3xf32>, tensor<2x2x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %x0 = gplace.constant dense<> : tensor<0x3x3x1xf32>
  %empty = gplace.fused_conv2d %x0, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] : tensor<0x3x3x1xf32>, tensor<2x2x1x2xf32>, tensor<2xf32> -> tensor<0x2x2x2xf32>
  return %y, %biased, %nchw, %empty : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<0x2x2x2xf32>
}
// CHECK: result[0]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 4], [8.5, 2]], {{\[\[}}12.5, 0], [14.5, 0]]]]
// CHECK-NEXT: result[1]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 4], [8.5, 2]], {{\[\[}}12.5, -2], [14.5, -4]]]]
// CHECK-NEXT: result[2]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 8.5], [12.5, 14.5]], {{\[\[}}4, 2], [0, 0]]]]
// CHECK-NEXT: result[3]: 0x2x2x2xf32=[]
