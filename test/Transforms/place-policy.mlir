// Tests callable placement policies: the built-ins, the per-function
// attribute, precedence (explicit request and device scope before the
// policy), and a policy loaded from a plugin.
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2 policy=variables-on-cpu" | FileCheck %s --check-prefix=VARCPU
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2 policy=round-robin-gpu" | FileCheck %s --check-prefix=ROUNDROBIN
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1 policy=round-robin-gpu allow-soft-placement=true" | FileCheck %s --check-prefix=NOGPU
// RUN: gplace-opt %s --split-input-file --gplace-load-policy=%plugins/libgplace-seed-policy.so --gplace-place="devices=cpu:1,gpu:2 policy=seed-variables-on-cpu" | FileCheck %s --check-prefix=SEED
// RUN: gplace-opt %s --split-input-file --gplace-load-policy=%plugins/libGPlaceTestPolicies.so --gplace-place="devices=cpu:1,gpu:2 policy=test-by-shape" | FileCheck %s --check-prefix=SHAPE

// VARCPU-LABEL: func.func @parameterServer
// ROUNDROBIN-LABEL: func.func @parameterServer
// NOGPU-LABEL: func.func @parameterServer
// SEED-LABEL: func.func @parameterServer
// SHAPE-LABEL: func.func @parameterServer
func.func @parameterServer(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // NOGPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // SEED: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // SHAPE: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %w0 = gplace.variable dense<1.0> : tensor<2x2xf32> {name = "w0"}
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  // SEED: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // SHAPE: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %w1 = gplace.variable dense<1.0> : tensor<f32> {name = "w1"}
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %w2 = gplace.variable dense<1.0> : tensor<2x2xf32> {name = "w2"}
  // Reads follow their variables (colocation).
  // VARCPU: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // ROUNDROBIN: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // SEED: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // SHAPE: gplace.read {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %r0 = gplace.read %w0 : !gplace.resource<tensor<2x2xf32>>
  // Everything else by the default rules (the seed's function: /gpu:0).
  // VARCPU: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // ROUNDROBIN: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // NOGPU: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // SEED: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // SHAPE: gplace.matmul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %y = gplace.matmul %x, %r0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // An explicit request beats the policy.
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:1"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:1"
  // SEED: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1", device = "/gpu:1"
  %w3 = gplace.variable dense<1.0> : tensor<f32> {device = "/gpu:1", name = "w3"}
  return %y : tensor<2x2xf32>
}

// -----

// Tests that the function's policy overrides the option, and that a device
// scope is a request the policy does not override.
// VARCPU-LABEL: func.func @functionPolicy
// ROUNDROBIN-LABEL: func.func @functionPolicy
func.func @functionPolicy() attributes {gplace.device_policy = "round-robin-gpu"} {
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %a = gplace.variable dense<1.0> : tensor<f32>
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  // ROUNDROBIN: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %b = gplace.variable dense<1.0> : tensor<f32>
  return
}

// VARCPU-LABEL: func.func @scopeBeatsPolicy
func.func @scopeBeatsPolicy() attributes {gplace.default_device = "/gpu:1"} {
  // VARCPU: gplace.variable {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:1"
  %a = gplace.variable dense<1.0> : tensor<f32>
  return
}
