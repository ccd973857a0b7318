// The composite ops (gplace.elu, gplace.selu, gplace.log_softmax, and
// @more's, docs/passes/decompose.md) run as the ops they decompose into, on the CPU
// and an emulated GPU; their gradients are the parts' (the pipeline
// decomposes before it differentiates): d elu(x) / dx is 1 where x > 0 and
// alpha * e^x where x < 0.
// RUN: gplace-run %s --input=4xf32=-1,-0.5,0.5,2 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=-1,-0.5,0.5,2 --emulate-gpus=1 | FileCheck %s
// elu(x, 0.5) = [0.5 (e^-1 - 1), 0.5 (e^-0.5 - 1), 0.5, 2]
// CHECK: result[0]: 4xf32=[-0.31606{{[0-9]*}}, -0.19673{{[0-9]*}}, 0.5, 2]
// selu(x) = 1.0507 * [1.6733 (e^-1 - 1), 1.6733 (e^-0.5 - 1), 0.5, 2]
// CHECK-NEXT: result[1]: 4xf32=[-1.11133{{[0-9]*}}, -0.69175{{[0-9]*}}, 0.52535{{[0-9]*}}, 2.10140{{[0-9]*}}]
// log_softmax over [-1, -0.5, 0.5, 2]: x - log(sum(e^x)) = x - 2.3038...
// CHECK-NEXT: result[2]: 4xf32=[-3.3038{{[0-9]*}}, -2.8038{{[0-9]*}}, -1.8038{{[0-9]*}}, -0.3038{{[0-9]*}}]
// d sum(elu(x, 0.5)) / dx = [0.5 e^-1, 0.5 e^-0.5, 1, 1]
// CHECK-NEXT: result[3]: 4xf32=[0.18393{{[0-9]*}}, 0.30326{{[0-9]*}}, 1, 1]
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = gplace.elu %x {alpha = 0.5 : f32} : tensor<4xf32>
  %s = gplace.selu %x : tensor<4xf32>
  %l = gplace.log_softmax %x : tensor<4xf32>
  %sum = gplace.reduce_sum %e axes = [0] : tensor<4xf32> -> tensor<f32>
  %g = gplace.gradients %sum wrt %x : tensor<f32> wrt tensor<4xf32>
  return %e, %s, %l, %g : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// hard_sigmoid, gemm, layer_norm, softmax_2d and log_softmax_2d.
// RUN: gplace-run %s --entry=more --input=4xf32=-1,-0.5,0.5,2 | FileCheck %s --check-prefix=MORE
// RUN: gplace-run %s --entry=more --input=4xf32=-1,-0.5,0.5,2 --emulate-gpus=1 | FileCheck %s --check-prefix=MORE
// hard_sigmoid(x) = 0.2 x + 0.5 (ONNX's defaults) within [0, 1]
// MORE: result[0]: 4xf32=[0.3, 0.4, 0.6, 0.9]
// m = [[-1, -0.5], [0.5, 2]]: 0.5 m m^T + 2 [1, -1] =
// 0.5 [[1.25, -1.5], [-1.5, 4.25]] + [2, -2]
// MORE-NEXT: result[1]: 2x2xf32={{\[\[}}2.625, -2.75], [1.25, 0.125]]
// layer_norm of m's rows (epsilon 0): both normalize to [-1, 1], scaled by
// [2, 1] and shifted by [0, 1]; the means and 1 / stddev = [4, 4/3]
// MORE-NEXT: result[2]: 2x2xf32={{\[\[}}-2{{(\.0*[0-9]*)?}}, 2{{(\.0*[0-9]*)?}}], [-2{{(\.0*[0-9]*)?}}, 2{{(\.0*[0-9]*)?}}]]
// MORE-NEXT: result[3]: 2x1xf32={{\[\[}}-0.75], [1.25]]
// MORE-NEXT: result[4]: 2x1xf32={{\[\[}}4], [1.333333{{[0-9]*}}]]
// softmax_2d at axis 0: one softmax over all four, e^x / 10.01219
// MORE-NEXT: result[5]: 2x2xf32={{\[\[}}0.03674{{[0-9]*}}, 0.06057{{[0-9]*}}], [0.16467{{[0-9]*}}, 0.73800{{[0-9]*}}]]
// log_softmax_2d at axis 1: each row's, x - log(e^a + e^b)
// MORE-NEXT: result[6]: 2x2xf32={{\[\[}}-0.97407{{[0-9]*}}, -0.47407{{[0-9]*}}], [-1.70141{{[0-9]*}}, -0.20141{{[0-9]*}}]]
// d sum(hard_sigmoid(x)) / dx = 0.2 inside [0, 1]
// MORE-NEXT: result[7]: 4xf32=[0.2, 0.2, 0.2, 0.2]
func.func @more(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %h = gplace.hard_sigmoid %x : tensor<4xf32>
  %m = gplace.reshape %x : tensor<4xf32> -> tensor<2x2xf32>
  %c = gplace.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %g = gplace.gemm %m, %m, %c transpose_b {alpha = 0.5 : f32, beta = 2.0 : f32} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %s = gplace.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = gplace.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %y, %mean, %inv = gplace.layer_norm %m scale(%s : tensor<2xf32>) bias(%b : tensor<2xf32>) {epsilon = 0.0 : f32} : tensor<2x2xf32>
  %sm = gplace.softmax_2d %m {axis = 0 : i64} : tensor<2x2xf32>
  %ls = gplace.log_softmax_2d %m : tensor<2x2xf32>
  %sum = gplace.reduce_sum %h axes = [0] : tensor<4xf32> -> tensor<f32>
  %dh = gplace.gradients %sum wrt %x : tensor<f32> wrt tensor<4xf32>
  return %h, %g, %y, %mean, %inv, %sm, %ls, %dh : tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>
}
