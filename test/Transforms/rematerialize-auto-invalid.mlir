// --gplace-rematerialize="auto=true" needs the module's devices (their
// memory limits), and a profile that can be read.
// RUN: not gplace-opt %s --gplace-rematerialize="auto=true" 2>&1 | FileCheck %s
// CHECK: error: --gplace-rematerialize auto=true needs the module's devices and their memory limits (gplace.devices; run --gplace-assign-devices and --gplace-place first)
// RUN: not gplace-opt %s --gplace-assign-devices="devices=cpu:1" --gplace-rematerialize="auto=true profile=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: error: --gplace-rematerialize: cannot read profile '{{.*}}missing.json'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
