// Gradients of the new elementwise ops (TensorFlow's math_grad.py), run on
// the CPU and 2 emulated GPUs: d sum(erf(sin x) + round(x) + floor_mod(x, y)
// + softsign(x)) / dx = erf'(sin x) cos x + 0 + 1 + 1 / (1 + |x|)^2 (round
// has no gradient, as TensorFlow's None), / dy = -floor(x / y); and
// d sum(sin x) / dx = cos x. GradientCheckTest checks every gradient
// against finite differences.
// RUN: gplace-run %s --input=4xf32=-1,0.5,2,3.5 --input=4xf32=0.75,2,-1.5,1.5 | FileCheck %s
// RUN: gplace-run %s --input=4xf32=-1,0.5,2,3.5 --input=4xf32=0.75,2,-1.5,1.5 --emulate-gpus=2 | FileCheck %s
// CHECK: result[0]: 4xf32=[1.55031{{[0-9]*}}, 2.23134{{[0-9]*}}, 0.90570{{[0-9]*}}, 0.11504{{[0-9]*}}]
// CHECK-NEXT: result[1]: 4xf32=[2, -0, 2, -2]
// CHECK-NEXT: result[2]: 4xf32=[0.54030{{[0-9]*}}, 0.87758{{[0-9]*}}, -0.41614{{[0-9]*}}, -0.93645{{[0-9]*}}]
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s = gplace.sin %x : tensor<4xf32>
  %e = gplace.erf %s : tensor<4xf32>
  %r = gplace.round %x : tensor<4xf32>
  %m = gplace.floor_mod %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ss = gplace.softsign %x : tensor<4xf32>
  %a = gplace.add %e, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = gplace.add %a, %m : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = gplace.add %b, %ss : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %sum = gplace.reduce_sum %c axes = [0] : tensor<4xf32> -> tensor<f32>
  %g:2 = gplace.gradients %sum wrt %x, %y : tensor<f32> wrt tensor<4xf32>, tensor<4xf32>
  %gs = gplace.reduce_sum %s axes = [0] : tensor<4xf32> -> tensor<f32>
  %h = gplace.gradients %gs wrt %x : tensor<f32> wrt tensor<4xf32>
  return %g#0, %g#1, %h : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
