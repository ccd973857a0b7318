// The trigonometric and hyperbolic kernels, erf, softsign, sign, the
// rounding kernels, floor_mod and truncate_mod, is_inf and is_nan
// (TensorFlow's ops, docs/dialect.md), on the CPU, on emulated GPUs (which
// run the host kernels for the ops the GPU table has, and soft placement
// moves the integer ones to the CPU), unfused and unfolded.
// RUN: gplace-run %s --input=4xf32=-0.5,0.25,0.5,0.75 --input=4xf64=1,1.5,2,10 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=-0.5,0.25,0.5,0.75 --input=4xf64=1,1.5,2,10 --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=-0.5,0.25,0.5,0.75 --input=4xf64=1,1.5,2,10 --emulate-gpus=2 --gpu-fusion=false | FileCheck %s
// sin
// CHECK: result[0]: 4xf32=[-0.47942{{[0-9]*}}, 0.24740{{[0-9]*}}, 0.47942{{[0-9]*}}, 0.68163{{[0-9]*}}]
// cos
// CHECK-NEXT: result[1]: 4xf32=[0.87758{{[0-9]*}}, 0.96891{{[0-9]*}}, 0.87758{{[0-9]*}}, 0.73168{{[0-9]*}}]
// tan
// CHECK-NEXT: result[2]: 4xf32=[-0.54630{{[0-9]*}}, 0.25534{{[0-9]*}}, 0.54630{{[0-9]*}}, 0.93159{{[0-9]*}}]
// asin
// CHECK-NEXT: result[3]: 4xf32=[-0.52359{{[0-9]*}}, 0.25268{{[0-9]*}}, 0.52359{{[0-9]*}}, 0.84806{{[0-9]*}}]
// acos
// CHECK-NEXT: result[4]: 4xf32=[2.09439{{[0-9]*}}, 1.31811{{[0-9]*}}, 1.04719{{[0-9]*}}, 0.72273{{[0-9]*}}]
// atan
// CHECK-NEXT: result[5]: 4xf32=[-0.46364{{[0-9]*}}, 0.24497{{[0-9]*}}, 0.46364{{[0-9]*}}, 0.64350{{[0-9]*}}]
// sinh
// CHECK-NEXT: result[6]: 4xf32=[-0.52109{{[0-9]*}}, 0.25261{{[0-9]*}}, 0.52109{{[0-9]*}}, 0.82231{{[0-9]*}}]
// cosh
// CHECK-NEXT: result[7]: 4xf32=[1.12762{{[0-9]*}}, 1.03141{{[0-9]*}}, 1.12762{{[0-9]*}}, 1.29468{{[0-9]*}}]
// asinh
// CHECK-NEXT: result[8]: 4xf32=[-0.48121{{[0-9]*}}, 0.24746{{[0-9]*}}, 0.48121{{[0-9]*}}, 0.69314{{[0-9]*}}]
// atanh
// CHECK-NEXT: result[9]: 4xf32=[-0.54930{{[0-9]*}}, 0.25541{{[0-9]*}}, 0.54930{{[0-9]*}}, 0.97295{{[0-9]*}}]
// erf
// CHECK-NEXT: result[10]: 4xf32=[-0.52049{{[0-9]*}}, 0.27632{{[0-9]*}}, 0.52049{{[0-9]*}}, 0.71115{{[0-9]*}}]
// softsign (x / (1 + |x|))
// CHECK-NEXT: result[11]: 4xf32=[-0.33333{{[0-9]*}}, 0.2, 0.33333{{[0-9]*}}, 0.42857{{[0-9]*}}]
// acosh of [1, 1.5, 2, 10]
// CHECK-NEXT: result[12]: 4xf64=[0, 0.96242{{[0-9]*}}, 1.31695{{[0-9]*}}, 2.99322{{[0-9]*}}]
// erf in f64
// CHECK-NEXT: result[13]: 4xf64=[0.84270{{[0-9]*}}, 0.96610{{[0-9]*}}, 0.99532{{[0-9]*}}, 1]
func.func @main(%x: tensor<4xf32>, %z: tensor<4xf64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf64>, tensor<4xf64>) {
  %sin = gplace.sin %x : tensor<4xf32>
  %cos = gplace.cos %x : tensor<4xf32>
  %tan = gplace.tan %x : tensor<4xf32>
  %asin = gplace.asin %x : tensor<4xf32>
  %acos = gplace.acos %x : tensor<4xf32>
  %atan = gplace.atan %x : tensor<4xf32>
  %sinh = gplace.sinh %x : tensor<4xf32>
  %cosh = gplace.cosh %x : tensor<4xf32>
  %asinh = gplace.asinh %x : tensor<4xf32>
  %atanh = gplace.atanh %x : tensor<4xf32>
  %erf = gplace.erf %x : tensor<4xf32>
  %softsign = gplace.softsign %x : tensor<4xf32>
  %acosh = gplace.acosh %z : tensor<4xf64>
  %erf64 = gplace.erf %z : tensor<4xf64>
  return %sin, %cos, %tan, %asin, %acos, %atan, %sinh, %cosh, %asinh, %atanh,
         %erf, %softsign, %acosh, %erf64
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf64>, tensor<4xf64>
}

// The exact kernels (rounding, sign, the remainders, the predicates) fold;
// folded and run, they agree. Round takes halves to even; a denormal reads
// as a zero of its sign (floor(-1e-40) is -0, not -1). Integer kernels run
// on the CPU.
// RUN: gplace-run %s --entry=exact | FileCheck %s --check-prefix=EXACT
// RUN: gplace-run %s --entry=exact --fold-constants=false | FileCheck %s --check-prefix=EXACT
// RUN: gplace-run %s --entry=exact --fold-constants=false --emulate-gpus=2 | FileCheck %s --check-prefix=EXACT
// RUN: gplace-run %s --entry=exact --fold-constants=false --emulate-gpus=2 --gpu-fusion=false | FileCheck %s --check-prefix=EXACT
// EXACT: result[0]: 8xf32=[-2, -2, -0, 0, 2, 2, 0, -0]
// EXACT-NEXT: result[1]: 8xf32=[-2, -1, -0, 1, 2, 3, 0, -0]
// EXACT-NEXT: result[2]: 8xf32=[-3, -2, -1, 0, 1, 2, 0, -0]
// EXACT-NEXT: result[3]: 8xf32=[-1, -1, -1, 1, 1, 1, 0, 0]
// EXACT-NEXT: result[4]: 3xi32=[-1, 0, 1]
// floor_mod has the divisor's sign, truncate_mod the dividend's:
// EXACT-NEXT: result[5]: 4xi32=[2, 1, -1, -2]
// EXACT-NEXT: result[6]: 4xi32=[-1, 1, -1, 1]
// EXACT-NEXT: result[7]: 4xf32=[0.5, 1.5, -1.5, -0.5]
// EXACT-NEXT: result[8]: 4xf32=[-1.5, 1.5, -1.5, 1.5]
// is_inf, is_nan and sign of [inf, -inf, nan, 1]:
// EXACT-NEXT: result[9]: 4xi1=[true, true, false, false]
// EXACT-NEXT: result[10]: 4xi1=[false, false, true, false]
// EXACT-NEXT: result[11]: 4xf32=[1, -1, nan, 1]
// EXACT-NEXT: result[12]: 4xf64=[0.5, 1.5, -1.5, -0.5]
func.func @exact() -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
                       tensor<8xf32>, tensor<3xi32>, tensor<4xi32>,
                       tensor<4xi32>, tensor<4xf32>, tensor<4xf32>,
                       tensor<4xi1>, tensor<4xi1>, tensor<4xf32>,
                       tensor<4xf64>) {
  %r = gplace.constant dense<[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.0e-40, -1.0e-40]> : tensor<8xf32>
  %round = gplace.round %r : tensor<8xf32>
  %ceil = gplace.ceil %r : tensor<8xf32>
  %floor = gplace.floor %r : tensor<8xf32>
  %sign = gplace.sign %r : tensor<8xf32>
  %i = gplace.constant dense<[-5, 0, 7]> : tensor<3xi32>
  %isign = gplace.sign %i : tensor<3xi32>
  %a = gplace.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = gplace.constant dense<[3, 3, -3, -3]> : tensor<4xi32>
  %fm = gplace.floor_mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %tm = gplace.truncate_mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %fa = gplace.constant dense<[-7.5, 7.5, -7.5, 7.5]> : tensor<4xf32>
  %fb = gplace.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf32>
  %ffm = gplace.floor_mod %fa, %fb : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ftm = gplace.truncate_mod %fa, %fb : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = gplace.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 1.0]> : tensor<4xf32>
  %inf = gplace.is_inf %s : tensor<4xf32> -> tensor<4xi1>
  %nan = gplace.is_nan %s : tensor<4xf32> -> tensor<4xi1>
  %ssign = gplace.sign %s : tensor<4xf32>
  %d = gplace.constant dense<[-7.5, 7.5, -7.5, 7.5]> : tensor<4xf64>
  %fb64 = gplace.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf64>
  %dm = gplace.floor_mod %d, %fb64 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %round, %ceil, %floor, %sign, %isign, %fm, %tm, %ffm, %ftm, %inf,
         %nan, %ssign, %dm
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<3xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>,
        tensor<4xf64>
}

// An integer remainder by zero is TensorFlow's error.
// RUN: not gplace-run %s --entry=divzero --input=2xi32=5,6 --input=2xi32=2,0 2>&1 | FileCheck %s --check-prefix=DIVZERO
// RUN: not gplace-run %s --entry=divzero --input=2xi32=5,6 --input=2xi32=2,0 --emulate-gpus=2 2>&1 | FileCheck %s --check-prefix=DIVZERO
// DIVZERO: Integer division by zero
func.func @divzero(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %m = gplace.floor_mod %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %m : tensor<2xi32>
}

// The composites ONNX's activations map to (Celu, HardSwish,
// ThresholdedRelu, Shrink), run as their parts.
// RUN: gplace-run %s --entry=activations --input=6xf32=-4,-1,-0.25,0.25,1,4 | FileCheck %s --check-prefix=ACT
// RUN: gplace-run %s --entry=activations --input=6xf32=-4,-1,-0.25,0.25,1,4 --emulate-gpus=2 | FileCheck %s --check-prefix=ACT
// celu(x, 2) = 2 (e^(x/2) - 1) below 0; hard_swish(x) = x * min(max(x/6 + 0.5, 0), 1);
// thresholded_relu(x, 0.5); shrink(x, bias 1.5, lambd 1.5) (soft shrink).
// ACT: result[0]: 6xf32=[-1.72932{{[0-9]*}}, -0.78693{{[0-9]*}}, -0.23500{{[0-9]*}}, 0.25, 1, 4]
// ACT-NEXT: result[1]: 6xf32=[-0, -0.33333{{[0-9]*}}, -0.11458{{[0-9]*}}, 0.13541{{[0-9]*}}, 0.66666{{[0-9]*}}, 4]
// ACT-NEXT: result[2]: 6xf32=[0, 0, 0, 0, 1, 4]
// ACT-NEXT: result[3]: 6xf32=[-2.5, 0, 0, 0, 0, 2.5]
func.func @activations(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %c = gplace.celu %x {alpha = 2.0 : f32} : tensor<6xf32>
  %h = gplace.hard_swish %x : tensor<6xf32>
  %t = gplace.thresholded_relu %x {alpha = 0.5 : f32} : tensor<6xf32>
  %s = gplace.shrink %x {bias = 1.5 : f32, lambd = 1.5 : f32} : tensor<6xf32>
  return %c, %h, %t, %s : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
