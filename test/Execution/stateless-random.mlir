// TensorFlow's stateless random ops for the seed [7, 42], on the CPU and on
// an emulated GPU. The expected numbers are those of TensorFlow's
// algorithms (philox_random.h, random_distributions.h, random_op_cpu.h's
// FillPhiloxRandomTask) written out independently in Python:
// - truncated normal: output group g (4 floats, 2 doubles) draws from the
//   counter advanced by g * 256 (f64: g * 128), TensorFlow's 256 words
//   reserved per output; values 5 on come from the second group;
// - f16 and bf16 uniform numbers take 10 and 7 random mantissa bits from
//   the low 16 bits of a word (Uint16ToHalf, Uint16ToGfloat16), so they
//   stay below 1: the largest of a million is 0.999 and 0.992.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 | FileCheck %s
func.func @main() -> (tensor<6xf32>, tensor<6xf32>, tensor<12xf32>, tensor<5xf64>, tensor<5xf64>, tensor<6xf16>, tensor<6xbf16>, tensor<f16>, tensor<bf16>) {
  %s = gplace.constant dense<[7, 42]> : tensor<2xi64>
  %u = gplace.stateless_random_uniform %s : tensor<2xi64> -> tensor<6xf32>
  %n = gplace.stateless_random_normal %s : tensor<2xi64> -> tensor<6xf32>
  %t = gplace.stateless_truncated_normal %s : tensor<2xi64> -> tensor<12xf32>
  %ud = gplace.stateless_random_uniform %s : tensor<2xi64> -> tensor<5xf64>
  %td = gplace.stateless_truncated_normal %s : tensor<2xi64> -> tensor<5xf64>
  %uh = gplace.stateless_random_uniform %s : tensor<2xi64> -> tensor<6xf16>
  %ub = gplace.stateless_random_uniform %s : tensor<2xi64> -> tensor<6xbf16>
  %s2 = gplace.constant dense<[1, 2]> : tensor<2xi64>
  %mh = gplace.stateless_random_uniform %s2 : tensor<2xi64> -> tensor<1000000xf16>
  %maxh = gplace.reduce_max %mh axes = [0] : tensor<1000000xf16> -> tensor<f16>
  %mb = gplace.stateless_random_uniform %s2 : tensor<2xi64> -> tensor<1000000xbf16>
  %maxb = gplace.reduce_max %mb axes = [0] : tensor<1000000xbf16> -> tensor<bf16>
  return %u, %n, %t, %ud, %td, %uh, %ub, %maxh, %maxb : tensor<6xf32>, tensor<6xf32>, tensor<12xf32>, tensor<5xf64>, tensor<5xf64>, tensor<6xf16>, tensor<6xbf16>, tensor<f16>, tensor<bf16>
}
// CHECK: result[0]: 6xf32=[0.83776546, 0.67781067, 0.6775553, 0.9684235, 0.54291546, 0.18102133]
// CHECK: result[1]: 6xf32=[-0.5348433, -0.26072368, -0.17391124, 0.8650335, 1.00307, 0.46417016]
// CHECK: result[2]: 12xf32=[-0.5348433, -0.26072368, -0.17391124, 0.8650335, 0.9722557, -1.0171527, 1.6460792, -0.27308333, -0.28436255, -0.3416771, -1.8030653, 0.08022028]
// CHECK: result[3]: 5xf64=[0.7021239617426147, 0.4204429070808431, 0.34332379173677663, 0.3899003901534659, 0.030460359591810704]
// CHECK: result[4]: 5xf64=[0.4031051127272393, -0.7381035712053291, 0.3123924297904713, 1.2972889857422107, -0.016998865543943593]
// CHECK: result[5]: 6xf16=[0.9746, 0.625, 0.533, 0.3252, 0.5635, 0.927]
// CHECK: result[6]: 6xbf16=[0.797, 0, 0.266, 0.6, 0.508, 0.414]
// CHECK: result[7]: f16=0.999
// CHECK: result[8]: bf16=0.992
