// Tests soft placement (placer_test: TestNonexistentGpuAllowSoftPlacement,
// TestUnsupportedDeviceAllowSoftPlacement, TestPartialSpecGpuToCpu): a
// request that names no registered device, or a device type without a
// kernel, moves to a device of the same task with a kernel, GPU before CPU.
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true" --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true" | FileCheck %s

// CHECK-LABEL: func.func @nonexistentGpu
func.func @nonexistentGpu() {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/gpu:11"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:11"}
  // An int op asking for a missing GPU lands on the CPU.
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:11"
  %1 = gplace.constant dense<1> : tensor<i32> {device = "/gpu:11"}
  return
}

// Tests a device type gplace has no devices of (valid syntax): it yields
// like any unavailable device (placer_test's custom device types).
// CHECK-LABEL: func.func @customDeviceType
func.func @customDeviceType() {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/device:myspecialdevice:13"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:myspecialdevice:13"}
  return
}

// CHECK-LABEL: func.func @unsupportedDeviceType
func.func @unsupportedDeviceType(%x: tensor<2xf32>) {
  // CHECK: gplace.cast {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0"}
  %0 = gplace.cast %x {device = "/gpu:0"} : tensor<2xf32> to tensor<2xi32>
  // CHECK: gplace.add {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/device:GPU:*"}
  %1 = gplace.add %0, %0 {device = "/device:GPU:*"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// Tests the seeds' integer variable on /gpu:0: it and its read go to CPU:0.
// CHECK-LABEL: func.func @intVariableOnGpu
func.func @intVariableOnGpu() -> tensor<i32> {
  // CHECK: gplace.variable {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0"}
  %i = gplace.variable dense<3> : tensor<i32> {device = "/gpu:0"}
  // CHECK: gplace.read {{.*}}{assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %v = gplace.read %i : !gplace.resource<tensor<i32>>
  return %v : tensor<i32>
}

// Tests that soft placement keeps the task: only the type and id relax.
// CHECK-LABEL: func.func @softPlacementKeepsTask
func.func @softPlacementKeepsTask() {
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/job:localhost/task:0/device:GPU:5"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:localhost/task:0/device:GPU:5"}
  return
}
