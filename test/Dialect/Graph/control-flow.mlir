// Tests gplace.if, gplace.while and gplace.yield: the custom form with
// regions and outlined (symbols), re-parsed and in the generic form; the
// While's result types inferred from its inputs.
// RUN: gplace-opt %s | FileCheck %s
// RUN: gplace-opt %s | gplace-opt | FileCheck %s
// RUN: gplace-opt %s -mlir-print-op-generic | gplace-opt | FileCheck %s

// CHECK-LABEL: func.func @ifWithRegions
// CHECK: %[[R:.*]] = gplace.if %arg0(%arg1) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2xf32>):
// CHECK-NEXT: %[[N:.*]] = gplace.neg %[[A]] : tensor<2xf32>
// CHECK-NEXT: gplace.yield %[[N]] : tensor<2xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<2xf32>):
// CHECK-NEXT: gplace.yield %[[B]] : tensor<2xf32>
// CHECK-NEXT: } {name = "cond"}
func.func @ifWithRegions(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %n = gplace.neg %a : tensor<2xf32>
    gplace.yield %n : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "cond"}
  return %r : tensor<2xf32>
}

// An If without inputs or results, after a token.
// CHECK-LABEL: func.func @ifWithoutValues
// CHECK: gplace.if %arg0 after(%{{.*}}) : tensor<i1> then {
// CHECK: } else {
func.func @ifWithoutValues(%c: tensor<i1>) {
  %t = gplace.group %c : tensor<i1>
  gplace.if %c after(%t) : tensor<i1> then {
    gplace.yield
  } else {
    gplace.yield
  }
  return
}

// CHECK-LABEL: func.func @outlinedIf
// CHECK: gplace.if %arg0(%arg1) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> {else_branch = @f, then_branch = @g}
func.func @outlinedIf(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> {then_branch = @g, else_branch = @f}
  return %r : tensor<2xf32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = gplace.neg %x : tensor<2xf32>
  return %n : tensor<2xf32>
}
func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// CHECK-LABEL: func.func @whileWithRegions
// CHECK: %[[R:.*]]:2 = gplace.while(%arg0, %arg1) : tensor<i64>, tensor<2xf32> cond {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i64>, %{{.*}}: tensor<2xf32>):
// CHECK: gplace.yield %{{.*}} : tensor<i1>
// CHECK-NEXT: } body {
// CHECK: gplace.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<2xf32>
// CHECK: return %[[R]]#1 : tensor<2xf32>
func.func @whileWithRegions(%i: tensor<i64>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = gplace.while(%i, %x) : tensor<i64>, tensor<2xf32> cond {
  ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
    %n = gplace.constant dense<3> : tensor<i64>
    %c = gplace.greater %n, %a : (tensor<i64>, tensor<i64>) -> tensor<i1>
    gplace.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<i64>, %b: tensor<2xf32>):
    %one = gplace.constant dense<1> : tensor<i64>
    %a1 = gplace.add %a, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %b1 = gplace.add %b, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %a1, %b1 : tensor<i64>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// CHECK-LABEL: func.func @outlinedWhile
// CHECK: gplace.while(%arg0) : tensor<2xf32> {body = @b, cond = @c}
func.func @outlinedWhile(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.while(%x) : tensor<2xf32> {cond = @c, body = @b}
  return %r : tensor<2xf32>
}
func.func private @c(%x: tensor<2xf32>) -> tensor<i1> {
  %t = gplace.constant dense<false> : tensor<i1>
  return %t : tensor<i1>
}
func.func private @b(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
