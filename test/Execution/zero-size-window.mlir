// SAME padding over an empty spatial dimension: TensorFlow's output size
// ceil(0 / stride) is 0, whatever the window (the verifier refused it,
// calling the output size negative). CPU and emulated GPU.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
// CHECK: result[0]: 1x0x3x1xf32=[{{\[}}]]
// CHECK: result[1]: 1x0x2x1xf32=[{{\[}}]]
func.func @main() -> (tensor<1x0x3x1xf32>, tensor<1x0x2x1xf32>) {
  %x = gplace.constant dense<1.0> : tensor<1x0x3x1xf32>
  %w = gplace.constant dense<1.0> : tensor<1x1x1x1xf32>
  %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x0x3x1xf32>, tensor<1x1x1x1xf32> -> tensor<1x0x3x1xf32>
  %p = gplace.constant dense<1.0> : tensor<1x0x4x1xf32>
  %q = gplace.max_pool %p ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<1x0x4x1xf32> -> tensor<1x0x2x1xf32>
  return %y, %q : tensor<1x0x3x1xf32>, tensor<1x0x2x1xf32>
}
