// Tests that bad --gplace-place options are reported before the IR is
// touched, and that the pass fails.
// RUN: not gplace-opt %s --gplace-place="devices=tpu:1" 2>&1 | FileCheck %s --check-prefix=DEVICES
// DEVICES: error: gplace-place: invalid device list 'tpu:1': unknown device type 'tpu' (known types: CPU, GPU)
// RUN: not gplace-opt %s --gplace-place="devices=cpu:0" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: gplace-place: there are no devices to place on
// RUN: not gplace-opt %s --gplace-place="devices=/gpu:0" 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: gplace-place: invalid device list '/gpu:0': '/gpu:0' is not a full device name
// RUN: not gplace-opt %s --gplace-place="policy=nope" 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: place-options-invalid.mlir:0:0: error: unknown placement policy 'nope'; known policies: idle-gpu, round-robin-gpu, variables-on-cpu
// RUN: not gplace-opt %s --gplace-place 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: place-options-invalid.mlir:[[@LINE+3]]:1: error: unknown placement policy 'everything-on-tpu'; known policies: idle-gpu, round-robin-gpu, variables-on-cpu
// RUN: not gplace-opt %s --gplace-place="devices=gpu:1" 2>&1 | FileCheck %s --check-prefix=NOCPU
// NOCPU: place-options-invalid.mlir:[[@LINE+5]]:8: error: Cannot assign a device for operation 'Cast': no registered device can run it (Cast 'Cast' with element type i32 has kernels for CPU only); available devices: /job:localhost/replica:0/task:0/device:GPU:0
func.func @f() attributes {gplace.device_policy = "everything-on-tpu"} {
  return
}
func.func @g(%x: tensor<2xf32>) {
  %0 = gplace.cast %x : tensor<2xf32> to tensor<2xi32>
  return
}
