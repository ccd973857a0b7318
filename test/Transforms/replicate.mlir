// Tests --gplace-replicate: the batch split on the host, one tower per
// replica pinned to its GPU and named tower_<i>/..., gplace.gradients
// cloned per tower, each gradient the towers' average on the host, the
// variable and its update once on the host, results concatenated (per
// example) or averaged (the loss).
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2 variables=host" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2" | FileCheck %s --check-prefix=MIRRORED

// CHECK-LABEL: func.func @train
// CHECK-DAG: %[[X0:.+]] = gplace.slice %arg0 begin = [0, 0] size = [2, 3] {device = "/device:CPU:0", name = "tower_0/split/arg0"}
// CHECK-DAG: %[[X1:.+]] = gplace.slice %arg0 begin = [2, 0] size = [2, 3] {device = "/device:CPU:0", name = "tower_1/split/arg0"}
// CHECK-DAG: %[[Y0:.+]] = gplace.slice %arg1 begin = [0, 0] size = [2, 2] {device = "/device:CPU:0", name = "tower_0/split/arg1"}
// CHECK: %[[W:.+]] = gplace.variable {{.*}}{device = "/device:CPU:0", name = "w"}
// CHECK: %[[R:.+]] = gplace.read %[[W]] {device = "/device:CPU:0"}
// CHECK: %[[P0:.+]] = gplace.matmul %[[X0]], %[[R]] {device = "/device:GPU:0", name = "tower_0/MatMul"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[P1:.+]] = gplace.matmul %[[X1]], %[[R]] {device = "/device:GPU:1", name = "tower_1/MatMul"}
// CHECK: gplace.sub %[[P0]], %[[Y0]] {device = "/device:GPU:0", name = "tower_0/sub"}
// CHECK: %[[L0:.+]] = gplace.reduce_mean {{.*}}name = "tower_0/Mean"
// CHECK: %[[L1:.+]] = gplace.reduce_mean {{.*}}name = "tower_1/Mean"
// CHECK: %[[G0:.+]] = gplace.gradients %[[L0]] wrt %[[R]]
// CHECK: %[[G1:.+]] = gplace.gradients %[[L1]] wrt %[[R]]
// CHECK: %[[SUM:.+]] = gplace.add_n %[[G0]], %[[G1]] {device = "/device:CPU:0", name = "average_gradients/0/AddN"}
// CHECK: %[[HALF:.+]] = gplace.constant dense<5.000000e-01> : tensor<f32> {device = "/device:CPU:0", name = "average_gradients/0/Const"}
// CHECK: %[[AVG:.+]] = gplace.mul %[[SUM]], %[[HALF]] {device = "/device:CPU:0", name = "average_gradients/0/mul"}
// CHECK: %[[U:.+]] = gplace.apply_gradient_descent %[[W]], %{{.+}}, %[[AVG]] {device = "/device:CPU:0"}
// CHECK: %[[I0:.+]] = gplace.identity %[[L0]] after(%[[U]]) {device = "/device:GPU:0", name = "tower_0/Identity"}
// CHECK: %[[I1:.+]] = gplace.identity %[[L1]] after(%[[U]]) {device = "/device:GPU:1", name = "tower_1/Identity"}
// CHECK: gplace.add_n %[[I0]], %[[I1]] {device = "/device:CPU:0", name = "average_results/0/AddN"}
// CHECK: %[[LOSS:.+]] = gplace.mul {{.*}}name = "average_results/0/mul"
// CHECK: %[[PRED:.+]] = gplace.concat %[[P0]], %[[P1]] axis = 0 {device = "/device:CPU:0", name = "concat_results/1"} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK: return %[[LOSS]], %[[PRED]]
// Mirrored: a copy of everything per replica (replica 0 keeps the names,
// each variable copy keeps the variable's), each gradient all-reduced, the
// update applied on every replica to its own copy.
// MIRRORED-LABEL: func.func @train
// MIRRORED-DAG: %[[X0:.+]] = gplace.slice %arg0 {{.*}}name = "replica_0/split/arg0"
// MIRRORED-DAG: %[[X1:.+]] = gplace.slice %arg0 {{.*}}name = "replica_1/split/arg0"
// MIRRORED: %[[W0:.+]] = gplace.variable {{.*}}{device = "/device:GPU:0", name = "w"}
// MIRRORED: %[[W1:.+]] = gplace.variable {{.*}}{device = "/device:GPU:1", name = "w"}
// MIRRORED: %[[R0:.+]] = gplace.read %[[W0]] {device = "/device:GPU:0", name = "ReadVariableOp"}
// MIRRORED: %[[R1:.+]] = gplace.read %[[W1]] {device = "/device:GPU:1", name = "replica_1/ReadVariableOp"}
// MIRRORED: gplace.matmul %[[X0]], %[[R0]] {device = "/device:GPU:0", name = "MatMul"}
// MIRRORED: gplace.matmul %[[X1]], %[[R1]] {device = "/device:GPU:1", name = "replica_1/MatMul"}
// MIRRORED: %[[G0:.+]] = gplace.gradients %{{.+}} wrt %[[R0]]
// MIRRORED: %[[G1:.+]] = gplace.gradients %{{.+}} wrt %[[R1]]
// MIRRORED: %[[AR:.+]]:2 = gplace.all_reduce %[[G0]], %[[G1]] reduction = "mean" devices = ["/device:GPU:0", "/device:GPU:1"] {name = "allreduce/0"}
// MIRRORED: gplace.apply_gradient_descent %[[W0]], %{{.+}}, %[[AR]]#0 {device = "/device:GPU:0", name = "ResourceApplyGradientDescent"}
// MIRRORED: gplace.apply_gradient_descent %[[W1]], %{{.+}}, %[[AR]]#1 {device = "/device:GPU:1", name = "replica_1/ResourceApplyGradientDescent"}
// MIRRORED: name = "average_results/0/mul"
// MIRRORED: gplace.concat {{.*}}name = "concat_results/1"
func.func @train(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) -> (tensor<f32>, tensor<4x2xf32>) {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = gplace.sub %p, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = gplace.square %d : tensor<4x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %l = gplace.identity %loss after(%u) : tensor<f32>
  return %l, %p : tensor<f32>, tensor<4x2xf32>
}

// -----

// An inference function (no gplace.gradients) is left alone.
// CHECK-LABEL: func.func @infer
// CHECK-NEXT: gplace.exp %arg0 : tensor<4xf32>
// CHECK-NEXT: return
// MIRRORED-LABEL: func.func @infer
// MIRRORED-NEXT: gplace.exp %arg0 : tensor<4xf32>
func.func @infer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = gplace.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// Mirrored, two gradients smaller than bucket-bytes: one all-reduce of the
// two flattened and concatenated (the last first), sliced back; with
// bucket-bytes=8 each has its own.
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2" | FileCheck %s --check-prefix=BUCKET
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=2 bucket-bytes=8" | FileCheck %s --check-prefix=APART
// BUCKET-LABEL: func.func @bucket
// BUCKET: %[[G0:.+]]:2 = gplace.gradients
// BUCKET: %[[G1:.+]]:2 = gplace.gradients
// BUCKET: %[[F0:.+]] = gplace.reshape %[[G0]]#0 {device = "/device:GPU:0", name = "allreduce/bucket_0/flatten_0"} : tensor<3x2xf32> -> tensor<6xf32>
// BUCKET: %[[C0:.+]] = gplace.concat %[[G0]]#1, %[[F0]] axis = 0 {device = "/device:GPU:0", name = "allreduce/bucket_0/concat"} : tensor<2xf32>, tensor<6xf32> -> tensor<8xf32>
// BUCKET: %[[C1:.+]] = gplace.concat {{.*}}name = "replica_1/allreduce/bucket_0/concat"
// BUCKET: %[[AR:.+]]:2 = gplace.all_reduce %[[C0]], %[[C1]] reduction = "mean" {{.*}}{name = "allreduce/bucket_0"} : tensor<8xf32>, tensor<8xf32>
// BUCKET: %[[B0:.+]] = gplace.slice %[[AR]]#0 begin = [0] size = [2] {device = "/device:GPU:0", name = "allreduce/bucket_0/slice_1"}
// BUCKET: %[[S0:.+]] = gplace.slice %[[AR]]#0 begin = [2] size = [6] {device = "/device:GPU:0", name = "allreduce/bucket_0/slice_0"}
// BUCKET: %[[W0:.+]] = gplace.reshape %[[S0]] {device = "/device:GPU:0", name = "allreduce/bucket_0/reshape_0"} : tensor<6xf32> -> tensor<3x2xf32>
// BUCKET: gplace.apply_gradient_descent %{{.+}}, %{{.+}}, %[[W0]] {device = "/device:GPU:0"
// BUCKET: gplace.apply_gradient_descent %{{.+}}, %{{.+}}, %[[B0]] {device = "/device:GPU:0"
// APART-LABEL: func.func @bucket
// APART: gplace.all_reduce {{.*}}{name = "allreduce/1"} : tensor<2xf32>, tensor<2xf32>
// APART: gplace.all_reduce {{.*}}{name = "allreduce/0"} : tensor<3x2xf32>, tensor<3x2xf32>
// One replica: its all-reduces are the identity, so no bucket gathers
// gradients into copies.
// RUN: gplace-opt %s --split-input-file --gplace-replicate="replicas=1" | FileCheck %s --check-prefix=ONE
// ONE-LABEL: func.func @bucket
// ONE-NOT: bucket
// ONE: gplace.all_reduce {{.*}}{name = "allreduce/1"} : tensor<2xf32>
// ONE-NOT: bucket
// ONE: gplace.all_reduce {{.*}}{name = "allreduce/0"} : tensor<3x2xf32>
// ONE-NOT: bucket
func.func @bucket(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "b"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %q = gplace.bias_add %p, %br : tensor<4x2xf32>, tensor<2xf32>
  %d = gplace.sub %q, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = gplace.square %d : tensor<4x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %gw, %gb = gplace.gradients %loss wrt %wr, %br : tensor<f32> wrt tensor<3x2xf32>, tensor<2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %gw : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %v = gplace.apply_gradient_descent %b, %lr, %gb : !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>
  %done = gplace.group %u, %v : !gplace.control, !gplace.control
  %l = gplace.identity %loss after(%done) : tensor<f32>
  return %l : tensor<f32>
}
