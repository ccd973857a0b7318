// --gplace-pipeline-parallel: micro-batches as --gplace-accumulate-gradients
// makes them, but overlapping (no micro-batch waits for the one before),
// forward clones marked with their micro-batch, slices of the batch and the
// combined results on the host, the gradients' sums colocated with their
// variables, and the schedule on the function.
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 functions=train" | FileCheck %s --check-prefix=MARK
// MARK-LABEL: func.func @train
// MARK-SAME: attributes {gplace.pipeline = {microbatches = 2 : i64, replicas = 1 : i64, schedule = "1f1b", split = "placement", stages = 0 : i64}}
// MARK: gplace.slice %arg0 begin = [0, 0] size = [2, 3] {device = "/device:CPU:0", gplace.micro_batch = 0 : i64, name = "micro_batch_0/split/arg0"}
// MARK: gplace.matmul {{.*}}gplace.micro_batch = 0 : i64, name = "micro_batch_0/stage0/matmul"
// MARK: gplace.gradients
// MARK-NOT: after(
// MARK: gplace.slice %arg0 begin = [2, 0] size = [2, 3] {device = "/device:CPU:0", gplace.micro_batch = 1 : i64, name = "micro_batch_1/split/arg0"}
// MARK: gplace.matmul {{.*}}gplace.micro_batch = 1 : i64, name = "micro_batch_1/stage0/matmul"
// MARK: gplace.add {{.*}}{gplace.colocate_with = "stage0/read", name = "accumulate_gradients/0/add"}
// MARK: gplace.add {{.*}}{gplace.colocate_with = "stage1/read", name = "accumulate_gradients/1/add"}
// MARK: gplace.mul {{.*}}{gplace.colocate_with = "stage0/read", name = "accumulate_gradients/0/mul"}
// MARK: gplace.add_n {{.*}}{device = "/device:CPU:0", name = "average_results/0/AddN"}
//
// --gplace-schedule-pipeline, after placement and copies: with K = 2 stages
// and M = 2 micro-batches, 1F1B runs stage 0 as F0 F1 B0 B1 and stage 1 as
// F0 B0 F1 B1; GPipe runs both as F0 F1 B0 B1.
// DEFINE: %{place} = --gplace-assign-devices="devices=cpu:1,gpu:2" --gplace-differentiate --gplace-place --gplace-insert-copies --gplace-schedule-pipeline
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 schedule=1f1b functions=train" %{place} | FileCheck %s --check-prefix=1F1B-STAGE0
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 schedule=1f1b functions=train" %{place} | FileCheck %s --check-prefix=1F1B-STAGE1
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 schedule=gpipe functions=train" %{place} | FileCheck %s --check-prefix=GPIPE
// 1F1B-STAGE0: name = "micro_batch_0/stage0/tanh"
// 1F1B-STAGE0: name = "micro_batch_1/stage0/tanh"
// 1F1B-STAGE0: name = "gradients/micro_batch_0/stage0/tanh_grad/TanhGrad"
// 1F1B-STAGE0: name = "gradients/micro_batch_1/stage0/tanh_grad/TanhGrad"
// 1F1B-STAGE1: name = "micro_batch_0/stage1/loss"
// 1F1B-STAGE1: name = "gradients/micro_batch_0/stage1/matmul_grad/MatMul"
// 1F1B-STAGE1: name = "micro_batch_1/stage1/loss"
// 1F1B-STAGE1: name = "gradients/micro_batch_1/stage1/matmul_grad/MatMul"
// GPIPE: name = "micro_batch_0/stage1/loss"
// GPIPE: name = "micro_batch_1/stage1/loss"
// GPIPE: name = "gradients/micro_batch_0/stage1/matmul_grad/MatMul"
// GPIPE: name = "gradients/micro_batch_1/stage1/matmul_grad/MatMul"
//
// Errors: a placement with another number of stages than asked; stages the
// schedule cannot order (@loop's third layer goes back to GPU:0, which
// makes GPU:0 the last stage, whose backward of micro-batch 0 needs GPU:1's
// first layer's, which 1F1B runs after GPU:1's forward of micro-batch 1,
// which needs GPU:0's); no micro-batches.
// RUN: not gplace-opt %s --gplace-pipeline-parallel="microbatches=2 stages=3 functions=train" %{place} 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: --gplace-schedule-pipeline: @train asks for 3 pipeline stages, but its forward ops are placed on 2 device(s) (/job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:GPU:1)
// RUN: not gplace-opt %s --gplace-pipeline-parallel="microbatches=2 functions=loop" %{place} 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: --gplace-schedule-pipeline: the 1f1b schedule cannot order @loop: stage 0 (/job:localhost/replica:0/task:0/device:GPU:1) is to run micro-batch 1's forward next; stage 1 (/job:localhost/replica:0/task:0/device:GPU:0) is to run micro-batch 0's backward next; its ops wait for ops the schedule runs later
// RUN: not gplace-opt %s --gplace-pipeline-parallel="microbatches=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --gplace-pipeline-parallel needs microbatches >= 1
// RUN: not gplace-opt %s --gplace-pipeline-parallel="functions=nope" 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: error: --gplace-pipeline-parallel functions: no function @nope

func.func @train(%x: tensor<4x3xf32>, %y: tensor<4x1xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<0.5> : tensor<3x3xf32> {name = "stage0/w", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {name = "stage0/read", device = "/device:GPU:0"} : !gplace.resource<tensor<3x3xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "stage0/matmul", device = "/device:GPU:0"} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %h0 = gplace.tanh %m0 {name = "stage0/tanh", device = "/device:GPU:0"} : tensor<4x3xf32>
  %w1 = gplace.variable dense<0.25> : tensor<3x1xf32> {name = "stage1/w", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {name = "stage1/read", device = "/device:GPU:1"} : !gplace.resource<tensor<3x1xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "stage1/matmul", device = "/device:GPU:1"} : (tensor<4x3xf32>, tensor<3x1xf32>) -> tensor<4x1xf32>
  %d = gplace.sub %m1, %y {name = "stage1/sub", device = "/device:GPU:1"} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %sq = gplace.square %d {name = "stage1/square", device = "/device:GPU:1"} : tensor<4x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "stage1/loss", device = "/device:GPU:1"} : tensor<4x1xf32> -> tensor<f32>
  %g0, %g1 = gplace.gradients %loss wrt %r0, %r1 : tensor<f32> wrt tensor<3x3xf32>, tensor<3x1xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 {name = "stage0/update"} : !gplace.resource<tensor<3x3xf32>>, tensor<f32>, tensor<3x3xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 {name = "stage1/update"} : !gplace.resource<tensor<3x1xf32>>, tensor<f32>, tensor<3x1xf32>
  return %loss : tensor<f32>
}

func.func @loop(%x: tensor<4x3xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<0.5> : tensor<3x3xf32> {name = "a/w", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {name = "a/read", device = "/device:GPU:0"} : !gplace.resource<tensor<3x3xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "a/matmul", device = "/device:GPU:0"} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %w1 = gplace.variable dense<0.25> : tensor<3x3xf32> {name = "b/w", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {name = "b/read", device = "/device:GPU:1"} : !gplace.resource<tensor<3x3xf32>>
  %m1 = gplace.matmul %m0, %r1 {name = "b/matmul", device = "/device:GPU:1"} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %t = gplace.tanh %m1 {name = "c/tanh", device = "/device:GPU:0"} : tensor<4x3xf32>
  %loss = gplace.reduce_mean %t axes = [0, 1] {name = "c/loss", device = "/device:GPU:0"} : tensor<4x3xf32> -> tensor<f32>
  %g0, %g1 = gplace.gradients %loss wrt %r0, %r1 : tensor<f32> wrt tensor<3x3xf32>, tensor<3x3xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<3x3xf32>>, tensor<f32>, tensor<3x3xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<3x3xf32>>, tensor<f32>, tensor<3x3xf32>
  return %loss : tensor<f32>
}
