// Tests --gplace-accumulate-gradients: the batch cut into micro-batches
// named micro_batch_<i>/..., each slice after the previous micro-batch's
// gradients (one micro-batch's activations live at a time), the gradients
// summed as they come and divided by the number of micro-batches, one
// optimizer update, the loss averaged; device requests kept, the
// variable and its update once.
// RUN: gplace-opt %s --split-input-file --gplace-accumulate-gradients="steps=2" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-accumulate-gradients="steps=1" | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @train
// CHECK: %[[W:.+]] = gplace.variable {{.*}}name = "w"}
// CHECK: %[[R:.+]] = gplace.read %[[W]] :
// CHECK: %[[X0:.+]] = gplace.slice %arg0 begin = [0, 0] size = [2, 3] {name = "micro_batch_0/split/arg0"}
// CHECK: %[[Y0:.+]] = gplace.slice %arg1 begin = [0, 0] size = [2, 2] {name = "micro_batch_0/split/arg1"}
// CHECK: %[[P0:.+]] = gplace.matmul %[[X0]], %[[R]] {device = "/gpu:0", name = "micro_batch_0/MatMul"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[L0:.+]] = gplace.reduce_mean {{.*}}name = "micro_batch_0/Mean"
// CHECK: %[[G0:.+]] = gplace.gradients %[[L0]] wrt %[[R]]
// CHECK: %[[DONE:.+]] = gplace.group %[[G0]] {name = "micro_batch_0/done"}
// CHECK: %[[X1:.+]] = gplace.slice %arg0 begin = [2, 0] size = [2, 3] after(%[[DONE]]) {name = "micro_batch_1/split/arg0"}
// CHECK: gplace.matmul %[[X1]], %[[R]] {device = "/gpu:0", name = "micro_batch_1/MatMul"}
// CHECK: %[[L1:.+]] = gplace.reduce_mean {{.*}}name = "micro_batch_1/Mean"
// CHECK: %[[G1:.+]] = gplace.gradients %[[L1]] wrt %[[R]]
// CHECK: %[[SUM:.+]] = gplace.add %[[G0]], %[[G1]] {name = "accumulate_gradients/0/add"}
// CHECK: %[[HALF:.+]] = gplace.constant dense<5.000000e-01> : tensor<f32> {name = "accumulate_gradients/0/Const"}
// CHECK: %[[AVG:.+]] = gplace.mul %[[SUM]], %[[HALF]] {name = "accumulate_gradients/0/mul"}
// CHECK: gplace.apply_gradient_descent %[[W]], %{{.+}}, %[[AVG]]
// CHECK: %[[LOSS:.+]] = gplace.add_n %[[L0]], %[[L1]] {name = "average_results/0/AddN"}
// CHECK: %[[MEAN:.+]] = gplace.mul %[[LOSS]], %{{.+}} {name = "average_results/0/mul"}
// CHECK: return %[[MEAN]]
// ONE-LABEL: func.func @train
// ONE-NOT: micro_batch
// ONE: gplace.gradients
func.func @train(%x: tensor<4x3xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r {device = "/gpu:0"} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = gplace.sub %p, %y : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %sq = gplace.square %d : tensor<4x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// What depends on the batch after the gradients (the loss, read after the
// updates) is cloned in place per micro-batch, then combined.
// CHECK-LABEL: func.func @loss_after_update
// CHECK: gplace.apply_gradient_descent
// CHECK: %[[I0:.+]] = gplace.identity %{{.+}} after(%{{.+}}) {name = "micro_batch_0/Identity"}
// CHECK: %[[I1:.+]] = gplace.identity %{{.+}} after(%{{.+}}) {name = "micro_batch_1/Identity"}
// CHECK: gplace.add_n %[[I0]], %[[I1]]
func.func @loss_after_update(%x: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %result = gplace.identity %loss after(%u) : tensor<f32>
  return %result : tensor<f32>
}

// -----

// An integer argument's slices (labels: integer ops have no GPU kernel, so
// they run on the CPU) do not wait for the previous micro-batch, so that a
// GPU's step need not wait for the CPU in its middle; the float slices
// gate each micro-batch.
// CHECK-LABEL: func.func @int_labels
// CHECK: gplace.slice %arg1 begin = [0] size = [2] {name = "micro_batch_0/split/arg1"}
// CHECK: %[[DONE:.+]] = gplace.group {{.*}}name = "micro_batch_0/done"
// CHECK: gplace.slice %arg0 begin = [2, 0] size = [2, 3] after(%[[DONE]]) {name = "micro_batch_1/split/arg0"}
// CHECK: gplace.slice %arg1 begin = [2] size = [2] {name = "micro_batch_1/split/arg1"}
func.func @int_labels(%x: tensor<4x3xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %lf = gplace.cast %labels : tensor<4xi32> to tensor<4xf32>
  %l2 = gplace.reshape %lf : tensor<4xf32> -> tensor<4x1xf32>
  %d = gplace.sub %p, %l2 : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %sq = gplace.square %d : tensor<4x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// With integer arguments alone (ids), their slices gate the micro-batches.
// CHECK-LABEL: func.func @ids_only
// CHECK: %[[DONE:.+]] = gplace.group {{.*}}name = "micro_batch_0/done"
// CHECK: gplace.slice %arg0 begin = [2] size = [2] after(%[[DONE]]) {name = "micro_batch_1/split/arg0"}
func.func @ids_only(%ids: tensor<4xi32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<5x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<5x2xf32>>
  %e = gplace.gather %r[%ids] axis = 0 : (tensor<5x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %e axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<5x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<5x2xf32>>, tensor<f32>, tensor<5x2xf32>
  return %loss : tensor<f32>
}
