// Tests colocation with resources (placer_test: TestResourceHandle,
// TestColocatedChain): a variable and every op that uses it, through
// identities, land on one device; a request on any member places the group.
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2" --gplace-place="devices=cpu:1,gpu:2" | FileCheck %s

// CHECK-LABEL: func.func @requestOnVariable
func.func @requestOnVariable(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/gpu:1"}
  // CHECK: gplace.assign {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %t = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  // CHECK: gplace.identity {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %i = gplace.identity %v : !gplace.resource<tensor<f32>>
  // CHECK: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %r = gplace.read %i after(%t) : !gplace.resource<tensor<f32>>
  // The value read is an ordinary tensor: its consumer goes by the default.
  // CHECK: gplace.neg {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %n = gplace.neg %r : tensor<f32>
  return %n : tensor<f32>
}

// CHECK-LABEL: func.func @requestOnUser
func.func @requestOnUser(%x: tensor<f32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %v = gplace.variable dense<0.0> : tensor<f32>
  // CHECK: gplace.assign_add {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %t = gplace.assign_add %v, %x {device = "/cpu:0"} : !gplace.resource<tensor<f32>>
  return
}

// Tests that compatible partial requests of members combine.
// CHECK-LABEL: func.func @partialRequestsCombine
func.func @partialRequestsCombine(%x: tensor<f32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/job:localhost"}
  // CHECK: gplace.assign_sub {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %t = gplace.assign_sub %v, %x {device = "/device:*:1"} : !gplace.resource<tensor<f32>>
  // CHECK: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %r = gplace.read %v {device = "/device:GPU"} : !gplace.resource<tensor<f32>>
  return
}

// Tests that a group waiting on a resource does not join its group.
// CHECK-LABEL: func.func @groupDoesNotColocate
func.func @groupDoesNotColocate() {
  %a = gplace.variable dense<0.0> : tensor<f32> {device = "/gpu:1"}
  %b = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0"}
  // CHECK: gplace.group {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %t = gplace.group %a, %b : !gplace.resource<tensor<f32>>, !gplace.resource<tensor<f32>>
  return
}

// Tests that a group without requests takes the device its kernels allow
// for every member: an i32 variable's group goes to the CPU.
// CHECK-LABEL: func.func @groupKernels
func.func @groupKernels(%x: tensor<2xi32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %v = gplace.variable dense<0> : tensor<2xi32>
  // CHECK: gplace.assign {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %t = gplace.assign %v, %x : !gplace.resource<tensor<2xi32>>
  return
}
