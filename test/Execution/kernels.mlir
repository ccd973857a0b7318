// Tests every kernel against hand-computed values: with everything on the
// CPU, on an emulated GPU (integer ops and casts stay on the CPU), and with
// ops alternating between two emulated GPUs, so that every edge is a copy
// and the streams synchronise through events.
// RUN: gplace-run %s | FileCheck %s
// RUN: gplace-run %s --fold-constants=false | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --emulate-gpus=2 --load-policy=%plugins/libGPlaceTestPolicies.so --policy=test-alternate-gpus --allow-soft-placement | FileCheck %s

func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x2xi32>, tensor<2x2xf16>, tensor<2x2xf64>,
                      tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>,
                      tensor<2xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xi32>,
                      tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<i32>,
                      tensor<1x4xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<2xi1>,
                      tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>,
                      tensor<2xf16>, tensor<2xbf16>, tensor<f64>, tensor<3xf32>,
                      tensor<3xf32>, tensor<2xi32>, tensor<2xf32>) {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  // CHECK: result[0]: 2x2xf32={{\[\[}}22, 28], [49, 64]]
  %mm = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: result[1]: 2x2xf32={{\[\[}}14, 32], [32, 77]]
  %mmtb = gplace.matmul %a, %a transpose_b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: result[2]: 3x3xf32={{\[\[}}17, 22, 27], [22, 29, 36], [27, 36, 45]]
  %mmta = gplace.matmul %a, %a transpose_a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %i = gplace.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: result[3]: 2x2xi32={{\[\[}}7, 10], [15, 22]]
  %mmi = gplace.matmul %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %h = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  // CHECK-NEXT: result[4]: 2x2xf16={{\[\[}}7, 10], [15, 22]]
  %mmh = gplace.matmul %h, %h : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  %d = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  // CHECK-NEXT: result[5]: 2x2xf64={{\[\[}}7, 15], [10, 22]]
  %mmd = gplace.matmul %d, %d transpose_a transpose_b : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>

  %row = gplace.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  // CHECK-NEXT: result[6]: 2x3xf32={{\[\[}}11, 22, 33], [14, 25, 36]]
  %add = gplace.add %a, %row : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %ten = gplace.constant dense<10.0> : tensor<f32>
  %v123 = gplace.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  // CHECK-NEXT: result[7]: 3xf32=[9, 8, 7]
  %sub = gplace.sub %ten, %v123 : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %col = gplace.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %r = gplace.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  // CHECK-NEXT: result[8]: 2x3xf32={{\[\[}}1, 2, 3], [2, 4, 6]]
  %mul = gplace.mul %col, %r : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %den = gplace.constant dense<[2.0, 4.0, 8.0]> : tensor<3xf32>
  // CHECK-NEXT: result[9]: 3xf32=[0.5, 0.5, 0.375]
  %div = gplace.div %v123, %den : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %num = gplace.constant dense<[7, -7, 9]> : tensor<3xi32>
  %idiv = gplace.constant dense<[2, 2, -4]> : tensor<3xi32>
  // CHECK-NEXT: result[10]: 3xi32=[3, -3, -2]
  %divi = gplace.div %num, %idiv : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %m1 = gplace.constant dense<[1.0, 5.0, 3.0]> : tensor<3xf32>
  %m2 = gplace.constant dense<[4.0, 2.0, 6.0]> : tensor<3xf32>
  // CHECK-NEXT: result[11]: 3xf32=[4, 5, 6]
  %max = gplace.maximum %m1, %m2 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>

  %n = gplace.constant dense<[1, -2]> : tensor<2xi64>
  // CHECK-NEXT: result[12]: 2xi64=[-1, 2]
  %neg = gplace.neg %n : tensor<2xi64>
  %e = gplace.constant dense<[0.0, 1.0]> : tensor<2xf32>
  // libmvec's exp (docs/runtime.md, "Vector exp"): e^1 is 2.718282, an ulp
  // above the correctly rounded 2.7182817 that std::exp gave.
  // CHECK-NEXT: result[13]: 2xf32=[1, 2.718282]
  %exp = gplace.exp %e : tensor<2xf32>
  %l = gplace.constant dense<[1.0, 4.0]> : tensor<2xf32>
  // CHECK-NEXT: result[14]: 2xf32=[0, 1.3862944]
  %log = gplace.log %l : tensor<2xf32>
  // CHECK-NEXT: result[15]: 2xf32=[0, 0.7615942]
  %tanh = gplace.tanh %e : tensor<2xf32>
  %s = gplace.constant dense<[0.0, 2.0]> : tensor<2xf32>
  // CHECK-NEXT: result[16]: 2xf32=[0.5, 0.880797{{[0-9]*}}]
  %sig = gplace.sigmoid %s : tensor<2xf32>
  %rl = gplace.constant dense<[-1.0, 0.0, 2.0]> : tensor<3xf32>
  // CHECK-NEXT: result[17]: 3xf32=[0, 0, 2]
  %relu = gplace.relu %rl : tensor<3xf32>
  %rli = gplace.constant dense<[-5, 0, 7]> : tensor<3xi32>
  // CHECK-NEXT: result[18]: 3xi32=[0, 0, 7]
  %relui = gplace.relu %rli : tensor<3xi32>

  // (e^1 from libmvec, as result[13].)
  // CHECK-NEXT: result[19]: 2xf32=[2, 6.436564]
  %addn = gplace.add_n %exp, %e, %exp : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  %bv = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %bb = gplace.constant dense<[10.0, 20.0]> : tensor<2xf32>
  // CHECK-NEXT: result[20]: 2x2xf32={{\[\[}}11, 22], [13, 24]]
  %bias = gplace.bias_add %bv, %bb : tensor<2x2xf32>, tensor<2xf32>
  // CHECK-NEXT: result[21]: 2xf32=[6, 15]
  %rsum = gplace.reduce_sum %a axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK-NEXT: result[22]: 1x3xf32={{\[\[}}2.5, 3.5, 4.5]]
  %rmean = gplace.reduce_mean %a axes = [-2] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
  // CHECK-NEXT: result[23]: f32=6
  %rmax = gplace.reduce_max %a axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %ri = gplace.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: result[24]: i32=1
  %rmeani = gplace.reduce_mean %ri axes = [0] : tensor<2xi32> -> tensor<i32>
  %z = gplace.constant dense<0.0> : tensor<1x4xf32>
  // CHECK-NEXT: result[25]: 1x4xf32={{\[\[}}0.25, 0.25, 0.25, 0.25]]
  %sm = gplace.softmax %z : tensor<1x4xf32>
  // CHECK-NEXT: result[26]: 3xf32=[0.0900305{{[0-9]*}}, 0.244728{{[0-9]*}}, 0.665240{{[0-9]*}}]
  %sm3 = gplace.softmax %v123 : tensor<3xf32>

  %cf = gplace.constant dense<[1.7, -1.7, 3.0e10]> : tensor<3xf32>
  // CHECK-NEXT: result[27]: 3xi32=[1, -1, 2147483647]
  %c1 = gplace.cast %cf : tensor<3xf32> to tensor<3xi32>
  // CHECK-NEXT: result[28]: 3xf32=[7, -7, 9]
  %c2 = gplace.cast %num : tensor<3xi32> to tensor<3xf32>
  %cb = gplace.constant dense<[0.0, 2.5]> : tensor<2xf32>
  // CHECK-NEXT: result[29]: 2xi1=[false, true]
  %c3 = gplace.cast %cb : tensor<2xf32> to tensor<2xi1>

  // CHECK-NEXT: result[30]: 3x2xf32={{\[\[}}1, 4], [2, 5], [3, 6]]
  %tr = gplace.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-NEXT: result[31]: 3x2xf32={{\[\[}}1, 2], [3, 4], [5, 6]]
  %rs = gplace.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK-NEXT: result[32]: 2x2xf32={{\[\[}}2, 3], [5, 6]]
  %sl = gplace.slice %a begin = [0, 1] size = [2, -1] : tensor<2x3xf32> -> tensor<2x2xf32>
  %c12 = gplace.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  // CHECK-NEXT: result[33]: 3x2xf32={{\[\[}}1, 2], [1, 2], [3, 4]]
  %cc = gplace.concat %c12, %bv axis = 0 : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %k1 = gplace.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %k2 = gplace.constant dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  // CHECK-NEXT: result[34]: 2x2xf32={{\[\[}}1, 3], [2, 4]]
  %cc2 = gplace.concat %k1, %k2 axis = -1 : tensor<2x1xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
  // CHECK-NEXT: result[35]: 2x3xf32={{\[\[}}1, 2, 3], [4, 5, 6]]
  %id = gplace.identity %a : tensor<2x3xf32>

  %h1 = gplace.constant dense<[1.5, 0.1]> : tensor<2xf16>
  %h2 = gplace.constant dense<[1.0, 0.2]> : tensor<2xf16>
  // CHECK-NEXT: result[36]: 2xf16=[2.5, 0.2998]
  %hadd = gplace.add %h1, %h2 : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %g1 = gplace.constant dense<[2.0, 3.0]> : tensor<2xbf16>
  %g2 = gplace.constant dense<[0.5, 0.25]> : tensor<2xbf16>
  // CHECK-NEXT: result[37]: 2xbf16=[1, 0.75]
  %gmul = gplace.mul %g1, %g2 : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  %one = gplace.constant dense<1.0> : tensor<f64>
  // CHECK-NEXT: result[38]: f64=2.718281828459045
  %expd = gplace.exp %one : tensor<f64>
  // Division by zero in floating point is IEEE's.
  %zero = gplace.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf32>
  %signs = gplace.constant dense<[1.0, -1.0, 0.0]> : tensor<3xf32>
  // CHECK-NEXT: result[39]: 3xf32=[inf, -inf, nan]
  %dz = gplace.div %signs, %zero : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: result[40]: 3xf32=[1, 0, 4]
  %sq = gplace.square %rl : tensor<3xf32>
  // Integer arithmetic wraps, as TensorFlow's integer kernels: 65536^2 is 0.
  %sqi0 = gplace.constant dense<[65536, -3]> : tensor<2xi32>
  // CHECK-NEXT: result[41]: 2xi32=[0, 9]
  %sqi = gplace.square %sqi0 : tensor<2xi32>
  // relu keeps NaN, as TensorFlow's Relu.
  %nan = gplace.constant dense<[0x7FC00000, -1.0]> : tensor<2xf32>
  // CHECK-NEXT: result[42]: 2xf32=[nan, 0]
  %relun = gplace.relu %nan : tensor<2xf32>
  return %mm, %mmtb, %mmta, %mmi, %mmh, %mmd, %add, %sub, %mul, %div, %divi, %max, %neg, %exp, %log, %tanh, %sig, %relu, %relui,
         %addn, %bias, %rsum, %rmean, %rmax, %rmeani, %sm, %sm3, %c1, %c2, %c3, %tr, %rs, %sl, %cc, %cc2, %id, %hadd, %gmul, %expd, %dz,
         %sq, %sqi, %relun
    : tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x2xi32>, tensor<2x2xf16>, tensor<2x2xf64>,
      tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>,
      tensor<2xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xi32>,
      tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<i32>,
      tensor<1x4xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<2xi1>,
      tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>,
      tensor<2xf16>, tensor<2xbf16>, tensor<f64>, tensor<3xf32>,
      tensor<3xf32>, tensor<2xi32>, tensor<2xf32>
}
