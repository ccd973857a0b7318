// A long f32 sum is accurate: 262144 copies of 0.2401 (0.24009999632835388
// as f32) add to exactly 62940.7734375. Adding in f32 gave 62727.293 (0.34%
// low): the host kernels add in double and round once. reduce_mean too. On
// the CPU and on an emulated GPU.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
// CHECK: result[0]: f32=62940.773
// CHECK: result[1]: f32=0.2401
func.func @main() -> (tensor<f32>, tensor<f32>) {
  %x = gplace.constant dense<0.2401> : tensor<512x512xf32>
  %s = gplace.reduce_sum %x axes = [0, 1] : tensor<512x512xf32> -> tensor<f32>
  %m = gplace.reduce_mean %x axes = [0, 1] : tensor<512x512xf32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}
