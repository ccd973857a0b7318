// RUN: gplace-opt --gplace-remap --gplace-fold-constants %s | FileCheck %s
// The batch norm --gplace-remap folds into a convolution leaves small ops
// on its vectors (bn-FoldBatchNorm/...); with constant vectors and filter
// --gplace-fold-constants makes them constants: the filter and bias the
// fused convolution reads, computed once, not every step.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[W:.*]] = gplace.constant {{.*}} : tensor<3x3x2x3xf32> {name = "bn-FoldBatchNorm/mul"}
// CHECK-NEXT: %[[B:.*]] = gplace.constant dense<[1.000000e-01, -0.79987508, 1.29800606]> : tensor<3xf32> {name = "bn-FoldBatchNorm/sub"}
// CHECK-NEXT: gplace.fused_conv2d %arg0, %[[W]], %[[B]] {{.*}}fused_ops = ["BiasAdd"] {name = "bn"}
// CHECK-NEXT: return
func.func @main(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
    %w = gplace.constant dense<0.5> : tensor<3x3x2x3xf32> {name = "w"}
    %scale = gplace.constant dense<[1.0, 2.0, 0.5]> : tensor<3xf32> {name = "scale"}
    %offset = gplace.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32> {name = "offset"}
    %mean = gplace.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32> {name = "mean"}
    %var = gplace.constant dense<[1.0, 4.0, 0.25]> : tensor<3xf32> {name = "var"}
    %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "conv"} : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32> -> tensor<1x4x4x3xf32>
    %y, %bm, %bv = gplace.fused_batch_norm %c, %scale, %offset, %mean, %var epsilon = 1.0e-03 {name = "bn"} : tensor<1x4x4x3xf32>, tensor<3xf32>
    return %y : tensor<1x4x4x3xf32>
}
