// Tests a user's request that conflicts with the device a policy gave its
// resource: as across any resource edge (place-resource-edge.mlir), the
// request yields to the resource's, and the log says the device came from
// the resource (before, it was an error naming the policy).
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=variables-on-cpu" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=variables-on-cpu log-device-placement=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG

// LOG: v1: (VarHandleOp): /job:localhost/replica:0/task:0/device:CPU:0
// LOG-NEXT: ReadVariableOp: (ReadVariableOp): /job:localhost/replica:0/task:0/device:CPU:0 (ignoring device specification '/gpu:0' because the input edge from 'v1' is a resource edge and already has a device field set to '/device:CPU:0')

// CHECK-LABEL: func.func @main
func.func @main() -> tensor<2xf32> {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %v1 = gplace.variable dense<1.0> : tensor<2xf32> {name = "v1"}
  // CHECK: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0"
  %r1 = gplace.read %v1 {device = "/gpu:0"} : !gplace.resource<tensor<2xf32>>
  return %r1 : tensor<2xf32>
}
