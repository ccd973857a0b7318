// Tests --gplace-partition-tasks: a copy between tasks becomes a send on
// the source task's CPU and a recv on the destination task's CPU, with the
// same tag and each naming the other's rank (worker:2: task N is rank N);
// GPUs go through their task's CPU; a result on another task is sent to
// the chief; a copy within a task and a copy of an argument stay.
// RUN: gplace-opt %s --gplace-assign-devices="devices=/job:worker/replica:0/task:0/device:CPU:0,/job:worker/replica:0/task:0/device:GPU:0,/job:worker/replica:0/task:1/device:CPU:0,/job:worker/replica:0/task:1/device:GPU:0" --gplace-place --gplace-insert-copies --gplace-partition-tasks="cluster=worker:2" | FileCheck %s
// Without a cluster the pass changes nothing.
// RUN: gplace-opt %s --gplace-assign-devices="devices=/job:worker/replica:0/task:0/device:CPU:0,/job:worker/replica:0/task:1/device:GPU:0,/job:worker/replica:0/task:1/device:CPU:0" --gplace-place --gplace-insert-copies --gplace-partition-tasks | FileCheck %s --check-prefix=NONE
// NONE-NOT: gplace.send
// RUN: not gplace-opt %s --gplace-partition-tasks="cluster=worker" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: --gplace-partition-tasks cluster: 'worker' is not JOB:TASKS (a job name and a task count of at least 1, e.g. worker:4 or ps:1,worker:3)
// RUN: not gplace-opt %s --gplace-assign-devices="devices=/job:worker/replica:0/task:0/device:CPU:0,/job:worker/replica:0/task:1/device:GPU:0,/job:worker/replica:0/task:1/device:CPU:0" --gplace-place --gplace-insert-copies --gplace-partition-tasks="cluster=worker:1" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: device '/job:worker/replica:0/task:1/device:GPU:0' is on /job:worker/task:1, which --cluster=worker:1 does not have

// CHECK-LABEL: func.func @main
// CHECK: %[[X:.+]] = gplace.copy %arg0 {{.*}}destination = "/job:worker/replica:0/task:1/device:GPU:0"
// CHECK: %[[M:.+]] = gplace.matmul %[[X]], %{{.+}} {{.*}}assigned_device = "/job:worker/replica:0/task:1/device:GPU:0"
// CHECK: %[[H:.+]] = gplace.copy %[[M]] {{.*}}destination = "/job:worker/replica:0/task:1/device:CPU:0"
// CHECK: gplace.send %[[H]] {assigned_device = "/job:worker/replica:0/task:1/device:CPU:0", name = "MatMul/_Send", peer = 0 : i64, tag = 0 : i64}
// CHECK: %[[R:.+]] = gplace.recv {assigned_device = "/job:worker/replica:0/task:0/device:CPU:0", name = "MatMul/_Recv", peer = 1 : i64, tag = 0 : i64} : tensor<2x2xf32>
// CHECK: gplace.exp %[[R]] {{.*}}assigned_device = "/job:worker/replica:0/task:0/device:CPU:0"
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %b = gplace.constant dense<1.0> : tensor<3x2xf32> {device = "/job:worker/task:1/gpu:0"}
  %m = gplace.matmul %x, %b {device = "/job:worker/task:1/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %e = gplace.exp %m {device = "/job:worker/task:0/cpu:0"} : tensor<2x2xf32>
  return %e : tensor<2x2xf32>
}
