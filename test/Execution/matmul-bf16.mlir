// REQUIRES: dnnl
// A bf16 matmul on the CPU runs oneDNN's native bf16 matmul where the CPU
// has AMX (or GPLACE_ONEDNN_BF16=native), else oneDNN's f32 matmul on the
// converted operands, the result rounded to bf16 (docs/runtime.md);
// --list-devices names the path. Both give the product within bf16's
// rounding of the f64 one, on a 16x64 by 64x24 product (oneDNN's blocked
// kernels, not a corner case), transposed operands too. The native path
// runs where the CPU has AVX512_BF16 at least (oneDNN refuses it below).
// RUN: env GPLACE_ONEDNN_BF16=f32 gplace-run --list-devices | FileCheck %s --check-prefix=F32PATH
// F32PATH: bf16 on oneDNN's f32 kernels (computed in f32 with bf16 storage)
// RUN: env GPLACE_ONEDNN_BF16=f32 gplace-run %s > %t.f32path
// RUN: %python %S/Inputs/check_bf16_matmul.py %t.f32path
// RUN: %if cpu-avx512-bf16 %{ env GPLACE_ONEDNN_BF16=native gplace-run --list-devices | FileCheck %s --check-prefix=NATIVE %}
// NATIVE: bf16 on oneDNN's native bf16 kernels,
// RUN: %if cpu-avx512-bf16 %{ env GPLACE_ONEDNN_BF16=native gplace-run %s > %t.native %}
// RUN: %if cpu-avx512-bf16 %{ %python %S/Inputs/check_bf16_matmul.py %t.native %}

func.func @main() -> (tensor<16x24xf64>, tensor<16x24xf32>, tensor<16x24xf32>) {
  %seed = gplace.constant dense<[7, 11]> : tensor<2xi64>
  %a32 = gplace.stateless_random_uniform %seed : tensor<2xi64> -> tensor<16x64xf32>
  %seed2 = gplace.constant dense<[3, 5]> : tensor<2xi64>
  %b32 = gplace.stateless_random_uniform %seed2 : tensor<2xi64> -> tensor<64x24xf32>
  %a = gplace.cast %a32 : tensor<16x64xf32> to tensor<16x64xbf16>
  %b = gplace.cast %b32 : tensor<64x24xf32> to tensor<64x24xbf16>
  // The reference: the bf16 operands' exact values, multiplied in f64.
  %a64 = gplace.cast %a : tensor<16x64xbf16> to tensor<16x64xf64>
  %b64 = gplace.cast %b : tensor<64x24xbf16> to tensor<64x24xf64>
  %ref = gplace.matmul %a64, %b64 : (tensor<16x64xf64>, tensor<64x24xf64>) -> tensor<16x24xf64>
  %c = gplace.matmul %a, %b : (tensor<16x64xbf16>, tensor<64x24xbf16>) -> tensor<16x24xbf16>
  %at = gplace.transpose %a perm = [1, 0] : tensor<16x64xbf16> -> tensor<64x16xbf16>
  %bt = gplace.transpose %b perm = [1, 0] : tensor<64x24xbf16> -> tensor<24x64xbf16>
  %ct = gplace.matmul %at, %bt transpose_a transpose_b : (tensor<64x16xbf16>, tensor<24x64xbf16>) -> tensor<16x24xbf16>
  // Returned as f32 (exactly), which prints every digit of a bf16.
  %c32 = gplace.cast %c : tensor<16x24xbf16> to tensor<16x24xf32>
  %ct32 = gplace.cast %ct : tensor<16x24xbf16> to tensor<16x24xf32>
  return %ref, %c32, %ct32 : tensor<16x24xf64>, tensor<16x24xf32>, tensor<16x24xf32>
}
