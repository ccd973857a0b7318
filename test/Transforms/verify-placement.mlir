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

// -----

// Variables that share a name are the copies of one mirrored variable: on
// distinct devices, with one type and initial value.
func.func @mirroredCopies() {
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  %b = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w"}
  // Copies requested on two devices and soft-placed on one (an i64 step
  // counter of two replicas, on the CPU).
  %c = gplace.variable dense<0> : tensor<i64> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0", name = "step"}
  %d = gplace.variable dense<0> : tensor<i64> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:1", name = "step"}
  return
}

// -----

func.func @variableTwiceOnOneDevice() {
  // expected-note @+1 {{declared earlier here}}
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  // expected-error @+1 {{variable 'w' is declared twice, on the same device: variables need distinct names (only the copies of a mirrored variable, one per device, share one)}}
  %b = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  return
}

// -----

func.func @variableTwiceRequestedTwoWays() {
  // Two spellings of the CPU, or a request and none: one device.
  // expected-note @+1 {{declared earlier here}}
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/cpu:0", name = "w"}
  // expected-error @+1 {{variable 'w' is declared twice, on the same device}}
  %b = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", name = "w"}
  return
}

// -----

func.func @thirdCopyOnTheSecondsDevice() {
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  // expected-note @+1 {{declared earlier here}}
  %b = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w"}
  // expected-error @+1 {{variable 'w' is declared twice, on the same device}}
  %c = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w"}
  return
}

// -----

func.func @variableTwiceWithOtherType() {
  // expected-note @+1 {{declared earlier here}}
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  // expected-error @+1 {{variable 'w' is declared twice, with another type}}
  %b = gplace.variable dense<1.0> : tensor<2xf32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w"}
  return
}

// -----

func.func @variableTwiceWithOtherValue() {
  // expected-note @+1 {{declared earlier here}}
  %a = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  // expected-error @+1 {{variable 'w' is declared twice, with another initial value}}
  %b = gplace.variable dense<2.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w"}
  // A constant and a variable of one function may share a name, and so may
  // variables of two functions (an initialiser's and the model's).
  %c = gplace.constant dense<2.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  return
}

func.func @otherFunction() {
  %a = gplace.variable dense<3.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"}
  return
}
