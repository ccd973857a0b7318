// Tests empty tensors (a dimension of size 0) through every stage: their
// buffers take no arena memory (offset 0; an arena offset past the end was
// refused before), copies and kernels move no bytes (no null pointer reaches
// memcpy: the sanitizer build checks), and reductions over an empty axis give
// TensorFlow's values (sum 0, mean nan, max -inf).
// RUN: gplace-run %s --emulate-gpus=2 "--input=0x3xf32=" "--input=0xi32=" --iterations=2 | FileCheck %s
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:2" --gplace-verify-plan | FileCheck %s --check-prefix=PLAN

// CHECK: result[0]: 0x3xf32=[]
// CHECK-NEXT: result[1]: 3xf32=[0, 0, 0]
// CHECK-NEXT: result[2]: 3xf32=[nan, nan, nan]
// CHECK-NEXT: result[3]: 0xi32=[]
// CHECK-NEXT: result[4]: 3x0xf32={{\[\[}}], [], []]
// CHECK-NEXT: result[5]: 3x3xf32={{\[\[}}0, 0, 0], [0, 0, 0], [0, 0, 0]]
// CHECK-NEXT: result[6]: 3xf32=[-inf, -inf, -inf]
// PLAN: gplan.program
func.func @main(%x: tensor<0x3xf32>, %i: tensor<0xi32>) -> (tensor<0x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xi32>, tensor<3x0xf32>, tensor<3x3xf32>, tensor<3xf32>) {
  %v = gplace.variable dense<0.0> : tensor<0x3xf32> {device = "/gpu:1"}
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<0x3xf32>>
  %r = gplace.read %v after(%t) : !gplace.resource<tensor<0x3xf32>>
  %e = gplace.exp %r {device = "/gpu:0"} : tensor<0x3xf32>
  %a = gplace.add %e, %x {device = "/cpu:0"} : (tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<0x3xf32>
  %s = gplace.reduce_sum %a axes = [0] : tensor<0x3xf32> -> tensor<3xf32>
  %m = gplace.reduce_mean %a axes = [0] {device = "/gpu:0"} : tensor<0x3xf32> -> tensor<3xf32>
  %n = gplace.neg %i : tensor<0xi32>
  %tr = gplace.transpose %a perm = [1, 0] : tensor<0x3xf32> -> tensor<3x0xf32>
  %mm = gplace.matmul %tr, %a {device = "/gpu:1"} : (tensor<3x0xf32>, tensor<0x3xf32>) -> tensor<3x3xf32>
  %mx = gplace.reduce_max %a axes = [0] : tensor<0x3xf32> -> tensor<3xf32>
  return %a, %s, %m, %n, %tr, %mm, %mx : tensor<0x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<0xi32>, tensor<3x0xf32>, tensor<3x3xf32>, tensor<3xf32>
}
