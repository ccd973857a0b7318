// Tests a gplace.if without results: its launch returns a token, as every
// step of a plan must write a buffer or return one (it was a launch of
// neither, which the plan's verifier refused), and it runs.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1" | FileCheck %s
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1" | gplace-opt | FileCheck %s
// RUN: gplace-run %s --input=i1=true --emulate-gpus=1 | FileCheck %s --check-prefix=OUT
// RUN: gplace-run %s --input=i1=false | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: gplan.program @main
// CHECK: gplan.launch if(%{{.*}}) on @cpu0 {{.*}}attributes {else_branch = @"main/if0/else", then_branch = @"main/if0/then"} : (!gplan.buffer<i1>) -> !gplan.token
// OUT: result[0]: f32=1
func.func @main(%c: tensor<i1>) -> tensor<f32> {
  %v = gplace.variable dense<1.0> : tensor<f32> {name = "v"}
  gplace.if %c : tensor<i1> then {
    %k = gplace.constant dense<2.0> : tensor<f32>
    gplace.yield
  } else {
    gplace.yield
  }
  %r = gplace.read %v : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}
