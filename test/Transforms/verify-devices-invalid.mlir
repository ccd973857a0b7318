// Tests that --gplace-verify-devices reports every bad device string at its
// op's location, naming the string and the offending part, and fails.
// RUN: gplace-opt %s --gplace-verify-devices -verify-diagnostics
// RUN: not gplace-opt %s --gplace-verify-devices 2>&1 | FileCheck %s

func.func @badRequests() {
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer
  // expected-error @+1 {{device: Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:x"}
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/job:/task:1': job name is empty
  // expected-error @+1 {{Malformed device specification '/job:/task:1': job name is empty}}
  %1 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:/task:1"}
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/device:1pu:0': device type '1pu' must start with a letter and contain only letters, digits and '_'
  // expected-error @+1 {{Malformed device specification '/device:1pu:0': device type '1pu' must start with a letter and contain only letters, digits and '_'}}
  %2 = gplace.constant dense<1.0> : tensor<f32> {device = "/device:1pu:0"}
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/job:123': job name '123' must start with a letter and contain only letters, digits and '_'
  // expected-error @+1 {{Malformed device specification '/job:123': job name '123' must start with a letter and contain only letters, digits and '_'}}
  %3 = gplace.constant dense<1.0> : tensor<f32> {device = "/job:123"}
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/task:-1/cpu:0': task '-1' is not a non-negative integer
  // expected-error @+1 {{Malformed device specification '/task:-1/cpu:0': task '-1' is not a non-negative integer}}
  %4 = gplace.constant dense<1.0> : tensor<f32> {device = "/task:-1/cpu:0"}
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: device: Malformed device specification '/gpu:0/cpu:0': two device types: 'GPU' and 'CPU'
  // expected-error @+1 {{Malformed device specification '/gpu:0/cpu:0': two device types: 'GPU' and 'CPU'}}
  %5 = gplace.add %0, %0 {device = "/gpu:0/cpu:0"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // expected-error @+1 {{Malformed device specification '/foo:1': unknown field 'foo'}}
  %6 = gplace.group %0 {device = "/foo:1"} : tensor<f32>
  return
}

// Tests that an assigned device must be a full name.
func.func @partialAssignedDevice() {
  // CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:8: error: assigned_device: '/gpu:0' is not a full device name (/job:NAME/replica:N/task:N/device:TYPE:N)
  // expected-error @+1 {{assigned_device: '/gpu:0' is not a full device name (/job:NAME/replica:N/task:N/device:TYPE:N)}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {assigned_device = "/gpu:0"}
  // expected-error @+1 {{assigned_device: Malformed device specification '/gpu:y': device id 'y' is not a non-negative integer}}
  %1 = gplace.constant dense<1.0> : tensor<f32> {assigned_device = "/gpu:y"}
  return
}

// Tests that the function's device scope is checked at the function.
// CHECK: verify-devices-invalid.mlir:[[@LINE+2]]:1: error: gplace.default_device: Malformed device specification '/gpu:0/gpu:1': conflicting values for the device id: '0' and '1'
// expected-error @+1 {{gplace.default_device: Malformed device specification '/gpu:0/gpu:1': conflicting values for the device id: '0' and '1'}}
func.func @badDefaultDevice() attributes {gplace.default_device = "/gpu:0/gpu:1"} {
  return
}
