// Tests --gplace-outline-control-flow: each region of gplace.if and
// gplace.while becomes a private function after the one holding the op,
// named after the function, the op and the region; nested control flow is
// outlined from the inside out; an unnamed op is named by its position.
// RUN: gplace-opt %s -split-input-file --gplace-outline-control-flow -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = gplace.if %arg0(%arg0, %arg1) : tensor<i1>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {else_branch = @"main/outer/else", name = "outer", then_branch = @"main/outer/then"}
// CHECK: %[[W:.*]] = gplace.while(%[[R]]) : tensor<2xf32> {body = @"main/while2/body", cond = @"main/while2/cond"}
// CHECK: return %[[W]]
// The inner If (in the then branch) first, then the outer's regions.
// CHECK: func.func private @"main/inner/then"(%arg0: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: gplace.neg %arg0
// CHECK: func.func private @"main/inner/else"(%arg0: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %arg0
// CHECK: func.func private @"main/outer/then"(%arg0: tensor<i1>, %arg1: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: gplace.if %arg0(%arg1) {{.*}}{else_branch = @"main/inner/else", name = "inner", then_branch = @"main/inner/then"}
// CHECK: func.func private @"main/outer/else"
// CHECK: func.func private @"main/while2/cond"(%arg0: tensor<2xf32>) -> tensor<i1>
// CHECK: func.func private @"main/while2/body"(%arg0: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: gplace.add %arg0, %arg0
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.if %c (%c, %x) : tensor<i1>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%d: tensor<i1>, %a: tensor<2xf32>):
    %s = gplace.if %d (%a) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
    ^bb0(%b: tensor<2xf32>):
      %n = gplace.neg %b : tensor<2xf32>
      gplace.yield %n : tensor<2xf32>
    } else {
    ^bb0(%b: tensor<2xf32>):
      gplace.yield %b : tensor<2xf32>
    } {name = "inner"}
    gplace.yield %s : tensor<2xf32>
  } else {
  ^bb0(%d: tensor<i1>, %a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "outer"}
  %w = gplace.while(%r) : tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %f = gplace.constant dense<false> : tensor<i1>
    gplace.yield %f : tensor<i1>
  } body {
  ^bb0(%a: tensor<2xf32>):
    %t = gplace.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %t : tensor<2xf32>
  }
  return %w : tensor<2xf32>
}

// -----

// A variable in a region is refused.
func.func @variableInRegion(%c: tensor<i1>) -> tensor<f32> {
  %r = gplace.if %c : tensor<i1> -> tensor<f32> then {
    // expected-error @+1 {{a variable cannot be declared inside a region of 'gplace.if' (each run would have its own); declare it outside}}
    %v = gplace.variable dense<1.0> : tensor<f32>
    %x = gplace.read %v : !gplace.resource<tensor<f32>>
    gplace.yield %x : tensor<f32>
  } else {
    %z = gplace.constant dense<0.0> : tensor<f32>
    gplace.yield %z : tensor<f32>
  }
  return %r : tensor<f32>
}
