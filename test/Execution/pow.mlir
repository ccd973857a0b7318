// gplace.pow (TensorFlow's Pow) and its gradient (_PowGrad): dz/dx =
// y * x^(y - 1); dz/dy = z * log(x) where x > 0, else 0 (at x = 0 and
// x = -2, where log is -inf or NaN). On the CPU and an emulated GPU.
// RUN: gplace-run %s --input=4xf32=2,0,-2,9 --input=4xf32=3,2,2,0.5 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=2,0,-2,9 --input=4xf32=3,2,2,0.5 --emulate-gpus=1 | FileCheck %s
// CHECK: result[0]: 4xf32=[8, 0, 4, 3]
// CHECK: result[1]: 4xf32=[12, 0, -4, 0.16666667]
// CHECK: result[2]: 4xf32=[5.5451775, 0, 0, 6.591674]
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = gplace.pow %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = gplace.reduce_sum %z axes = [0] : tensor<4xf32> -> tensor<f32>
  %gx, %gy = gplace.gradients %l wrt %x, %y : tensor<f32> wrt tensor<4xf32>, tensor<4xf32>
  return %z, %gx, %gy : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
