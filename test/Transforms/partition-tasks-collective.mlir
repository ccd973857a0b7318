// Tests that --gplace-partition-tasks gives each all-reduce member the MPI
// rank of every member's task (ranks, in member order: the cluster spec's
// rank order, ps first), and refuses a group it cannot complete.
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=/job:ps/replica:0/task:0/device:CPU:0,/job:ps/replica:0/task:0/device:GPU:0,/job:worker/replica:0/task:0/device:CPU:0,/job:worker/replica:0/task:0/device:GPU:0,/job:worker/replica:0/task:0/device:GPU:1" --gplace-lower-all-reduce --gplace-place --gplace-insert-copies --gplace-partition-tasks="cluster=ps:1,worker:1" 2>/dev/null | FileCheck %s
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=/job:ps/replica:0/task:0/device:CPU:0,/job:ps/replica:0/task:0/device:GPU:0,/job:worker/replica:0/task:0/device:CPU:0,/job:worker/replica:0/task:0/device:GPU:0,/job:worker/replica:0/task:0/device:GPU:1" --gplace-lower-all-reduce --gplace-place --gplace-insert-copies --gplace-partition-tasks="cluster=ps:1,worker:1" 2>&1 >/dev/null | FileCheck %s --check-prefix=INCOMPLETE

// CHECK-LABEL: func.func @members
// CHECK: gplace.collective_reduce {{%.+}} {{.*}}member = 0 : i64{{.*}}ranks = array<i64: 1, 0, 1>
// CHECK: gplace.collective_reduce {{%.+}} {{.*}}member = 1 : i64{{.*}}ranks = array<i64: 1, 0, 1>
// CHECK: gplace.collective_reduce {{%.+}} {{.*}}member = 2 : i64{{.*}}ranks = array<i64: 1, 0, 1>
func.func @members(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = gplace.all_reduce %a, %b, %c reduction = "sum" devices = ["/job:worker/task:0/device:GPU:0", "/job:ps/task:0/device:GPU:0", "/job:worker/task:0/device:GPU:1"] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// INCOMPLETE: error: all-reduce group 0 has no member 1 in this module
func.func @incomplete(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = gplace.collective_reduce %a {group_key = 0, group_size = 2, instance_key = 0, member = 0, ranks = array<i64>, device = "/job:worker/task:0/device:GPU:0"} : tensor<4xf32>
  return %r : tensor<4xf32>
}
