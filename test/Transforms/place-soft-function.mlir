// Tests a function's gplace.allow_soft_placement (what --gplace-replicate
// sets on its towers): soft placement for that function and the functions
// it calls (an outlined If's branches, also nested), while the others keep
// the option's hard placement.
// RUN: not gplace-opt %s --gplace-outline-control-flow --gplace-place="devices=cpu:1,gpu:1" 2>&1 | FileCheck %s --check-prefix=HARD
// RUN: not gplace-opt %s --gplace-outline-control-flow --gplace-place="devices=cpu:1,gpu:1" --split-input-file 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @tower
// CHECK: gplace.constant {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/gpu:11"
// A cast asked for on a GPU, which has no kernel for it, runs on the CPU.
// CHECK: gplace.cast {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0"
// CHECK-LABEL: func.func private @"tower/cond/then"
// CHECK: gplace.neg {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/gpu:7"
func.func @tower(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xi32> attributes {gplace.allow_soft_placement} {
  %k = gplace.constant dense<1.0> : tensor<2xf32> {device = "/gpu:11"}
  %s = gplace.add %x, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = gplace.if %c (%s) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %n = gplace.neg %a {device = "/gpu:7"} : tensor<2xf32>
    gplace.yield %n : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "cond"}
  %i = gplace.cast %r {device = "/gpu:0"} : tensor<2xf32> to tensor<2xi32>
  return %i : tensor<2xi32>
}

// -----

// A function without the attribute is placed as before: the same request
// is an error.
// HARD: error: Cannot assign a device for operation 'Const': Could not satisfy explicit device specification '/gpu:11'
// HARD-NOT: error
func.func @eval() -> tensor<2xf32> {
  %k = gplace.constant dense<1.0> : tensor<2xf32> {device = "/gpu:11"}
  return %k : tensor<2xf32>
}
