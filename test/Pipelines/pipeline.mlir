// Tests --gplace-pipeline: the placement options reach placement, the copy
// and control-dependency passes run, and the result is a plan.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:2 policy=variables-on-cpu max-inflight-copies=1" | FileCheck %s
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:2 log-device-placement=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: not gplace-opt %s --gplace-pipeline="devices=cpu:1" 2>&1 | FileCheck %s --check-prefix=STRICT

// CHECK: module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:1">, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]}
// CHECK-DAG: gplan.device @cpu0
// CHECK-DAG: gplan.device @gpu1
// CHECK-LABEL: gplan.program @main
// CHECK: %[[W:.+]] = gplan.variable @cpu0 "w"
// CHECK-NOT: gplan.launch read
// CHECK: gplan.copy %[[W]] to @gpu1 stream 1
// CHECK: gplan.launch matmul({{.*}}) on @gpu1 stream 0
// CHECK: gplan.return
// CHECK-NOT: func.func
// LOG: w: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// STRICT: error: Cannot assign a device for operation 'MatMul': Could not satisfy explicit device specification '/gpu:1'
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = gplace.variable dense<1.0> : tensor<2x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<2x2xf32>>
  %y = gplace.matmul %x, %r {device = "/gpu:1"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
