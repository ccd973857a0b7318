// Tests the lowering of run-time control flow (docs/runtime.md#control-flow):
// each region becomes a program of its own, placed and memory-planned on
// its own (the then branch's neg on the GPU, with its copy), and the If a
// launch of the `if` kernel on the CPU naming the programs (after
// `attributes`, so that the printed plan parses back and verifies: the
// second run reads it again).
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1" | FileCheck %s
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1" | gplace-opt | FileCheck %s

// CHECK-LABEL: gplan.program @main
// CHECK: %[[C:.*]] = gplan.input 0 : !gplan.buffer<i1>
// CHECK: %[[X:.*]] = gplan.input 1 : !gplan.buffer<2xf32>
// CHECK: %[[R:.*]] = gplan.launch if(%[[C]], %[[X]]) on @cpu0 stream 0 name "choose" attributes {else_branch = @"main/choose/else", then_branch = @"main/choose/then"} : (!gplan.buffer<i1>, !gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
// CHECK: gplan.return %[[R]]
// CHECK-LABEL: gplan.program @"main/choose/then"
// CHECK: gplan.arena @gpu0 bytes 128 offsets [0, 64]
// CHECK: gplan.copy %{{.*}} to @gpu0 stream 1
// CHECK: gplan.launch neg(%{{.*}}) on @gpu0 stream 0
// CHECK-LABEL: gplan.program @"main/choose/else"
// CHECK-NEXT: %[[A:.*]] = gplan.input 0
// CHECK-NEXT: gplan.return %[[A]]
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %n = gplace.neg %a {name = "negate"} : tensor<2xf32>
    gplace.yield %n : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {name = "choose"}
  return %r : tensor<2xf32>
}
