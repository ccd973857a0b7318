// Tests that a placement policy places a colocation group as a unit
// (R3-2/7): round-robin-gpu gives each primary variable the next GPU, and
// its optimizer slots (Momentum's accumulator, Adam's m and v), colocated
// with it through the optimizer's apply op, go with it. TensorFlow creates
// slot variables in colocate_with(primary), where device functions do not
// apply. Before, the policy gave 'w/Momentum' the next GPU and placement
// failed with "Cannot colocate nodes 'w/Momentum' and 'w'".
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=round-robin-gpu" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=round-robin-gpu log-device-placement=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=variables-on-cpu" | FileCheck %s --check-prefix=VARCPU

// LOG:      w: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: w/Momentum: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: b: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-NEXT: b/Momentum: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-NEXT: v: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: v/Adam: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: v/Adam_1: (VarHandleOp): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: ResourceApplyMomentum: (ResourceApplyMomentum): /job:localhost/replica:0/task:0/device:GPU:0
// LOG-NEXT: ResourceApplyMomentum_1: (ResourceApplyMomentum): /job:localhost/replica:0/task:0/device:GPU:1
// LOG-NEXT: ResourceApplyAdam: (ResourceApplyAdam): /job:localhost/replica:0/task:0/device:GPU:0

// CHECK-LABEL: func.func @train
// VARCPU-LABEL: func.func @train
func.func @train(%g: tensor<2xf32>, %lr: tensor<f32>, %mom: tensor<f32>, %b1p: tensor<f32>, %b2p: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w"
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", name = "w"
  %w = gplace.variable dense<1.0> : tensor<2xf32> {name = "w"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "w/Momentum"
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", name = "w/Momentum"
  %w_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "w/Momentum"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "b"
  %b = gplace.variable dense<1.0> : tensor<2xf32> {name = "b"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "b/Momentum"
  %b_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "b/Momentum"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "v"
  %v = gplace.variable dense<1.0> : tensor<2xf32> {name = "v"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "v/Adam"
  %v_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "v/Adam"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "v/Adam_1"
  %v_v = gplace.variable dense<0.0> : tensor<2xf32> {name = "v/Adam_1"}
  // CHECK: gplace.apply_momentum {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %u1 = gplace.apply_momentum %w, %w_m, %lr, %g, %mom : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  // CHECK: gplace.apply_momentum {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %u2 = gplace.apply_momentum %b, %b_m, %lr, %g, %mom : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  // CHECK: gplace.apply_adam {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %u3 = gplace.apply_adam %v, %v_m, %v_v, %b1p, %b2p, %lr, %beta1, %beta2, %eps, %g : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<2xf32>
  return
}

// Tests that a variable with a request of its own pins its group: its slot
// is not given the policy's answer.
// CHECK-LABEL: func.func @pinnedPrimary
func.func @pinnedPrimary(%g: tensor<2xf32>, %lr: tensor<f32>, %mom: tensor<f32>) {
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %w = gplace.variable dense<1.0> : tensor<2xf32> {device = "/gpu:1", name = "w"}
  // CHECK: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "w/Momentum"
  %w_m = gplace.variable dense<0.0> : tensor<2xf32> {name = "w/Momentum"}
  %u = gplace.apply_momentum %w, %w_m, %lr, %g, %mom : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  return
}
