// Tests that --gplace-verify-devices accepts every device spelling of
// SPEC §1.1 and leaves the IR unchanged.
// RUN: gplace-opt %s --gplace-verify-devices | FileCheck %s
// RUN: gplace-opt %s --gplace-verify-devices --gplace-verify-devices | FileCheck %s

// CHECK-LABEL: func.func @everySpelling
func.func @everySpelling() attributes {gplace.default_device = "/job:localhost/replica:0/task:0"} {
  // CHECK: device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:localhost/replica:0/task:0/device:GPU:1"}
  // CHECK: device = "/device:GPU:2"
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:GPU:2"}
  // CHECK: device = "/device:gpu:1"
  %2 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:gpu:1"}
  // CHECK: device = "/device:CPU"
  %3 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:CPU"}
  // CHECK: device = "/gpu:1"
  %4 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:1"}
  // CHECK: device = "/GPU:1"
  %5 = gplace.constant dense<1.0> : tensor<f32> {device = "/GPU:1"}
  // CHECK: device = "/cpu:0"
  %6 = gplace.constant dense<1.0> : tensor<f32> {device = "/cpu:0"}
  // CHECK: device = "GPU:1"
  %7 = gplace.constant dense<1.0> : tensor<f32> {device = "GPU:1"}
  // CHECK: device = "gpu:1"
  %8 = gplace.constant dense<1.0> : tensor<f32> {device = "gpu:1"}
  // CHECK: device = "CPU:0"
  %9 = gplace.constant dense<1.0> : tensor<f32> {device = "CPU:0"}
  // CHECK: device = "/gpu:*"
  %10 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:*"}
  // CHECK: device = "/job:*"
  %11 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:*"}
  // CHECK: device = "/job:worker"
  %12 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:worker"}
  // CHECK: device = "/task:1/device:GPU:0/replica:0"
  %13 = gplace.constant dense<1.0> : tensor<f32> {device = "/task:1/device:GPU:0/replica:0"}
  // CHECK: device = ""
  %14 = gplace.constant dense<1.0> : tensor<f32> {device = ""}
  // CHECK: assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %15 = gplace.constant dense<1.0> : tensor<f32> {device = "/cpu:0", assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  return
}

// CHECK-LABEL: func.func @localDefaultDevice
func.func @localDefaultDevice() attributes {gplace.default_device = "gpu:0"} {
  return
}
