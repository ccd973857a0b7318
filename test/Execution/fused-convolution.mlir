// fused_conv2d against hand-computed values: conv2d + bias_add + relu as
// written (gplace-run's --gplace-remap fuses them into one oneDNN kernel;
// --remapping=false runs them one by one, with the same results), the
// bias alone, NCHW, and an empty batch. On the CPU and on an emulated GPU.
// Also what the remapper fuses besides: an NCHW conv2d + add of a [C, 1, 1]
// bias + relu, as imported from ONNX (on the CPU, --gplace-layout runs it
// NHWC and the add is a bias), and conv2d + fused_batch_norm + relu in
// inference (the normalization folded into the filter and a bias).
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --remapping=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-opt %s --gplace-layout --gplace-remap | FileCheck %s --check-prefix=IR
//
// x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]; filter channel 0 adds the
// diagonal (x[i][j] + x[i+1][j+1]), channel 1 subtracts the other one
// (-(x[i][j+1] + x[i+1][j])): [[6, 8], [12, 14]] and [[-6, -8], [-12, -14]],
// plus the bias [0.5, 10]: [[6.5, 8.5], [12.5, 14.5]] and [[4, 2], [-2, -4]].
//
// fused_batch_norm with scale [2, 1], offset [3, 1], mean [1, -10],
// variance [4, 0.25], epsilon 0: channel 0 is c - 1 + 3 = [8, 10, 14, 16],
// channel 1 2 (c + 10) + 1 = [9, 5, -3, -7], after relu [9, 5, 0, 0].
// IR: gplace.fused_conv2d {{.*}} fused_ops = ["BiasAdd", "Relu"]
// IR: gplace.fused_conv2d {{.*}} fused_ops = ["BiasAdd", "Relu"]
// IR-NOT: gplace.relu
// IR-NOT: gplace.fused_batch_norm
func.func @main() -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<0x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2xf32>) {
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
  %bc = gplace.reshape %b : tensor<2xf32> -> tensor<2x1x1xf32>
  %cn = gplace.conv2d %xn, %w strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<1x1x3x3xf32>, tensor<2x2x1x2xf32> -> tensor<1x2x2x2xf32>
  %an = gplace.add %cn, %bc : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %imported = gplace.relu %an : tensor<1x2x2x2xf32>
  %scale = gplace.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %offset = gplace.constant dense<[3.0, 1.0]> : tensor<2xf32>
  %mean = gplace.constant dense<[1.0, -10.0]> : tensor<2xf32>
  %var = gplace.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32> -> tensor<1x2x2x2xf32>
  %bn, %bm, %bv = gplace.fused_batch_norm %c2, %scale, %offset, %mean, %var epsilon = 0.0 : tensor<1x2x2x2xf32>, tensor<2xf32>
  %bnr = gplace.relu %bn : tensor<1x2x2x2xf32>
  return %y, %biased, %nchw, %empty, %imported, %bnr, %bm : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<0x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2xf32>
}
// CHECK: result[0]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 4], [8.5, 2]], {{\[\[}}12.5, 0], [14.5, 0]]]]
// CHECK-NEXT: result[1]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 4], [8.5, 2]], {{\[\[}}12.5, -2], [14.5, -4]]]]
// CHECK-NEXT: result[2]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 8.5], [12.5, 14.5]], {{\[\[}}4, 2], [0, 0]]]]
// CHECK-NEXT: result[3]: 0x2x2x2xf32=[]
// CHECK-NEXT: result[4]: 1x2x2x2xf32={{\[\[}}{{\[\[}}6.5, 8.5], [12.5, 14.5]], {{\[\[}}4, 2], [0, 0]]]]
// CHECK-NEXT: result[5]: 1x2x2x2xf32={{\[\[}}{{\[\[}}8, 9], [10, 5]], {{\[\[}}14, 0], [16, 0]]]]
// CHECK-NEXT: result[6]: 2xf32=[1, -10]
