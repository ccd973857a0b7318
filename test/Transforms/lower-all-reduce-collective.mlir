// Tests --gplace-lower-all-reduce (algorithm=collective, the default): one
// gplace.collective_reduce per device, member i on device i; all-reduces
// over one list of devices share a group key, each has its own instance
// key in program order; an all-reduce over one device is its input.
// RUN: gplace-opt %s --split-input-file --gplace-lower-all-reduce | FileCheck %s
// RUN: not gplace-opt %s --split-input-file --gplace-lower-all-reduce=algorithm=tree 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: gplace-lower-all-reduce: algorithm must be 'collective' or 'ring', not 'tree'

// CHECK-LABEL: func.func @members
// CHECK-NOT: gplace.all_reduce
// CHECK: %[[A0:.+]] = gplace.collective_reduce %arg0 {device = "/device:GPU:0", group_key = 0 : i64, group_size = 3 : i64, instance_key = 0 : i64, mean, member = 0 : i64, name = "grads/CollectiveReduceV2_0", ranks = array<i64>} : tensor<5x1xf32>
// CHECK: %[[A1:.+]] = gplace.collective_reduce %arg1 {device = "/device:GPU:1", group_key = 0 : i64, group_size = 3 : i64, instance_key = 0 : i64, mean, member = 1 : i64, name = "grads/CollectiveReduceV2_1", ranks = array<i64>}
// CHECK: %[[A2:.+]] = gplace.collective_reduce %arg2 {device = "/device:GPU:2", {{.*}}member = 2 : i64
// The second all-reduce over the same devices: same group, next instance;
// a sum has no `mean`.
// CHECK: %[[B0:.+]] = gplace.collective_reduce %[[A0]] {device = "/device:GPU:0", group_key = 0 : i64, group_size = 3 : i64, instance_key = 1 : i64, member = 0 : i64, name = "AllReduce_1/CollectiveReduceV2_0", ranks = array<i64>}
// Other devices: another group.
// CHECK: gplace.collective_reduce %[[A1]] {device = "/device:GPU:1", group_key = 1 : i64, group_size = 2 : i64, instance_key = 2 : i64, member = 0 : i64
// CHECK: return %[[A0]], %[[A1]], %[[A2]], %[[B0]]
func.func @members(%a: tensor<5x1xf32>, %b: tensor<5x1xf32>, %c: tensor<5x1xf32>) -> (tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>) {
  %r:3 = gplace.all_reduce %a, %b, %c reduction = "mean" devices = ["/device:GPU:0", "/device:GPU:1", "/device:GPU:2"] {name = "grads"} : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>
  %s:3 = gplace.all_reduce %r#0, %r#1, %r#2 reduction = "sum" devices = ["/device:GPU:0", "/device:GPU:1", "/device:GPU:2"] : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>
  %t:2 = gplace.all_reduce %r#1, %r#2 reduction = "sum" devices = ["/device:GPU:1", "/device:GPU:2"] : tensor<5x1xf32>, tensor<5x1xf32>
  return %r#0, %r#1, %r#2, %s#0 : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x1xf32>
}

// -----

// One device: nothing to reduce.
// CHECK-LABEL: func.func @one
// CHECK-NEXT: return %arg0
func.func @one(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = gplace.all_reduce %a reduction = "mean" devices = ["/device:GPU:0"] : tensor<4xf32>
  return %r : tensor<4xf32>
}
