// Tests --gplace-replicate's choice of what to replicate and how: the
// replicas' devices (`devices`), the batch arguments (`batch-args`), the
// functions (`functions`, as strategy.run(fn)) and how results that are not
// per example combine (`reduce`, as strategy.reduce).

// The seeds' towers from one tower: no batch, every replica runs the whole
// function on its device, and the results are summed on the host as the
// seeds' tf.add_n (named AddN).
// RUN: gplace-opt %s --gplace-replicate="devices=/gpu:2,/gpu:3 reduce=sum functions=tower" | FileCheck %s --check-prefix=TOWER
// A replicated function is placed softly (as under MirroredStrategy).
// TOWER-LABEL: func.func @tower() -> tensor<2x2xf32> attributes {gplace.allow_soft_placement}
// TOWER: %[[A0:.+]] = gplace.constant {{.*}}{device = "/gpu:2", name = "Const"}
// TOWER: %[[A1:.+]] = gplace.constant {{.*}}{device = "/gpu:3", name = "replica_1/Const"}
// TOWER: %[[C0:.+]] = gplace.matmul %[[A0]], %{{.+}} {device = "/gpu:2", name = "MatMul"}
// TOWER: %[[C1:.+]] = gplace.matmul %[[A1]], %{{.+}} {device = "/gpu:3", name = "replica_1/MatMul"}
// TOWER: %[[S:.+]] = gplace.add_n %[[C0]], %[[C1]] {device = "/device:CPU:0", name = "AddN"}
// TOWER: return %[[S]]
// devices=/gpu:* is every GPU of the module's devices, in order.
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:3" --gplace-replicate="devices=/gpu:* reduce=sum functions=tower" | FileCheck %s --check-prefix=EVERY
// EVERY: gplace.matmul {{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "MatMul"
// EVERY: gplace.matmul {{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:1", name = "replica_1/MatMul"
// EVERY: gplace.matmul {{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:2", name = "replica_2/MatMul"
// EVERY: gplace.add_n {{.*}}name = "AddN"
// Without `functions`, a function that does not train is left alone,
// with its placement; a module where nothing trains gets a warning.
// RUN: gplace-opt %s --split-input-file --gplace-replicate="devices=/gpu:2,/gpu:3 reduce=sum batch-args=1" 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: warning: --gplace-replicate: no function computes gplace.gradients (trains), so nothing is replicated; its option functions=... names the functions to take
// ALONE-LABEL: func.func @tower() -> tensor<2x2xf32> {
// ALONE-NOT: replica_1
// ALONE: return
// ALONE-NOT: warning
func.func @tower() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// batch-args: only argument #1 is the batch; argument #0, of the same
// leading dimension, is given whole to every tower (host variables).
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2 variables=host batch-args=1" | FileCheck %s --check-prefix=ARGS
// ARGS-LABEL: func.func @train
// ARGS-NOT: split/arg0
// ARGS: gplace.slice %arg1 begin = [0, 0] size = [2, 3] {device = "/device:CPU:0", name = "tower_0/split/arg1"}
// ARGS: gplace.slice %arg1 begin = [2, 0] size = [2, 3] {device = "/device:CPU:0", name = "tower_1/split/arg1"}
// ARGS-NOT: split/arg0
// ARGS: gplace.matmul %{{.+}}, %{{.+}} {device = "/device:GPU:0", name = "tower_0/MatMul"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// By default both would be split (replicate-not-batch.mlir).
func.func @train(%m: tensor<4x4xf32>, %x: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x4xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x4xf32>>
  %p = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %q = gplace.matmul %p, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %loss = gplace.reduce_mean %q axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x4xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x4xf32>>, tensor<f32>, tensor<3x4xf32>
  %l = gplace.identity %loss after(%u) : tensor<f32>
  return %l : tensor<f32>
}
