// A matmul whose weights are a constant runs on the weights packed once,
// at its first run, into oneDNN's layout (docs/runtime.md, "Host
// kernels"); weights read from a variable are never packed, so a change to
// the variable shows in the next run. Both are checked over three runs, on
// the CPU and on an emulated GPU (which runs the host kernels), with B
// transposed and not.
// RUN: gplace-run %s --iterations=3 | FileCheck %s
// RUN: gplace-run %s --iterations=3 --emulate-gpus=1 | FileCheck %s
func.func @main() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = gplace.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %ab = gplace.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %abt = gplace.matmul %a, %b transpose_b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // w grows by 1 after each run: [[1, 0], [0, 1]], then + 1, + 2.
  %w = gplace.variable dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<2x2xf32>>
  %aw = gplace.matmul %a, %wr : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %one = gplace.constant dense<1.0> : tensor<2x2xf32>
  %t = gplace.assign_add %w, %one : !gplace.resource<tensor<2x2xf32>>
  return %ab, %abt, %aw : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
// The third run: A B, A B^T, and A (I + 2).
// CHECK: result[0]: 2x2xf32={{\[\[}}19, 22], [43, 50]]
// CHECK: result[1]: 2x2xf32={{\[\[}}17, 23], [39, 53]]
// CHECK: result[2]: 2x2xf32={{\[\[}}7, 8], [17, 18]]
