// Tests the runtime's all-reduce (gplace.collective_reduce, docs/runtime.md
// "Collectives"): members on three emulated GPUs and the CPU return the sum
// or mean of every member's input, in f32, f64, f16 and bf16, every run
// (--iterations); the same through --gplace-lower-all-reduce from
// gplace.all_reduce; and the errors of a group the plan does not complete.
// RUN: gplace-run %s --emulate-gpus=3 | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=3 --iterations=3 | FileCheck %s
// RUN: gplace-run %s --emulate-gpus=3 --cuda-graphs=off | FileCheck %s

// Sum over GPU:0, GPU:1, GPU:2 and the CPU of [1, 2, 3], [10, 20, 30],
// [100, 200, 300], [1000, 2000, 3000].
// CHECK: result[0]: 3xf32=[1111, 2222, 3333]
// CHECK-NEXT: result[1]: 3xf32=[1111, 2222, 3333]
// CHECK-NEXT: result[2]: 3xf32=[1111, 2222, 3333]
// CHECK-NEXT: result[3]: 3xf32=[1111, 2222, 3333]
// Mean over the three GPUs, f64: (0.5 + 1 + 3) / 3 = 1.5.
// CHECK-NEXT: result[4]: 2xf64=[1.5, -1.5]
// CHECK-NEXT: result[5]: 2xf64=[1.5, -1.5]
// f16 and bf16, added in f32: 0.1 + 0.2 rounds once.
// CHECK-NEXT: result[6]: 2x2xf16={{\[\[}}0.2998, 2], [3, 4]]
// CHECK-NEXT: result[7]: 2x2xbf16={{\[\[}}0.3, 2], [3, 4]]
// From gplace.all_reduce (mean of two).
// CHECK-NEXT: result[8]: 2xf32=[2, 3]
// CHECK-NEXT: result[9]: 2xf32=[2, 3]
func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf16>, tensor<2x2xbf16>, tensor<2xf32>, tensor<2xf32>) {
  %a = gplace.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> {device = "/gpu:0"}
  %b = gplace.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32> {device = "/gpu:1"}
  %c = gplace.constant dense<[100.0, 200.0, 300.0]> : tensor<3xf32> {device = "/gpu:2"}
  %d = gplace.constant dense<[1000.0, 2000.0, 3000.0]> : tensor<3xf32> {device = "/cpu:0"}
  %sa = gplace.collective_reduce %a {group_key = 0, group_size = 4, instance_key = 0, member = 0, ranks = array<i64>, device = "/gpu:0"} : tensor<3xf32>
  %sb = gplace.collective_reduce %b {group_key = 0, group_size = 4, instance_key = 0, member = 1, ranks = array<i64>, device = "/gpu:1"} : tensor<3xf32>
  %sc = gplace.collective_reduce %c {group_key = 0, group_size = 4, instance_key = 0, member = 2, ranks = array<i64>, device = "/gpu:2"} : tensor<3xf32>
  %sd = gplace.collective_reduce %d {group_key = 0, group_size = 4, instance_key = 0, member = 3, ranks = array<i64>, device = "/cpu:0"} : tensor<3xf32>
  %e = gplace.constant dense<[0.5, -0.5]> : tensor<2xf64> {device = "/gpu:0"}
  %f = gplace.constant dense<[1.0, -1.0]> : tensor<2xf64> {device = "/gpu:1"}
  %g = gplace.constant dense<[3.0, -3.0]> : tensor<2xf64> {device = "/gpu:2"}
  %me = gplace.collective_reduce %e {group_key = 1, group_size = 3, instance_key = 1, member = 0, ranks = array<i64>, mean, device = "/gpu:0"} : tensor<2xf64>
  %mf = gplace.collective_reduce %f {group_key = 1, group_size = 3, instance_key = 1, member = 1, ranks = array<i64>, mean, device = "/gpu:1"} : tensor<2xf64>
  %mg = gplace.collective_reduce %g {group_key = 1, group_size = 3, instance_key = 1, member = 2, ranks = array<i64>, mean, device = "/gpu:2"} : tensor<2xf64>
  %h0 = gplace.constant dense<[[0.1, 1.0], [1.0, 2.0]]> : tensor<2x2xf16> {device = "/gpu:0"}
  %h1 = gplace.constant dense<[[0.2, 1.0], [2.0, 2.0]]> : tensor<2x2xf16> {device = "/gpu:1"}
  %sh0 = gplace.collective_reduce %h0 {group_key = 2, group_size = 2, instance_key = 2, member = 0, ranks = array<i64>, device = "/gpu:0"} : tensor<2x2xf16>
  %sh1 = gplace.collective_reduce %h1 {group_key = 2, group_size = 2, instance_key = 2, member = 1, ranks = array<i64>, device = "/gpu:1"} : tensor<2x2xf16>
  %b0 = gplace.constant dense<[[0.1, 1.0], [1.0, 2.0]]> : tensor<2x2xbf16> {device = "/gpu:0"}
  %b1 = gplace.constant dense<[[0.2, 1.0], [2.0, 2.0]]> : tensor<2x2xbf16> {device = "/gpu:1"}
  %sb0 = gplace.collective_reduce %b0 {group_key = 2, group_size = 2, instance_key = 3, member = 0, ranks = array<i64>, device = "/gpu:0"} : tensor<2x2xbf16>
  %sb1 = gplace.collective_reduce %b1 {group_key = 2, group_size = 2, instance_key = 3, member = 1, ranks = array<i64>, device = "/gpu:1"} : tensor<2x2xbf16>
  %x = gplace.constant dense<[1.0, 2.0]> : tensor<2xf32> {device = "/gpu:1"}
  %y = gplace.constant dense<[3.0, 4.0]> : tensor<2xf32> {device = "/gpu:2"}
  %m:2 = gplace.all_reduce %x, %y reduction = "mean" devices = ["/device:GPU:1", "/device:GPU:2"] : tensor<2xf32>, tensor<2xf32>
  return %sa, %sb, %sc, %sd, %me, %mf, %sh0, %sb1, %m#0, %m#1 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf16>, tensor<2x2xbf16>, tensor<2xf32>, tensor<2xf32>
}
