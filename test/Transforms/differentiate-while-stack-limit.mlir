// gplace.gradient_stack_bytes on the module sets the limit on the stacks of
// every While's gradient (docs/dialect.md#gradients-of-if-and-while); on a
// gplace.while, it overrides the module's. Here the module's 0 asks for the
// recompute, and the second loop's own limit lets it keep its stacks.
// RUN: gplace-opt %s --gplace-differentiate | FileCheck %s

// CHECK-LABEL: func.func @moduleLimit
// CHECK-NOT: gplace.gather
// CHECK: name = "gradients/loop_grad/While"}
// CHECK: gplace.while
// CHECK: gplace.while
// CHECK: name = "gradients/loop_grad/While_1"}
// CHECK-LABEL: func.func @ownLimit
// CHECK: tensor<3x2xf32>
// CHECK: gplace.gather
// CHECK: name = "gradients/loop_grad/While_1"}
module attributes {gplace.gradient_stack_bytes = 0 : i64} {
  func.func @moduleLimit(%x: tensor<2xf32>) -> tensor<2xf32> {
    %zero = gplace.constant dense<0> : tensor<i64>
    %w:2 = gplace.while (%zero, %x) : tensor<i64>, tensor<2xf32> cond {
    ^bb0(%i: tensor<i64>, %y: tensor<2xf32>):
      %n = gplace.constant dense<3> : tensor<i64>
      %more = gplace.greater %n, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
      gplace.yield %more : tensor<i1>
    } body {
    ^bb0(%i: tensor<i64>, %y: tensor<2xf32>):
      %one = gplace.constant dense<1> : tensor<i64>
      %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
      %twice = gplace.mul %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      gplace.yield %next, %twice : tensor<i64>, tensor<2xf32>
    } {name = "loop"}
    %s = gplace.reduce_sum %w#1 axes = [0] : tensor<2xf32> -> tensor<f32>
    %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @ownLimit(%x: tensor<2xf32>) -> tensor<2xf32> {
    %zero = gplace.constant dense<0> : tensor<i64>
    %w:2 = gplace.while (%zero, %x) : tensor<i64>, tensor<2xf32> cond {
    ^bb0(%i: tensor<i64>, %y: tensor<2xf32>):
      %n = gplace.constant dense<3> : tensor<i64>
      %more = gplace.greater %n, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
      gplace.yield %more : tensor<i1>
    } body {
    ^bb0(%i: tensor<i64>, %y: tensor<2xf32>):
      %one = gplace.constant dense<1> : tensor<i64>
      %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
      %twice = gplace.mul %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      gplace.yield %next, %twice : tensor<i64>, tensor<2xf32>
    } {name = "loop", gplace.gradient_stack_bytes = 1024}
    %s = gplace.reduce_sum %w#1 axes = [0] : tensor<2xf32> -> tensor<f32>
    %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
    return %g : tensor<2xf32>
  }
}
