// Tests --gplace-early-updates: each variable's update moves up to just
// after the last op it must follow (its gradient, the users of the
// variable's read, the ops touching the variable), taking along the
// constant and the read it needs; nothing else moves.
// RUN: gplace-opt %s --gplace-differentiate --gplace-early-updates | FileCheck %s
// RUN: gplace-opt %s --gplace-differentiate --gplace-early-updates --gplace-early-updates | FileCheck %s
// In the plan (the pipeline's early-updates): %w2's reads stay views of its
// memory, and its update, into that memory, runs after the last of them
// and before the first layer's backward.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 early-updates=true" | FileCheck %s --check-prefix=PLAN
// PLAN: gplan.launch matmul(%{{[0-9]+}}, %[[W2:[0-9]+]]) on @cpu0 stream 0 name "{{[^"]*}}" {transpose_b}
// PLAN: gplan.launch apply_gradient_descent(%{{[0-9]+}}, %{{[0-9]+}}) into(%[[W2]])
// PLAN-NOT: gplan.launch matmul
// PLAN: gplan.launch tanh_grad
// PLAN: gplan.launch apply_gradient_descent

// The second layer's update (%w2) follows its gradient and the gradient of
// its input (which reads %w2), and precedes the first layer's backward
// (tanh's gradient); the constant %lr moves with it. The first layer's
// update follows its gradient; the counter's assign_add, which waits for
// both updates, follows the second and keeps its place before the
// identity that waits for it.
// CHECK-LABEL: func.func @train
// CHECK: gplace.matmul {{.*}} transpose_b {
// CHECK: %[[LR:.+]] = gplace.constant dense<1.000000e-01>
// CHECK-NEXT: gplace.apply_gradient_descent %{{[^,]+}}, %[[LR]], %{{[^ ]+}} : !gplace.resource<tensor<3x2xf32>>
// CHECK: gplace.tanh_grad
// CHECK: gplace.apply_gradient_descent {{.*}} : !gplace.resource<tensor<3x3xf32>>
// CHECK-NEXT: gplace.constant dense<1>
// CHECK-NEXT: gplace.assign_add
// CHECK-NOT: apply_gradient_descent
// CHECK: return
func.func @train(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %w1 = gplace.variable dense<0.5> : tensor<3x3xf32> {name = "w1"}
  %w2 = gplace.variable dense<0.25> : tensor<3x2xf32> {name = "w2"}
  %count = gplace.variable dense<0> : tensor<i64> {name = "count"}
  %r1 = gplace.read %w1 : !gplace.resource<tensor<3x3xf32>>
  %r2 = gplace.read %w2 : !gplace.resource<tensor<3x2xf32>>
  %h = gplace.matmul %x, %r1 : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %t = gplace.tanh %h : tensor<4x3xf32>
  %p = gplace.matmul %t, %r2 : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = gplace.sub %p, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = gplace.square %d : tensor<4x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g1, %g2 = gplace.gradients %loss wrt %r1, %r2 : tensor<f32> wrt tensor<3x3xf32>, tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<3x3xf32>>, tensor<f32>, tensor<3x3xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %one = gplace.constant dense<1> : tensor<i64>
  %n = gplace.assign_add %count, %one after(%u1, %u2) : !gplace.resource<tensor<i64>>
  %r = gplace.identity %loss after(%n) : tensor<f32>
  return %r : tensor<f32>
}
