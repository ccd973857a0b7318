// Tests a training step with Momentum and Adam under the round-robin-gpu
// policy on two emulated GPUs (R3-2/7): each variable's slots go with it,
// so the step runs (before, every such step failed with "Cannot colocate
// nodes 'w/Momentum' and 'w'"), and the updates are TensorFlow's.
// RUN: gplace-run %s --input=2xf32=1,2 --iterations=2 --emulate-gpus=2 --policy=round-robin-gpu | FileCheck %s
// RUN: gplace-run %s --input=2xf32=1,2 --emulate-gpus=2 --policy=round-robin-gpu --log-device-placement 2>&1 >/dev/null | FileCheck %s --check-prefix=LOG

// Momentum, lr 0.5, momentum 0.9, gradient g = [1, 2]: accum = g, then
// 1.9 g; w = 1 - 0.5 g - 0.95 g.
// CHECK: result[0]: 2xf32=[-0.45, -1.9]
// Adam moves each element by about lr per step, against the gradient's sign.
// CHECK-NEXT: result[1]: 2xf32=[-0.1719{{[0-9]*}}, -0.1719{{[0-9]*}}]

// LOG-DAG: w: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-DAG: w/Momentum: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-DAG: v: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-DAG: v/Adam: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-DAG: v/Adam_1: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
func.func @main(%g: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = gplace.variable dense<1.0> : tensor<2xf32> {name = "w"}
  %w_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "w/Momentum"}
  %v = gplace.variable dense<1.0> : tensor<2xf32> {name = "v"}
  %v_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "v/Adam"}
  %v_v = gplace.variable dense<0.0> : tensor<2xf32> {name = "v/Adam_1"}
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %mom = gplace.constant dense<0.9> : tensor<f32>
  %b1p = gplace.constant dense<0.9> : tensor<f32>
  %b2p = gplace.constant dense<0.999> : tensor<f32>
  %beta1 = gplace.constant dense<0.9> : tensor<f32>
  %beta2 = gplace.constant dense<0.999> : tensor<f32>
  %eps = gplace.constant dense<1.0e-7> : tensor<f32>
  %u1 = gplace.apply_momentum %w, %w_m, %lr, %g, %mom : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  %u2 = gplace.apply_adam %v, %v_m, %v_v, %b1p, %b2p, %lr, %beta1, %beta2, %eps, %g : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<2xf32>
  %done = gplace.group %u1, %u2 : !gplace.control, !gplace.control
  %wr = gplace.read %w after(%done) : !gplace.resource<tensor<2xf32>>
  %vr = gplace.read %v after(%done) : !gplace.resource<tensor<2xf32>>
  return %wr, %vr : tensor<2xf32>, tensor<2xf32>
}
