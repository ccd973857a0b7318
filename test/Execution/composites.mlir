// The composite ops (gplace.elu, gplace.selu, gplace.log_softmax,
// docs/passes/decompose.md) run as the ops they decompose into, on the CPU
// and an emulated GPU; their gradients are the parts' (the pipeline
// decomposes before it differentiates): d elu(x) / dx is 1 where x > 0 and
// alpha * e^x where x < 0.
// RUN: gplace-run %s --input=4xf32=-1,-0.5,0.5,2 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=-1,-0.5,0.5,2 --emulate-gpus=1 | FileCheck %s
// elu(x, 0.5) = [0.5 (e^-1 - 1), 0.5 (e^-0.5 - 1), 0.5, 2]
// CHECK: result[0]: 4xf32=[-0.31606{{[0-9]*}}, -0.19673{{[0-9]*}}, 0.5, 2]
// selu(x) = 1.0507 * [1.6733 (e^-1 - 1), 1.6733 (e^-0.5 - 1), 0.5, 2]
// CHECK-NEXT: result[1]: 4xf32=[-1.11133{{[0-9]*}}, -0.69175{{[0-9]*}}, 0.52535{{[0-9]*}}, 2.10140{{[0-9]*}}]
// log_softmax over [-1, -0.5, 0.5, 2]: x - log(sum(e^x)) = x - 2.3038...
// CHECK-NEXT: result[2]: 4xf32=[-3.3038{{[0-9]*}}, -2.8038{{[0-9]*}}, -1.8038{{[0-9]*}}, -0.3038{{[0-9]*}}]
// d sum(elu(x, 0.5)) / dx = [0.5 e^-1, 0.5 e^-0.5, 1, 1]
// CHECK-NEXT: result[3]: 4xf32=[0.18393{{[0-9]*}}, 0.30326{{[0-9]*}}, 1, 1]
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = gplace.elu %x {alpha = 0.5 : f32} : tensor<4xf32>
  %s = gplace.selu %x : tensor<4xf32>
  %l = gplace.log_softmax %x : tensor<4xf32>
  %sum = gplace.reduce_sum %e axes = [0] : tensor<4xf32> -> tensor<f32>
  %g = gplace.gradients %sum wrt %x : tensor<f32> wrt tensor<4xf32>
  return %e, %s, %l, %g : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
