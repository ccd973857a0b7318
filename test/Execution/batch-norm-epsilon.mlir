// Two fused_batch_norms of one shape whose epsilons agree to 6 digits: each
// normalizes with its own epsilon, 1 / sqrt(1e-3) and 1 / sqrt(1.000004e-3)
// (oneDNN's primitive bakes epsilon in, and the cache of primitives keyed it
// with 6 digits, so the second used the first's). CPU and emulated GPU.
// REQUIRES: dnnl
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
// CHECK: result[0]: 1x1x1x1xf32={{\[\[\[\[}}31.622774]]]]
// CHECK: result[1]: 1x1x1x1xf32={{\[\[\[\[}}31.622715]]]]
func.func @main() -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) {
  %x = gplace.constant dense<1.0> : tensor<1x1x1x1xf32>
  %s = gplace.constant dense<1.0> : tensor<1xf32>
  %z = gplace.constant dense<0.0> : tensor<1xf32>
  %a, %am, %av = gplace.fused_batch_norm %x, %s, %z, %z, %z epsilon = 1.000000e-03 : tensor<1x1x1x1xf32>, tensor<1xf32>
  %b, %bm, %bv = gplace.fused_batch_norm %x, %s, %z, %z, %z epsilon = 1.000004e-03 : tensor<1x1x1x1xf32>, tensor<1xf32>
  return %a, %b : tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
}
