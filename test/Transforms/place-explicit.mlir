// Tests explicit device requests (TensorFlow placer_test: TestExplicitDevice,
// TestPartialSpec): full and partial specifications in every spelling, the
// function's device scope, and that `device` stays as written.
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:4" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:4" --gplace-place="devices=cpu:1,gpu:4" | FileCheck %s

// CHECK-LABEL: func.func @explicitSpellings
func.func @explicitSpellings() {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:1", name = "gpu1"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:1", name = "gpu1"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:3"{{.*}}device = "/device:GPU:3"
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:GPU:3"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"{{.*}}device = "GPU:2"
  %2 = gplace.constant dense<1.0> : tensor<f32> {device = "GPU:2"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"{{.*}}device = "/cpu:0"
  %3 = gplace.constant dense<1.0> : tensor<f32> {device = "/cpu:0"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %4 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  return
}

// Tests that a partial specification picks the first matching device by
// priority: GPU before CPU, lowest id first.
// CHECK-LABEL: func.func @partialSpecs
func.func @partialSpecs() {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"{{.*}}device = "/gpu:*"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:*"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"{{.*}}device = "/job:localhost"
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:localhost"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"{{.*}}device = "/device:CPU"
  %2 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:CPU"}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"{{.*}}device = "/task:0/device:*:2"
  %3 = gplace.constant dense<1.0> : tensor<f32> {device = "/task:0/device:*:2"}
  return
}

// Tests that the function's device scope applies to every op and that the
// op's own request wins field by field.
// CHECK-LABEL: func.func @deviceScope
func.func @deviceScope() attributes {gplace.default_device = "/cpu:0"} {
  // CHECK: gplace.constant {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %0 = gplace.constant dense<1.0> : tensor<f32>
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:3"{{.*}}device = "/gpu:3"
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:3"}
  // CHECK: gplace.add {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %2 = gplace.add %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @deviceScopeKeepsTask
func.func @deviceScopeKeepsTask() attributes {gplace.default_device = "/job:localhost/task:0"} {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"{{.*}}device = "/gpu:1"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:1"}
  // CHECK: gplace.neg {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  %1 = gplace.neg %0 : tensor<f32>
  return
}

// Tests that a valid assigned device is kept, as TensorFlow's placer keeps
// a node's assigned device (it was recomputed: GPU:0 here), and that it
// places the op's colocation group.
// CHECK-LABEL: func.func @assignedDeviceKept
func.func @assignedDeviceKept(%x: tensor<f32>) {
  // CHECK: gplace.neg {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:3"}
  %0 = gplace.neg %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:3"} : tensor<f32>
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"
  %v = gplace.variable dense<1.0> : tensor<f32>
  // CHECK: gplace.read {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"}
  %r = gplace.read %v {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"} : !gplace.resource<tensor<f32>>
  return
}
