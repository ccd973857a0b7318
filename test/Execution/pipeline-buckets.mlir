// Mirrored pipeline replicas bucket each stage's small gradient sums into
// one all-reduce (--gplace-pipeline-parallel bucket-bytes, 256 KiB by
// default; docs/passes/pipeline-parallel.md): two stages of a weight and a
// bias each give two all-reduces, not four, and the same weights as
// accumulation within 1e-5.
// DEFINE: %{inputs} = --input=8x3xf32=0.25,0.79,0.55,-0.55,-0.4,0.75,-0.99,0.64,0.59,-0.06,-0.39,-0.44,-0.49,-0.11,0.01,0.11,0.99,0.59,0.24,0.98,-0.57,-0.68,0.23,-0.91 --input=8x1xf32=-0.46,0.01,-0.03,0.42,0.13,0.01,0,-0.25
//
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="microbatches=2 replicas=2 variables=mirrored" | FileCheck %s --check-prefix=BUCKETS
// RUN: gplace-opt %s --gplace-assign-devices="devices=cpu:1,gpu:4" --gplace-pipeline-parallel="microbatches=2 replicas=2 variables=mirrored bucket-bytes=0" | FileCheck %s --check-prefix=NOBUCKETS
// Stage 0's bias and weight (gradients 1 and 0, the later first), then
// stage 1's, each replica's sums flattened and concatenated on its copy
// of the stage:
// BUCKETS: gplace.concat {{.*}} {device = "/device:GPU:0", name = "allreduce/bucket_0/concat"} : tensor<4xf32>, tensor<12xf32> -> tensor<16xf32>
// BUCKETS: gplace.concat {{.*}} {device = "/job:localhost/replica:0/task:0/device:GPU:2", name = "replica_1/allreduce/bucket_0/concat"}
// BUCKETS: gplace.all_reduce {{.*}} reduction = "sum" devices = ["/device:GPU:0", "/job:localhost/replica:0/task:0/device:GPU:2"] {name = "allreduce/bucket_0"} : tensor<16xf32>, tensor<16xf32>
// BUCKETS: gplace.reshape {{.*}} {device = "/job:localhost/replica:0/task:0/device:GPU:2", name = "replica_1/allreduce/bucket_0/reshape_0"} : tensor<12xf32> -> tensor<3x4xf32>
// BUCKETS: gplace.all_reduce {{.*}} reduction = "sum" devices = ["/device:GPU:1", "/job:localhost/replica:0/task:0/device:GPU:3"] {name = "allreduce/bucket_1"} : tensor<5xf32>, tensor<5xf32>
// BUCKETS-NOT: gplace.all_reduce
// NOBUCKETS-COUNT-4: gplace.all_reduce {{.*}} reduction = "sum"
// NOBUCKETS-NOT: gplace.all_reduce
// NOBUCKETS-NOT: bucket
// RUN: not gplace-opt %s --gplace-pipeline-parallel="bucket-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: --gplace-pipeline-parallel bucket-bytes must not be negative, not -1
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=2 --accumulate-steps=4 --save=%t.dir/accumulate.npz > %t.dir/accumulate.txt
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --emulate-gpus=4 --pipeline-stages=2 --microbatches=2 --replicas=2 --replica-variables=mirrored --save=%t.dir/mirrored.npz --log-device-placement > %t.dir/mirrored.txt 2> %t.dir/mirrored.log
// RUN: %python %gplace_src_root/test/Tools/gplace-run/Inputs/compare_npz.py %t.dir/mirrored.npz %t.dir/accumulate.npz 1e-5 1e-6 | FileCheck %s --check-prefix=SAME
// SAME: 5 entries match
// RUN: %python %gplace_src_root/utils/compare-results.py %t.dir/mirrored.txt %t.dir/accumulate.txt --rtol=1e-5 --atol=1e-6
// RUN: FileCheck %s --check-prefix=PLACED < %t.dir/mirrored.log
// PLACED-DAG: allreduce/bucket_1/CollectiveReduceV2_0: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:1
// PLACED-DAG: allreduce/bucket_1/CollectiveReduceV2_1: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:3
// PLACED-DAG: allreduce/bucket_0/CollectiveReduceV2_0: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: allreduce/bucket_0/CollectiveReduceV2_1: (CollectiveReduceV2): /job:localhost/replica:0/task:0/device:GPU:2
// PLACED-DAG: replica_1/allreduce/bucket_0/concat: (ConcatV2): /job:localhost/replica:0/task:0/device:GPU:2
func.func @train(%x: tensor<8x3xf32>, %y: tensor<8x1xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<[[0.5, -0.3, 0.2, 0.1], [-0.4, 0.6, -0.1, 0.3], [0.2, 0.1, -0.5, 0.4]]> : tensor<3x4xf32> {name = "stage0/w", device = "/device:GPU:0"}
  %b0 = gplace.variable dense<[0.1, -0.2, 0.05, 0.0]> : tensor<4xf32> {name = "stage0/b", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {name = "stage0/read_w", device = "/device:GPU:0"} : !gplace.resource<tensor<3x4xf32>>
  %rb0 = gplace.read %b0 {name = "stage0/read_b", device = "/device:GPU:0"} : !gplace.resource<tensor<4xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "stage0/matmul", device = "/device:GPU:0"} : (tensor<8x3xf32>, tensor<3x4xf32>) -> tensor<8x4xf32>
  %a0 = gplace.add %m0, %rb0 {name = "stage0/add", device = "/device:GPU:0"} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %h0 = gplace.tanh %a0 {name = "stage0/tanh", device = "/device:GPU:0"} : tensor<8x4xf32>
  %w1 = gplace.variable dense<[[0.3], [-0.6], [0.45], [0.2]]> : tensor<4x1xf32> {name = "stage1/w", device = "/device:GPU:1"}
  %b1 = gplace.variable dense<[0.05]> : tensor<1xf32> {name = "stage1/b", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {name = "stage1/read_w", device = "/device:GPU:1"} : !gplace.resource<tensor<4x1xf32>>
  %rb1 = gplace.read %b1 {name = "stage1/read_b", device = "/device:GPU:1"} : !gplace.resource<tensor<1xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "stage1/matmul", device = "/device:GPU:1"} : (tensor<8x4xf32>, tensor<4x1xf32>) -> tensor<8x1xf32>
  %a1 = gplace.add %m1, %rb1 {name = "stage1/add", device = "/device:GPU:1"} : (tensor<8x1xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  %d = gplace.sub %a1, %y {name = "stage1/sub", device = "/device:GPU:1"} : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %sq = gplace.square %d {name = "stage1/square", device = "/device:GPU:1"} : tensor<8x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "stage1/loss", device = "/device:GPU:1"} : tensor<8x1xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %rb0, %r1, %rb1 : tensor<f32> wrt tensor<3x4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<1xf32>
  %lr = gplace.constant dense<0.2> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 {name = "stage0/update_w"} : !gplace.resource<tensor<3x4xf32>>, tensor<f32>, tensor<3x4xf32>
  %u1 = gplace.apply_gradient_descent %b0, %lr, %g1 {name = "stage0/update_b"} : !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<4xf32>
  %u2 = gplace.apply_gradient_descent %w1, %lr, %g2 {name = "stage1/update_w"} : !gplace.resource<tensor<4x1xf32>>, tensor<f32>, tensor<4x1xf32>
  %u3 = gplace.apply_gradient_descent %b1, %lr, %g3 {name = "stage1/update_b"} : !gplace.resource<tensor<1xf32>>, tensor<f32>, tensor<1xf32>
  return %loss : tensor<f32>
}
