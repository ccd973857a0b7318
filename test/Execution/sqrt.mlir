// gplace.sqrt (TensorFlow's Sqrt, ONNX's Sqrt): on the CPU and on an
// emulated GPU, in f32, f16 and f64; NaN for a negative input, as IEEE's
// square root gives. Its CUDA kernel is compiled with NVRTC and ptxas with
// every other kernel by gplace-unittests (CudaKernels).
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
func.func @main() -> (tensor<4xf32>, tensor<2xf16>, tensor<2xf64>) {
  %a = gplace.constant dense<[0.0, 4.0, 2.0, -1.0]> : tensor<4xf32>
  %b = gplace.constant dense<[9.0, 0.25]> : tensor<2xf16>
  %c = gplace.constant dense<[1.0e10, 2.0]> : tensor<2xf64>
  %sa = gplace.sqrt %a : tensor<4xf32>
  %sb = gplace.sqrt %b : tensor<2xf16>
  %sc = gplace.sqrt %c : tensor<2xf64>
  return %sa, %sb, %sc : tensor<4xf32>, tensor<2xf16>, tensor<2xf64>
}
// CHECK: result[0]: 4xf32=[0, 2, 1.4142135, nan]
// CHECK: result[1]: 2xf16=[3, 0.5]
// CHECK: result[2]: 2xf64=[1e+05, 1.4142135623730951]
