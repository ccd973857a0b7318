// The executor's launch lists (bench/results/2026-11-30-dispatch-2.md): a
// host launch of an elementwise kernel whose operands all have its
// result's shape runs from a record compiled at load, the others (a
// broadcast, a reduction, add_n of three, a cast) through the general
// path, in one stream's order; a fusion group runs from a program
// compiled at load. Mixed types (f32, f64, f16, i32), unary and binary
// kernels, tensors of 4 elements (the loop inline) and of 128 (the vector
// clones), each checked against values computed by hand, unfused and
// fused, on the CPU and on an emulated GPU stepped without a graph.
// RUN: gplace-run %s --input=4xf32=1,2,3,4 --input=4xi32=7,-7,9,8 --input=4xi32=2,2,-4,3 --input=f32=100 --fuse-elementwise=false | FileCheck %s
// RUN: gplace-run %s --input=4xf32=1,2,3,4 --input=4xi32=7,-7,9,8 --input=4xi32=2,2,-4,3 --input=f32=100 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=1,2,3,4 --input=4xi32=7,-7,9,8 --input=4xi32=2,2,-4,3 --input=f32=100 --fuse-elementwise=false --emulate-gpus=1 --cuda-graphs=off | FileCheck %s
// RUN: gplace-run %s --input=4xf32=1,2,3,4 --input=4xi32=7,-7,9,8 --input=4xi32=2,2,-4,3 --input=f32=100 --emulate-gpus=1 --cuda-graphs=off | FileCheck %s
// An integer division by zero in a compiled launch fails the run, naming
// the launch, as the general path does.
// RUN: not gplace-run %s --input=4xf32=1,2,3,4 --input=4xi32=7,-7,9,8 --input=4xi32=2,0,-4,3 --input=f32=100 --fuse-elementwise=false 2>&1 | FileCheck %s --check-prefix=DIVZERO
// DIVZERO: error: {{.*}}(gplace.div) on /job:localhost/replica:0/task:0/device:CPU:0: Integer division by zero

func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %k: tensor<4xi32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xi32>,
        tensor<4xf16>, tensor<f32>, tensor<4xf32>) {
  // f32, compiled: 2, 4, 6, 8; then 2, 8, 18, 32; then negated.
  %a1 = gplace.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a2 = gplace.mul %a1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a3 = gplace.neg %a2 : tensor<4xf32>
  // A scalar broadcast (general): 98, 92, 82, 68.
  %a4 = gplace.add %a3, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // A reduction (general) and a compiled launch after it: 340; 96, 88,
  // 76, 60.
  %r = gplace.reduce_sum %a4 axes = [0] : tensor<4xf32> -> tensor<f32>
  %a5 = gplace.sub %a4, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // add_n of three (general unfused, an op of three operands fused):
  // 96 + 1 + 2, ...
  %a6 = gplace.add_n %a5, %x, %a1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // CHECK: result[0]: 4xf32=[-2, -8, -18, -32]
  // CHECK-NEXT: result[1]: 4xf32=[99, 94, 85, 72]
  // CHECK-NEXT: result[2]: 4xf32=[98, 92, 82, 68]
  // f64 through a cast (general), then compiled: x * x - x.
  %d = gplace.cast %x : tensor<4xf32> to tensor<4xf64>
  %d2 = gplace.mul %d, %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %d3 = gplace.sub %d2, %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  // CHECK-NEXT: result[3]: 4xf64=[0, 2, 6, 12]
  // i32, compiled: truncating division, then maximum with the dividend.
  %q = gplace.div %i, %k : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %q2 = gplace.maximum %q, %k : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK-NEXT: result[4]: 4xi32=[3, 2, -2, 3]
  // f16, compiled: x * x + x.
  %h = gplace.cast %x : tensor<4xf32> to tensor<4xf16>
  %h2 = gplace.square %h : tensor<4xf16>
  %h3 = gplace.add %h2, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK-NEXT: result[5]: 4xf16=[2, 6, 12, 20]
  // 128 elements (the vector clones): x broadcast to 32x4, each element
  // squared and doubled; the sum is 2 * 32 * (1 + 4 + 9 + 16) = 1920.
  %b = gplace.broadcast_to %x : tensor<4xf32> -> tensor<32x4xf32>
  %b2 = gplace.mul %b, %b : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
  %b3 = gplace.add %b2, %b2 : (tensor<32x4xf32>, tensor<32x4xf32>) -> tensor<32x4xf32>
  %bs = gplace.reduce_sum %b3 axes = [0, 1] : tensor<32x4xf32> -> tensor<f32>
  // CHECK-NEXT: result[6]: f32=1920
  // The reduction's value broadcast (general) into a compiled launch:
  // 340 * x - x.
  %rx = gplace.mul %x, %r : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %rx2 = gplace.sub %rx, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: result[7]: 4xf32=[339, 678, 1017, 1356]
  return %a3, %a6, %a4, %d3, %q2, %h3, %bs, %rx2
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xi32>,
        tensor<4xf16>, tensor<f32>, tensor<4xf32>
}
