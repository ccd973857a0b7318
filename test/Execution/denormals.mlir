// Host kernels flush denormal floats to zero, operands (DAZ) and results
// (FTZ), as TensorFlow's CPU kernels do (port::ScopedFlushDenormal): a
// denormal f32 or f64 operand reads as 0, and a product smaller than the
// smallest normal float becomes 0, on the CPU and on emulated GPUs (which
// run the host kernels). Normal values are untouched. docs/runtime.md,
// "Host kernels".
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --gpu-fusion=false | FileCheck %s
func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf64>) {
  // 1e-40 and -3e-39 are denormal in f32; 1.17549435e-38 is its smallest
  // normal.
  %a = gplace.constant dense<[1.0e-40, -3.0e-39, 1.17549435e-38]> : tensor<3xf32>
  %one = gplace.constant dense<1.0> : tensor<3xf32>
  %pa = gplace.mul %a, %one : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // 1e-20 * 1e-20 = 1e-40 (denormal), 1e-19 * 1e-19 = 1e-38 (denormal),
  // 1e-18 * 1e-18 = 1e-36 (normal).
  %b = gplace.constant dense<[1.0e-20, 1.0e-19, 1.0e-18]> : tensor<3xf32>
  %pb = gplace.mul %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = gplace.constant dense<[1.0e-310, 1.0e-300]> : tensor<2xf64>
  %onec = gplace.constant dense<1.0> : tensor<2xf64>
  %pc = gplace.mul %c, %onec : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  return %pa, %pb, %pc : tensor<3xf32>, tensor<3xf32>, tensor<2xf64>
}
// CHECK: result[0]: 3xf32=[0, -0, 1.1754944e-38]
// CHECK: result[1]: 3xf32=[0, 0, 1.0000001e-36]
// CHECK: result[2]: 2xf64=[0, 1e-300]
