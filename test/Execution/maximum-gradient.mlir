// The gradient of maximum(x, y) goes to x where x >= y, else to y, as
// TensorFlow's _MaximumGrad (GreaterEqual, then Select): ties, two equal
// infinities included, go to x; y takes it where it is larger and where
// either side is NaN (NaN >= anything is false); an infinite gradient
// reaches only the side it is chosen for (the other gets 0, not NaN). On
// the CPU and on an emulated GPU.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s

// x:        1, 2, 3, inf, -inf, 0, -0, nan, 1,   1
// y:        3, 2, 1, inf, -inf, -0, 0, 1,   nan, 2
// weight:   5 everywhere but the last, inf
// CHECK: result[0]: 10xf32=[0, 5, 5, 5, 5, 5, 5, 0, 0, 0]
// CHECK: result[1]: 10xf32=[5, 0, 0, 0, 0, 0, 0, 5, 5, inf]
func.func @main() -> (tensor<10xf32>, tensor<10xf32>) {
  %x = gplace.constant dense<[1.0, 2.0, 3.0, 0x7F800000, 0xFF800000, 0.0, -0.0, 0x7FC00000, 1.0, 1.0]> : tensor<10xf32>
  %y = gplace.constant dense<[3.0, 2.0, 1.0, 0x7F800000, 0xFF800000, -0.0, 0.0, 1.0, 0x7FC00000, 2.0]> : tensor<10xf32>
  %m = gplace.maximum %x, %y : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
  %weight = gplace.constant dense<[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 0x7F800000]> : tensor<10xf32>
  %s = gplace.mul %m, %weight : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
  %loss = gplace.reduce_sum %s axes = [0] : tensor<10xf32> -> tensor<f32>
  %gx, %gy = gplace.gradients %loss wrt %x, %y : tensor<f32> wrt tensor<10xf32>, tensor<10xf32>
  return %gx, %gy : tensor<10xf32>, tensor<10xf32>
}
