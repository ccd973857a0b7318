// Gradients of gplace.if and gplace.while (docs/dialect.md#gradients-of-if-and-while):
// the If's gradient is an If on the same condition whose branches recompute
// their forward and hold its backward ops (the nested gplace.gradients
// expanded, what the backward ops do not read dropped); the While's is a
// While counting the trip count and a While running it backwards, which
// replays the body k times (an inner While) before each step's gradient.
// The integer input gets no gradient. GradientCheckTest checks the numbers.
// RUN: gplace-opt %s --gplace-differentiate | FileCheck %s

// CHECK-LABEL: func.func @ifGradient
// CHECK: %[[SEED:.*]] = gplace.broadcast_to
// CHECK: %[[G:.*]] = gplace.if %arg0(%arg1, %arg2, %[[SEED]]) : tensor<i1>, tensor<2xf32>, tensor<i64>, tensor<2xf32> -> tensor<2xf32> then {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2xf32>, %{{.*}}: tensor<i64>, %[[DY:.*]]: tensor<2xf32>):
// CHECK-NEXT: gplace.mul %[[DY]], %[[A]] {gplace.colocate_with = "square", name = "gradients/square_grad/Mul"}
// CHECK-NEXT: gplace.mul %[[DY]], %[[A]] {gplace.colocate_with = "square", name = "gradients/square_grad/Mul_1"}
// CHECK-NEXT: %[[SUM:.*]] = gplace.add_n
// CHECK-NEXT: gplace.yield %[[SUM]] : tensor<2xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<i64>, %[[DY2:.*]]: tensor<2xf32>):
// CHECK-NEXT: gplace.yield %[[DY2]] : tensor<2xf32>
// CHECK-NEXT: } {gplace.colocate_with = "choose", name = "gradients/choose_grad/If"}
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: gplace.gradients
func.func @ifGradient(%c: tensor<i1>, %x: tensor<2xf32>, %k: tensor<i64>) -> tensor<2xf32> {
  %r = gplace.if %c (%x, %k) : tensor<i1>, tensor<2xf32>, tensor<i64> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>, %n: tensor<i64>):
    %m = gplace.mul %a, %a {name = "square"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %m : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>, %n: tensor<i64>):
    gplace.yield %a : tensor<2xf32>
  } {name = "choose"}
  %s = gplace.reduce_sum %r axes = [0] : tensor<2xf32> -> tensor<f32>
  %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}

// CHECK-LABEL: func.func @whileGradient
// The trip count: (n, i, x) from (0, inputs), the forward's cond and body.
// CHECK: %[[ZERO:.*]] = gplace.constant dense<0> : tensor<i64> {gplace.colocate_with = "loop", name = "gradients/loop_grad/Const"}
// CHECK: %[[COUNT:.*]]:3 = gplace.while(%[[ZERO]], %[[I0:.*]], %arg0) : tensor<i64>, tensor<i64>, tensor<2xf32> cond {
// CHECK: gplace.greater
// CHECK: } body {
// CHECK: gplace.add
// CHECK: gplace.add
// CHECK: gplace.mul
// CHECK: } {gplace.colocate_with = "loop", name = "gradients/loop_grad/While"}
// The backward loop: (k, dx, inputs) from (N, dy, inputs) while k > 0.
// CHECK: %[[BACK:.*]]:4 = gplace.while(%[[COUNT]]#0, %{{.*}}, %[[I0]], %arg0) : tensor<i64>, tensor<2xf32>, tensor<i64>, tensor<2xf32> cond {
// CHECK: gplace.greater
// CHECK: } body {
// CHECK: ^bb0(%[[K:.*]]: tensor<i64>, %[[DX:.*]]: tensor<2xf32>, %[[J0:.*]]: tensor<i64>, %[[X0:.*]]: tensor<2xf32>):
// CHECK: %[[K1:.*]] = gplace.add %[[K]]
// The replay of k - 1 iterations from the inputs.
// CHECK: %[[REPLAY:.*]]:4 = gplace.while(%{{.*}}, %[[K1]], %[[J0]], %[[X0]])
// CHECK: } body {
// CHECK: gplace.mul
// CHECK: }
// CHECK: gplace.mul %[[DX]], %[[REPLAY]]#3
// CHECK: gplace.yield %[[K1]], %{{.*}}, %[[J0]], %[[X0]] : tensor<i64>, tensor<2xf32>, tensor<i64>, tensor<2xf32>
// CHECK: } {gplace.colocate_with = "loop", name = "gradients/loop_grad/While_1"}
// CHECK: return %[[BACK]]#1
// CHECK-NOT: gplace.gradients
func.func @whileGradient(%x: tensor<2xf32>) -> tensor<2xf32> {
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
