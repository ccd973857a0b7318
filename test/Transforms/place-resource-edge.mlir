// Tests TensorFlow's rule across a resource edge
// (EnsureCompatibilityAcrossResourceEdge; placer_test:
// TestReferenceConnectionIgnoreInfeasible,
// TestReferenceConnectionMoreSpecificDestinationSourceWins,
// TestDeviceTypeConstraintsAllowSoftPlacement): an op that uses a resource
// and requests a device that conflicts with its resource's yields, with or
// without soft placement, and the placement log says so. Before, it was an
// error ("Cannot colocate nodes 'read' and 'w'").
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2 allow-soft-placement=true" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2 log-device-placement=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG

// LOG-LABEL: Device mapping:
// LOG:      w: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: read: (ReadVariableOp): /job:localhost/replica:0/task:0/device:GPU:0 (ignoring device specification '/gpu:1' because the input edge from 'w' is a resource edge and already has a device field set to '/device:GPU:0')
// LOG-NEXT: assign: (AssignVariableOp): /job:localhost/replica:0/task:0/device:GPU:0 (ignoring device specification '/cpu:0' because the input edge from 'w' is a resource edge and already has a device field set to '/device:GPU:0')

// CHECK-LABEL: func.func @readOnAnotherGpu
func.func @readOnAnotherGpu(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %w = gplace.variable dense<0.0> : tensor<f32> {device = "/gpu:0", name = "w"}
  // CHECK: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/gpu:1"
  %r = gplace.read %w {device = "/gpu:1", name = "read"} : !gplace.resource<tensor<f32>>
  // CHECK: gplace.assign {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/cpu:0"
  %t = gplace.assign %w, %x {device = "/cpu:0", name = "assign"} : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}

// -----

// Tests that a compatible, more specific request of a user combines with
// the resource's: the variable goes where the user asks.
// LOG-LABEL: Device mapping:
// LOG:      v: (VarHandleOp): /job:localhost/replica:0/task:0/device:CPU:0
// LOG-NEXT: assign: (AssignVariableOp): /job:localhost/replica:0/task:0/device:CPU:0{{$}}
// CHECK-LABEL: func.func @moreSpecificUserWins
func.func @moreSpecificUserWins(%x: tensor<f32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/job:localhost/replica:0/task:0", name = "v"}
  // CHECK: gplace.assign {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %t = gplace.assign %v, %x {device = "/cpu:0", name = "assign"} : !gplace.resource<tensor<f32>>
  return
}

// -----

// Tests that, through an identity of the resource, the first user's
// request places the group and a later conflicting one yields.
// LOG-LABEL: Device mapping:
// LOG:      a: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: Identity: (Identity): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: assign: (AssignVariableOp): /job:localhost/replica:0/task:0/device:GPU:0{{$}}
// LOG-NEXT: read: (ReadVariableOp): /job:localhost/replica:0/task:0/device:GPU:0 (ignoring device specification '/gpu:1' because the input edge from 'Identity' is a resource edge and already has a device field set to '/job:localhost/device:GPU:0')
// CHECK-LABEL: func.func @firstUserWins
func.func @firstUserWins(%x: tensor<f32>) -> tensor<f32> {
  // CHECK-COUNT-4: assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %a = gplace.variable dense<3.0> : tensor<f32> {device = "/job:localhost", name = "a"}
  %i = gplace.identity %a : !gplace.resource<tensor<f32>>
  %t = gplace.assign %i, %x {device = "/gpu:0", name = "assign"} : !gplace.resource<tensor<f32>>
  %r = gplace.read %i {device = "/gpu:1", name = "read"} : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}
