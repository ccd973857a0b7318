// Gradients of gplace.if and gplace.while (docs/dialect.md#gradients-of-if-and-while):
// the If's gradient is an If on the same condition whose branches recompute
// their forward and hold its backward ops (the nested gplace.gradients
// expanded, what the backward ops do not read dropped); the While's is a
// While rerunning the forward and a While running it backwards. Where the
// condition proves a bound B on the trip count (and the stacks fit
// gplace.gradient_stack_bytes), the rerun keeps each iteration's carried
// values in [B, ...] stacks that the backward loop reads; otherwise it
// counts the trip count, and the backward loop replays the body k times (an
// inner While) before each step's gradient. The integer input gets no
// gradient. GradientCheckTest checks the numbers, and
// test/Execution/while-stack-gradients.mlir the two against each other.
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
// The recompute, as gplace.gradient_stack_bytes = 0 asks. The trip count: (n, i, x) from (0, inputs), the forward's cond and body.
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
  } {name = "loop", gplace.gradient_stack_bytes = 0}
  %s = gplace.reduce_sum %w#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}

// CHECK-LABEL: func.func @whileStackGradient
// The forward rerun: (n, i, x, stack) from (0, inputs, zeros); row n of
// x's stack is set to x before iteration n. The counter i, which the
// gradient does not read, has no stack.
// CHECK: %[[N0:.*]] = gplace.constant dense<0> : tensor<i64> {gplace.colocate_with = "loop", name = "gradients/loop_grad/Const"}
// CHECK-NOT: tensor<3xi64>
// CHECK: %[[SX0:.*]] = gplace.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK: %[[FWD:.*]]:4 = gplace.while(%[[N0]], %{{.*}}, %arg0, %[[SX0]]) : tensor<i64>, tensor<i64>, tensor<2xf32>, tensor<3x2xf32> cond {
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[N:.*]]: tensor<i64>, %[[I:.*]]: tensor<i64>, %[[X:.*]]: tensor<2xf32>, %[[SX:.*]]: tensor<3x2xf32>):
// CHECK: gplace.mul %[[X]], %[[X]]
// CHECK-NOT: gplace.select
// CHECK: %[[NAT:.*]] = gplace.reshape %[[N]] : tensor<i64> -> tensor<1xi64>
// CHECK-NEXT: %[[ZEROS:.*]] = gplace.constant dense<0> : tensor<1xi64>
// CHECK-NEXT: %[[AT:.*]] = gplace.concat %[[NAT]], %[[ZEROS]] axis = 0 : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
// CHECK-NEXT: %[[XROW:.*]] = gplace.reshape %[[X]] : tensor<2xf32> -> tensor<1x2xf32>
// CHECK-NEXT: gplace.dynamic_update_slice %[[SX]], %[[XROW]], %[[AT]] : (tensor<3x2xf32>, tensor<1x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
// CHECK-NOT: gplace.dynamic_update_slice
// CHECK: } {gplace.colocate_with = "loop", name = "gradients/loop_grad/While"}
// The backward loop reads iteration k - 1's x from the stack: no inner
// While.
// CHECK: %[[BACK:.*]]:5 = gplace.while(%[[FWD]]#0, %{{.*}}, %{{.*}}, %arg0, %[[FWD]]#3)
// CHECK: } body {
// CHECK-NEXT: ^bb0(%[[K:.*]]: tensor<i64>, %[[DX:.*]]: tensor<2xf32>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<2xf32>, %[[STACK:.*]]: tensor<3x2xf32>):
// CHECK-NOT: gplace.while
// CHECK: %[[K1:.*]] = gplace.add %[[K]]
// CHECK-NEXT: %[[XK:.*]] = gplace.gather %[[STACK]][%[[K1]]] axis = 0 : (tensor<3x2xf32>, tensor<i64>) -> tensor<2xf32>
// CHECK-NOT: gplace.while
// CHECK: gplace.mul %[[DX]], %[[XK]]
// CHECK-NOT: gplace.while
// CHECK: } {gplace.colocate_with = "loop", name = "gradients/loop_grad/While_1"}
// CHECK: return %[[BACK]]#1
// CHECK-NOT: gplace.gradients
func.func @whileStackGradient(%x: tensor<2xf32>) -> tensor<2xf32> {
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

// No bound where the limit is of the run (an argument), nor where the
// stack passes the limit (3 rows of 8 bytes: x; the counter i, which the
// gradient does not read, is not stacked): the recompute, its inner While.
// CHECK-LABEL: func.func @whileNoBound
// CHECK-NOT: gplace.gather
// CHECK: name = "gradients/loop_grad/While"
// CHECK: gplace.while
// CHECK: name = "gradients/loop_grad/While_1"
// CHECK-LABEL: func.func @whileOverLimit
// CHECK-NOT: gplace.gather
// CHECK: name = "gradients/loop_grad/While"
// CHECK: gplace.while
// CHECK: name = "gradients/loop_grad/While_1"
// CHECK-NOT: gplace.gather
func.func @whileNoBound(%x: tensor<2xf32>, %n: tensor<i64>) -> tensor<2xf32> {
  %zero = gplace.constant dense<0> : tensor<i64>
  %w:3 = gplace.while (%zero, %x, %n) : tensor<i64>, tensor<2xf32>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %m: tensor<i64>):
    %more = gplace.greater %m, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
    gplace.yield %more : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %m: tensor<i64>):
    %one = gplace.constant dense<1> : tensor<i64>
    %next = gplace.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %twice = gplace.mul %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %next, %twice, %m : tensor<i64>, tensor<2xf32>, tensor<i64>
  } {name = "loop"}
  %s = gplace.reduce_sum %w#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}
func.func @whileOverLimit(%x: tensor<2xf32>) -> tensor<2xf32> {
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
  } {name = "loop", gplace.gradient_stack_bytes = 23}
  %s = gplace.reduce_sum %w#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %g = gplace.gradients %s wrt %x : tensor<f32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}
