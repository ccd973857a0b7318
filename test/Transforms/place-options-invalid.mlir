// Tests that bad --gplace-place options are reported before the IR is
// touched, and that the pass fails.
// RUN: not gplace-opt %s --gplace-place="devices=tpu:1" 2>&1 | FileCheck %s --check-prefix=DEVICES
// DEVICES: <unknown>:0: error: gplace-place: invalid device list 'tpu:1': unknown device type 'tpu' (known types: CPU, GPU)
// RUN: not gplace-opt %s --gplace-place="devices=cpu:0" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: <unknown>:0: error: gplace-place: No devices are registered (the device list is empty)
// RUN: not gplace-opt %s --gplace-place="devices=/gpu:0" 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: <unknown>:0: error: gplace-place: invalid device list '/gpu:0': '/gpu:0' is not a full device name
// RUN: not gplace-opt %s --gplace-place="policy=nope" 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: <unknown>:0: error: unknown placement policy 'nope'; known policies: auto, idle-gpu, round-robin-gpu, variables-on-cpu
// RUN: not gplace-opt %s --gplace-place 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: place-options-invalid.mlir:[[@LINE+3]]:1: error: unknown placement policy 'everything-on-tpu'; known policies: auto, idle-gpu, round-robin-gpu, variables-on-cpu
// RUN: not gplace-opt %s --gplace-place="devices=gpu:1" 2>&1 | FileCheck %s --check-prefix=NOCPU
// NOCPU: place-options-invalid.mlir:[[@LINE+5]]:8: error: Cannot assign a device for operation 'Cast': No OpKernel was registered to support Op 'Cast' used by node 'Cast' with these attrs: [T=i32]; registered devices: [GPU]; registered kernels: device='CPU'{{$}}
func.func @f() attributes {gplace.device_policy = "everything-on-tpu"} {
  return
}
func.func @g(%x: tensor<2xf32>) {
  %0 = gplace.cast %x : tensor<2xf32> to tensor<2xi32>
  return
}
