// fused_batch_norm in training and inference, NHWC and NCHW, and its
// gradient, against hand-computed values; on the CPU (oneDNN) and on an
// emulated GPU.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
//
// x (N=1, H=2, W=1, C=2): channel 0 is [1, 3], channel 1 [2, 6].
// Training (epsilon 0): means [2, 4], biased variances [1, 4], so x
// normalizes to [-1, 1] in both channels; scale [2, 0.5], offset [10, 0]:
// channel 0 [8, 12], channel 1 [-0.5, 0.5]. The returned variance is
// Bessel-corrected (n = 2): [2, 8].
// Inference (mean [0, 0], variance [3, 15], epsilon 1): x / [2, 4] * scale +
// offset: channel 0 [11, 13], channel 1 [0.25, 0.75]; the statistics come
// back as given.
// The gradient of training's y with dy = [[1, 1], [0, 0]] (channel c's
// first element): doffset [1, 1], dscale = sum(dy * xhat) = [-1, -1], dx
// = scale / sigma * (dy - mean(dy) - xhat * mean(dy * xhat)) with sigma
// [1, 2]: channel 0 2 * ([0.5, -0.5] - [-1, 1] * -0.5) = [0, 0], channel 1
// the same (with two elements a channel, xhat is -1 and 1 whatever x is, so
// dx is 0; GradientCheckTest's finite differences check dx).
func.func @main() -> (tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x2x2x1xf32>, tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %x = gplace.constant dense<[[[[1.0, 2.0]], [[3.0, 6.0]]]]> : tensor<1x2x1x2xf32>
  %scale = gplace.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %offset = gplace.constant dense<[10.0, 0.0]> : tensor<2xf32>
  %zeros = gplace.constant dense<0.0> : tensor<2xf32>
  %var = gplace.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %y, %m, %v = gplace.fused_batch_norm %x, %scale, %offset, %zeros, %zeros epsilon = 0.0 is_training : tensor<1x2x1x2xf32>, tensor<2xf32>
  %yi, %mi, %vi = gplace.fused_batch_norm %x, %scale, %offset, %zeros, %var epsilon = 1.0 : tensor<1x2x1x2xf32>, tensor<2xf32>
  %xn = gplace.transpose %x perm = [0, 3, 1, 2] : tensor<1x2x1x2xf32> -> tensor<1x2x2x1xf32>
  %yn, %mn, %vn = gplace.fused_batch_norm %xn, %scale, %offset, %zeros, %zeros epsilon = 0.0 is_training {data_format = "NCHW"} : tensor<1x2x2x1xf32>, tensor<2xf32>
  %dy = gplace.constant dense<[[[[1.0, 1.0]], [[0.0, 0.0]]]]> : tensor<1x2x1x2xf32>
  %dx, %dscale, %doffset = gplace.fused_batch_norm_grad %dy, %x, %scale, %m, %v epsilon = 0.0 is_training : tensor<1x2x1x2xf32>, tensor<2xf32>
  return %y, %m, %v, %yi, %mi, %vi, %yn, %dx, %dscale, %doffset : tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x2x2x1xf32>, tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>
}
// CHECK: result[0]: 1x2x1x2xf32={{\[\[}}{{\[\[}}8, -0.5]], {{\[\[}}12, 0.5]]]]
// CHECK-NEXT: result[1]: 2xf32=[2, 4]
// CHECK-NEXT: result[2]: 2xf32=[2, 8]
// CHECK-NEXT: result[3]: 1x2x1x2xf32={{\[\[}}{{\[\[}}11, 0.25]], {{\[\[}}13, 0.75]]]]
// CHECK-NEXT: result[4]: 2xf32=[0, 0]
// CHECK-NEXT: result[5]: 2xf32=[3, 15]
// CHECK-NEXT: result[6]: 1x2x2x1xf32={{\[\[}}{{\[\[}}8], [12]], {{\[\[}}-0.5], [0.5]]]]
// CHECK-NEXT: result[7]: 1x2x1x2xf32={{\[\[}}{{\[\[}}0, 0]], {{\[\[}}0, 0]]]]
// CHECK-NEXT: result[8]: 2xf32=[-1, -1]
// CHECK-NEXT: result[9]: 2xf32=[1, 1]
