// An NCHW pool, a flatten and two matmuls of constant weights (the end of
// an imported ONNX CNN: Flatten, Gemm): --gplace-layout runs the pool NHWC
// and, instead of transposing its result back to NCHW before the flatten,
// permutes the weights' rows (columns, with transpose_b) at compile time
// (docs/passes/layout.md). Small integers throughout, so every sum is
// exact in any order: each RUN prints the same bits, numpy's
//   x = ((7 * arange(96)) % 11 - 5).reshape(2, 3, 4, 4)
//   f = x.reshape(2, 3, 2, 2, 2, 2).max(axis=(3, 5)).reshape(2, 12)
//   f @ arange(24).reshape(12, 2) + [0.5, -1],  f @ (arange(24) - 12).reshape(2, 12).T
// (without the permutation the first row would be [512.5, 556] and
// [-284, 256]). The RUNs: the default pipeline; without the layout
// optimizer (NCHW throughout); without constant folding; and on an
// emulated GPU (the pool may land on a GPU, so it keeps NCHW).
// RUN: gplace-run %s --input=2x3x4x4xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0 | FileCheck %s
// RUN: gplace-run %s --layout-optimizer=false --input=2x3x4x4xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0 | FileCheck %s
// RUN: gplace-run %s --fold-constants=false --input=2x3x4x4xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0 | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=1 --input=2x3x4x4xf32=-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0,-4,3,-1,-5,2,-2,5,1,-3,4,0 | FileCheck %s
// CHECK: result[0]: 2x2xf32={{\[\[}}508.5, 552], [506.5, 551]]
// CHECK: result[1]: 2x2xf32={{\[\[}}-286, 254], [-299, 253]]
// The CPU's plan: the input's transpose to NHWC, and none after the pool.
// RUN: gplace-opt %s --gplace-pipeline | FileCheck %s --check-prefix=PLAN
// PLAN: gplan.launch transpose
// PLAN-NOT: gplan.launch transpose
// PLAN: gplan.return
func.func @main(%x: tensor<2x3x4x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %p = gplace.max_pool %x ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW", name = "pool"} : tensor<2x3x4x4xf32> -> tensor<2x3x2x2xf32>
  %f = gplace.reshape %p {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %w = gplace.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0]]> : tensor<12x2xf32> {name = "fc/weight"}
  %b = gplace.constant dense<[0.5, -1.0]> : tensor<2xf32> {name = "fc/bias"}
  %m = gplace.matmul %f, %w {name = "fc/MatMul"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  %y = gplace.add %m, %b {name = "fc"} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %wt = gplace.constant dense<[[-12.0, -11.0, -10.0, -9.0, -8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]]> : tensor<2x12xf32> {name = "fct/weight"}
  %yt = gplace.matmul %f, %wt transpose_b {name = "fct"} : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x2xf32>
  return %y, %yt : tensor<2x2xf32>, tensor<2x2xf32>
}
