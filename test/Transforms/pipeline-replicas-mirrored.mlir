// --gplace-pipeline-parallel replicas=R variables=mirrored: each of the R
// pipelines keeps its own copy of each stage's variables (under the
// variable's name, on its own GPU for the stage), sums its own M
// micro-batches' gradients there, and one gplace.all_reduce (sum) per
// variable across the R copies precedes each replica's own update, which
// divides by R x M.
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="microbatches=2 replicas=2 variables=mirrored functions=train" | FileCheck %s
// CHECK-LABEL: func.func @train
// CHECK-DAG: %[[W0:.*]] = gplace.variable {{.*}} {device = "/device:GPU:0", name = "stage0/w"}
// CHECK-DAG: %[[W1:.*]] = gplace.variable {{.*}} {device = "/device:GPU:1", name = "stage1/w"}
// CHECK-DAG: %[[V0:.*]] = gplace.variable {{.*}} {device = "/job:localhost/replica:0/task:0/device:GPU:2", name = "stage0/w"}
// CHECK-DAG: %[[V1:.*]] = gplace.variable {{.*}} {device = "/job:localhost/replica:0/task:0/device:GPU:3", name = "stage1/w"}
// CHECK-DAG: gplace.read %[[V0]] {device = "/job:localhost/replica:0/task:0/device:GPU:2", name = "replica_1/stage0/read"}
// One all-reduce per variable, over the stage's copies:
// CHECK: %[[S0:.*]]:2 = gplace.all_reduce %{{.*}}, %{{.*}} reduction = "sum" devices = ["/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:2"] {name = "allreduce/0"}
// CHECK: %[[S1:.*]]:2 = gplace.all_reduce %{{.*}}, %{{.*}} reduction = "sum" devices = ["/device:GPU:1", "/job:localhost/replica:0/task:0/device:GPU:3"] {name = "allreduce/1"}
// CHECK-NOT: gplace.all_reduce
// Each replica's own update, of its own copy:
// CHECK-DAG: gplace.apply_gradient_descent %[[W0]]
// CHECK-DAG: gplace.apply_gradient_descent %[[V0]], {{.*}} {name = "replica_1/stage0/update"}
// CHECK-DAG: gplace.apply_gradient_descent %[[V1]], {{.*}} {name = "replica_1/stage1/update"}
//
// The sums of replica 1's micro-batches (2 and 3) are on its copy of the
// stage.
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="microbatches=2 replicas=2 variables=mirrored functions=train" | FileCheck %s --check-prefix=SUMS
// SUMS-DAG: gplace.add {{.*}}gplace.colocate_with = "stage0/read", name = "accumulate_gradients/0/add"
// SUMS-DAG: gplace.add {{.*}}gplace.colocate_with = "replica_1/stage0/read", name = "accumulate_gradients/0/add_1"
// SUMS-DAG: gplace.mul {{.*}}gplace.colocate_with = "replica_1/stage0/read", name = "replica_1/accumulate_gradients/0/mul"
//
// Through the whole pipeline to the plan: two collective members per
// variable, one on each replica's GPU for the stage.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:4 pipeline-stages=2 microbatches=2 replicas=2 replica-variables=mirrored" 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: gplan.launch collective_reduce({{.*}}) on @gpu0 {{.*}}group_key = 0 : i64, group_size = 2 : i64, instance_key = 0 : i64, member = 0
// LOWERED: gplan.launch collective_reduce({{.*}}) on @gpu2 {{.*}}group_key = 0 : i64, group_size = 2 : i64, instance_key = 0 : i64, member = 1
// LOWERED: gplan.launch collective_reduce({{.*}}) on @gpu1 {{.*}}group_key = 1 : i64, group_size = 2 : i64, instance_key = 1 : i64, member = 0
// LOWERED: gplan.launch collective_reduce({{.*}}) on @gpu3 {{.*}}group_key = 1 : i64, group_size = 2 : i64, instance_key = 1 : i64, member = 1
// LOWERED-NOT: collective_reduce
//
// Errors: a variable on the host (two copies of one name there); another
// mode.
// RUN: not gplace-opt %S/Inputs/pipeline-unrequested.mlir --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="microbatches=2 replicas=2 variables=mirrored" 2>&1 | FileCheck %s --check-prefix=NODEVICE
// NODEVICE: error: --gplace-pipeline-parallel variables=mirrored: variable 'stage1/w' requests '/device:CPU:0', no stage's GPU, so pipeline replica 1 has no stage to keep its copy on; request the variable's stage (its reader's GPU), or none
// RUN: not gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="replicas=2 variables=host" 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: error: --gplace-pipeline-parallel variables must be shared or mirrored, not 'host'
// One pipeline has one copy either way: variables=mirrored changes nothing.
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 functions=train" > %t.shared
// RUN: gplace-opt %s --gplace-pipeline-parallel="microbatches=2 variables=mirrored functions=train" > %t.mirrored
// RUN: diff %t.shared %t.mirrored

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
