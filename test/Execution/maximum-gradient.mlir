// The gradient of maximum(x, y) goes to x where x >= y, else to y, as
// TensorFlow's _MaximumGrad (GreaterEqual, then Select): ties, two equal
// infinities included, go to x; y takes it only where it is larger. Before,
// ties went to y. On the CPU and on an emulated GPU.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s

// x:        1, 2, 3, inf, -inf, 0, -0
// y:        3, 2, 1, inf, -inf, -0, 0
// CHECK: result[0]: 7xf32=[0, 5, 5, 5, 5, 5, 5]
// CHECK: result[1]: 7xf32=[5, 0, 0, 0, 0, 0, 0]
func.func @main() -> (tensor<7xf32>, tensor<7xf32>) {
  %x = gplace.constant dense<[1.0, 2.0, 3.0, 0x7F800000, 0xFF800000, 0.0, -0.0]> : tensor<7xf32>
  %y = gplace.constant dense<[3.0, 2.0, 1.0, 0x7F800000, 0xFF800000, -0.0, 0.0]> : tensor<7xf32>
  %m = gplace.maximum %x, %y : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  %five = gplace.constant dense<5.0> : tensor<7xf32>
  %s = gplace.mul %m, %five : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  %loss = gplace.reduce_sum %s axes = [0] : tensor<7xf32> -> tensor<f32>
  %gx, %gy = gplace.gradients %loss wrt %x, %y : tensor<f32> wrt tensor<7xf32>, tensor<7xf32>
  return %gx, %gy : tensor<7xf32>, tensor<7xf32>
}
