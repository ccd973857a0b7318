// Tests --gplace-verify-placement: it accepts what --gplace-place produces
// and reports ops without a full assigned device, ops on a device type
// without a kernel, and resource users away from their resource.
// Placement fixes the first case; it keeps or reports the assigned devices
// of the others (place-invalid.mlir).
// RUN: not gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:1" --gplace-verify-placement 2>/dev/null | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-verify-placement -verify-diagnostics

// CHECK-LABEL: func.func @placed
// CHECK: gplace.neg {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
// CHECK-NOT: func.func
func.func @placed(%x: tensor<2xi32>) {
  // expected-error @+1 {{op has no valid assigned device; run --gplace-place first}}
  %0 = gplace.neg %x : tensor<2xi32>
  return
}

// -----

func.func @partialAssignedDevice(%x: tensor<2xi32>) {
  // expected-error @+1 {{op has no valid assigned device ('/gpu:0'); run --gplace-place first}}
  %0 = gplace.neg %x {assigned_device = "/gpu:0"} : tensor<2xi32>
  return
}

// -----

func.func @noKernel(%x: tensor<2xi32>) {
  // expected-error @+1 {{op is assigned to '/job:localhost/replica:0/task:0/device:GPU:0', but GPU has no kernel for gplace.neg with element type i32}}
  %0 = gplace.neg %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xi32>
  return
}

// -----

func.func @resourceElsewhere() {
  %v = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  // expected-error @+1 {{op is assigned to '/job:localhost/replica:0/task:0/device:CPU:0', but the resource it uses is on '/job:localhost/replica:0/task:0/device:GPU:0'}}
  %r = gplace.read %v {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : !gplace.resource<tensor<f32>>
  return
}
