// The two gradients of a gplace.while (docs/dialect.md#gradients-of-if-and-while):
// the same loop differentiated with stacks (its condition proves at most 5
// iterations: 5 > i, as ONNX's Loop with a constant M writes it) and with
// the recompute (gplace.gradient_stack_bytes = 0) gives the same values.
// y = x * w^k, k the iterations, at most 5 and while sum(y) > t (the
// data's choice); loss = sum(y). With x = [1, -2], w = [0.5, 2]:
//   t = -5: k = 2 (sum(y) = -1, -3.5, -7.75): d/dx = w^2 = [0.25, 4],
//           d/dw = k x w^(k-1) = [1, -8];
//   t = -1000: k = 5, the bound: d/dx = [0.03125, 32], d/dw = [0.3125, -160];
//   t = 0: k = 0: d/dx = [1, 1], d/dw = [0, 0].
// Results: loss, then d/dx and d/dw with stacks, then with the recompute.
// RUN: gplace-run %s --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=-5 | FileCheck %s --check-prefix=TWO
// RUN: gplace-run %s --emulate-gpus=2 --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=-5 | FileCheck %s --check-prefix=TWO
// TWO: result[0]: f32=-7.75
// TWO-NEXT: result[1]: 2xf32=[0.25, 4]
// TWO-NEXT: result[2]: 2xf32=[1, -8]
// TWO-NEXT: result[3]: 2xf32=[0.25, 4]
// TWO-NEXT: result[4]: 2xf32=[1, -8]
// RUN: gplace-run %s --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=-1000 | FileCheck %s --check-prefix=FIVE
// RUN: gplace-run %s --emulate-gpus=2 --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=-1000 | FileCheck %s --check-prefix=FIVE
// FIVE: result[0]: f32=-63.96875
// FIVE-NEXT: result[1]: 2xf32=[0.03125, 32]
// FIVE-NEXT: result[2]: 2xf32=[0.3125, -160]
// FIVE-NEXT: result[3]: 2xf32=[0.03125, 32]
// FIVE-NEXT: result[4]: 2xf32=[0.3125, -160]
// RUN: gplace-run %s --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=0 | FileCheck %s --check-prefix=NONE
// RUN: gplace-run %s --emulate-gpus=2 --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=f32=0 | FileCheck %s --check-prefix=NONE
// NONE: result[0]: f32=-1
// NONE-NEXT: result[1]: 2xf32=[1, 1]
// NONE-NEXT: result[2]: 2xf32=[0, 0]
// NONE-NEXT: result[3]: 2xf32=[1, 1]
// NONE-NEXT: result[4]: 2xf32=[0, 0]

func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %t: tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %zero = gplace.constant dense<0> : tensor<i64>
  %m = gplace.constant dense<5> : tensor<i64>
  %stacked:5 = gplace.while (%zero, %x, %w, %t, %m) : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %s: tensor<f32>, %n: tensor<i64>):
    %below = gplace.greater %n, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %sum = gplace.reduce_sum %y axes = [0] : tensor<2xf32> -> tensor<f32>
    %above = gplace.greater %sum, %s : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %go = gplace.logical_and %below, %above : (tensor<i1>, tensor<i1>) -> tensor<i1>
    gplace.yield %go : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %s: tensor<f32>, %n: tensor<i64>):
    %one = gplace.constant dense<1> : tensor<i64>
    %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %scaled = gplace.mul %y, %v {name = "scale"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %next, %scaled, %v, %s, %n : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<i64>
  } {name = "stacked"}
  %recomputed:5 = gplace.while (%zero, %x, %w, %t, %m) : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %s: tensor<f32>, %n: tensor<i64>):
    %below = gplace.greater %n, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %sum = gplace.reduce_sum %y axes = [0] : tensor<2xf32> -> tensor<f32>
    %above = gplace.greater %sum, %s : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %go = gplace.logical_and %below, %above : (tensor<i1>, tensor<i1>) -> tensor<i1>
    gplace.yield %go : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %s: tensor<f32>, %n: tensor<i64>):
    %one = gplace.constant dense<1> : tensor<i64>
    %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %scaled = gplace.mul %y, %v {name = "scale"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %next, %scaled, %v, %s, %n : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<i64>
  } {name = "recomputed", gplace.gradient_stack_bytes = 0}
  %loss = gplace.reduce_sum %stacked#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %loss2 = gplace.reduce_sum %recomputed#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %g:2 = gplace.gradients %loss wrt %x, %w : tensor<f32> wrt tensor<2xf32>, tensor<2xf32>
  %h:2 = gplace.gradients %loss2 wrt %x, %w : tensor<f32> wrt tensor<2xf32>, tensor<2xf32>
  return %loss, %g#0, %g#1, %h#0, %h#1 : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
