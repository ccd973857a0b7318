// Gradients through run-time control flow (docs/dialect.md#gradients-of-if-and-while):
// y = x * w^n by a gplace.while whose trip count n is an input, then
// z = y * y or y by a gplace.if whose condition is an input; the gradient
// of sum(z) with respect to w runs as control flow too (the backward If and
// Whiles are outlined after --gplace-differentiate and run as sub-plans).
// With x = [1, -2], w = [0.5, 2]: sum(z) and d sum(z) / dw are
//   else, n = 3: n x w^(n-1) = [0.75, -24];
//   then, n = 3: 2n x^2 w^(2n-1) = [0.1875, 768];
//   n = 0: y = x, no w in it: [0, 0].
// On the CPU and on two emulated GPUs (the regions' ops on GPU:0).
// RUN: gplace-run %s --input=i1=false --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=i64=3 | FileCheck %s --check-prefix=ELSE
// RUN: gplace-run %s --emulate-gpus=2 --input=i1=false --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=i64=3 | FileCheck %s --check-prefix=ELSE
// ELSE: result[0]: f32=-15.875
// ELSE-NEXT: result[1]: 2xf32=[0.75, -24]
// RUN: gplace-run %s --input=i1=true --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=i64=3 | FileCheck %s --check-prefix=THEN
// RUN: gplace-run %s --emulate-gpus=2 --input=i1=true --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=i64=3 | FileCheck %s --check-prefix=THEN
// THEN: result[0]: f32=256.01562
// THEN-NEXT: result[1]: 2xf32=[0.1875, 768]
// RUN: gplace-run %s --input=i1=false --input=2xf32=1,-2 --input=2xf32=0.5,2 --input=i64=0 | FileCheck %s --check-prefix=NONE
// NONE: result[0]: f32=-1
// NONE-NEXT: result[1]: 2xf32=[0, 0]

func.func @main(%c: tensor<i1>, %x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<i64>) -> (tensor<f32>, tensor<2xf32>) {
  %zero = gplace.constant dense<0> : tensor<i64>
  %loop:4 = gplace.while (%zero, %x, %w, %n) : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %limit: tensor<i64>):
    %more = gplace.greater %limit, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
    gplace.yield %more : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %v: tensor<2xf32>, %limit: tensor<i64>):
    %one = gplace.constant dense<1> : tensor<i64>
    %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %scaled = gplace.mul %y, %v {name = "scale"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %next, %scaled, %v, %limit : tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<i64>
  } {name = "power"}
  %z = gplace.if %c (%loop#1) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %s = gplace.mul %a, %a {name = "square"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %s : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "choose"}
  %loss = gplace.reduce_sum %z axes = [0] : tensor<2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %w : tensor<f32> wrt tensor<2xf32>
  return %loss, %g : tensor<f32>, tensor<2xf32>
}
