// Host kernels flush denormal floats to zero, operands (DAZ) and results
// (FTZ), as TensorFlow's CPU kernels do (port::ScopedFlushDenormal): a
// denormal f32 or f64 operand reads as 0, and a product smaller than the
// smallest normal float becomes 0, on the CPU and on emulated GPUs (which
// run the host kernels). Normal values are untouched. libm's log, pow and
// tanh read their operands as bits, past DAZ: they flush too (log of a
// denormal is -inf, not log(2^-149)). docs/runtime.md, "Host kernels".
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=1 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --gpu-fusion=false | FileCheck %s
func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf64>,
                      tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                      tensor<2xf64>, tensor<3xi1>, tensor<2xi1>,
                      tensor<2xi1>, tensor<2xi1>) {
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
  // log(1e-45) = -inf (flushed operand); log(1e-37) = -85.1956.
  %d = gplace.constant dense<[1.0e-45, 1.0e-37]> : tensor<2xf32>
  %logd = gplace.log %d : tensor<2xf32>
  // pow(1e-40, 0.5) = pow(0, 0.5) = 0, not 1e-20; pow(2, -140) = 2^-140,
  // a denormal result, flushed.
  %base = gplace.constant dense<[1.0e-40, 2.0]> : tensor<2xf32>
  %exps = gplace.constant dense<[0.5, -140.0]> : tensor<2xf32>
  %powd = gplace.pow %base, %exps : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // tanh(-1e-40) = -0, tanh(1e-30) = 1e-30.
  %t = gplace.constant dense<[-1.0e-40, 1.0e-30]> : tensor<2xf32>
  %tanht = gplace.tanh %t : tensor<2xf32>
  %e = gplace.constant dense<[1.0e-320, 1.0e-300]> : tensor<2xf64>
  %loge = gplace.log %e : tensor<2xf64>
  // Comparisons read a denormal f32, f64 or bf16 as zero too (DAZ; the
  // fold computes as they do); an f16 denormal is a normal float, which
  // they compare in: 6e-8 > 0.
  %zero = gplace.constant dense<0.0> : tensor<f32>
  %eqa = gplace.equal %a, %zero : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %zerod = gplace.constant dense<0.0> : tensor<f64>
  %gtc = gplace.greater %c, %zerod : (tensor<2xf64>, tensor<f64>) -> tensor<2xi1>
  %bf = gplace.constant dense<[1.0e-39, 1.0]> : tensor<2xbf16>
  %zerob = gplace.constant dense<0.0> : tensor<bf16>
  %gtb = gplace.greater %bf, %zerob : (tensor<2xbf16>, tensor<bf16>) -> tensor<2xi1>
  %h = gplace.constant dense<[6.0e-8, 0.0]> : tensor<2xf16>
  %zeroh = gplace.constant dense<0.0> : tensor<f16>
  %gth = gplace.greater %h, %zeroh : (tensor<2xf16>, tensor<f16>) -> tensor<2xi1>
  return %pa, %pb, %pc, %logd, %powd, %tanht, %loge, %eqa, %gtc, %gtb, %gth
      : tensor<3xf32>, tensor<3xf32>, tensor<2xf64>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2xf64>, tensor<3xi1>,
        tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}
// CHECK: result[0]: 3xf32=[0, -0, 1.1754944e-38]
// CHECK: result[1]: 3xf32=[0, 0, 1.0000001e-36]
// CHECK: result[2]: 2xf64=[0, 1e-300]
// CHECK: result[3]: 2xf32=[-inf, -85.19565]
// CHECK: result[4]: 2xf32=[0, 0]
// CHECK: result[5]: 2xf32=[-0, 1e-30]
// CHECK: result[6]: 2xf64=[-inf, -690.7755278982137]
// CHECK: result[7]: 3xi1=[true, true, false]
// CHECK: result[8]: 2xi1=[false, true]
// CHECK: result[9]: 2xi1=[false, true]
// CHECK: result[10]: 2xi1=[true, false]
