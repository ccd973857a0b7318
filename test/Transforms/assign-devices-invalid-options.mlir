// Tests that a bad device list is one line at the module, not a note
// with the whole module printed.
// RUN: not gplace-opt %s --gplace-assign-devices="devices=tpu:1" 2>&1 | FileCheck %s
// RUN: not gplace-opt %s --gplace-pipeline="devices=tpu:1" 2>&1 | FileCheck %s
// CHECK: error: gplace-assign-devices: invalid device list 'tpu:1': unknown device type 'tpu' (known types: CPU, GPU)
// CHECK-NOT: note: see current operation
// A list of no devices (every count 0) too, as --gplace-place says it.
// RUN: not gplace-opt %s --gplace-assign-devices="devices=cpu:0" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not gplace-opt %s --gplace-pipeline="devices=cpu:0,gpu:0" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: <unknown>:0: error: gplace-assign-devices: No devices are registered (the device list is empty)
// EMPTY-NOT: note: see current operation
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = gplace.exp %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
