// Tests that device lists are in TensorFlow's type priority, then in
// numeric id order (GPU:2 before GPU:10; TensorFlow sorts names as
// strings): the available devices of an error, the log's device mapping
// and the round-robin policy's order.
// RUN: not gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:11" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=gpu:11,cpu:1 policy=round-robin-gpu log-device-placement=true allow-soft-placement=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG

// ERROR: error: Cannot assign a device for operation 'Const': {{.*}} but available devices are [ /job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:GPU:1, /job:localhost/replica:0/task:0/device:GPU:2, /job:localhost/replica:0/task:0/device:GPU:3, /job:localhost/replica:0/task:0/device:GPU:4, /job:localhost/replica:0/task:0/device:GPU:5, /job:localhost/replica:0/task:0/device:GPU:6, /job:localhost/replica:0/task:0/device:GPU:7, /job:localhost/replica:0/task:0/device:GPU:8, /job:localhost/replica:0/task:0/device:GPU:9, /job:localhost/replica:0/task:0/device:GPU:10, /job:localhost/replica:0/task:0/device:CPU:0 ]

// LOG:      Device mapping:
// LOG-NEXT: /job:localhost/replica:0/task:0/device:GPU:0 -> device: 0,
// LOG-NEXT: /job:localhost/replica:0/task:0/device:GPU:1 -> device: 1,
// LOG-NEXT: /job:localhost/replica:0/task:0/device:GPU:2 -> device: 2,
// LOG:      /job:localhost/replica:0/task:0/device:GPU:9 -> device: 9,
// LOG-NEXT: /job:localhost/replica:0/task:0/device:GPU:10 -> device: 10,
// LOG-NEXT: Const: (Const): /job:localhost/replica:0/task:0/device:GPU:0 (soft placement: requested '/gpu:11'
// LOG-NEXT: v0: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: v1: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-NEXT: v2: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:2
// LOG:      v9: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:9
// LOG-NEXT: v10: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:10
// LOG-NEXT: v11: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
func.func @main() {
  %c = gplace.constant dense<1.0> : tensor<f32> {device = "/gpu:11"}
  %v0 = gplace.variable dense<1.0> : tensor<f32> {name = "v0"}
  %v1 = gplace.variable dense<1.0> : tensor<f32> {name = "v1"}
  %v2 = gplace.variable dense<1.0> : tensor<f32> {name = "v2"}
  %v3 = gplace.variable dense<1.0> : tensor<f32> {name = "v3"}
  %v4 = gplace.variable dense<1.0> : tensor<f32> {name = "v4"}
  %v5 = gplace.variable dense<1.0> : tensor<f32> {name = "v5"}
  %v6 = gplace.variable dense<1.0> : tensor<f32> {name = "v6"}
  %v7 = gplace.variable dense<1.0> : tensor<f32> {name = "v7"}
  %v8 = gplace.variable dense<1.0> : tensor<f32> {name = "v8"}
  %v9 = gplace.variable dense<1.0> : tensor<f32> {name = "v9"}
  %v10 = gplace.variable dense<1.0> : tensor<f32> {name = "v10"}
  %v11 = gplace.variable dense<1.0> : tensor<f32> {name = "v11"}
  return
}
