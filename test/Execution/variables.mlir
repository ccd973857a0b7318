// Tests that variables keep their values across --iterations and that
// stateful ops on one variable run in program order.
// RUN: gplace-run %s --input=f32=2 | FileCheck %s --check-prefix=ONCE
// RUN: gplace-run %s --input=f32=2 --iterations=3 | FileCheck %s --check-prefix=THRICE
// RUN: gplace-run %s --input=f32=2 --iterations=3 --emulate-gpus=2 --policy=round-robin-gpu | FileCheck %s --check-prefix=THRICE

// ONCE: result[0]: f32=0
// ONCE-NEXT: result[1]: f32=2
// ONCE-NEXT: result[2]: f32=-1
// THRICE: result[0]: f32=4
// THRICE-NEXT: result[1]: f32=6
// THRICE-NEXT: result[2]: f32=-3
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v = gplace.variable dense<0.0> : tensor<f32> {name = "v"}
  %w = gplace.variable dense<0.0> : tensor<f32> {name = "w"}
  %before = gplace.read %v : !gplace.resource<tensor<f32>>
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  %after = gplace.read %v : !gplace.resource<tensor<f32>>
  %one = gplace.constant dense<1.0> : tensor<f32>
  %u = gplace.assign_sub %w, %one : !gplace.resource<tensor<f32>>
  %wv = gplace.read %w : !gplace.resource<tensor<f32>>
  return %before, %after, %wv : tensor<f32>, tensor<f32>, tensor<f32>
}
