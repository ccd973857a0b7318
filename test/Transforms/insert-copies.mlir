// Tests --gplace-insert-copies: one copy per (value, destination device),
// right after the producer, reused by every consumer there; function
// arguments come from the host CPU; groups wait without copying.
// Placing again keeps every copy on its destination, so that inserting
// copies again changes nothing.
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies --gplace-insert-copies | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies | FileCheck %s

// CHECK-LABEL: func.func @oneCopyPerDestination
// CHECK-SAME: (%[[X:.+]]: tensor<2xf32>)
func.func @oneCopyPerDestination(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: %[[XG:.+]] = gplace.copy %[[X]] {assigned_device = "[[GPU0:/job:localhost/replica:0/task:0/device:GPU:0]]", destination = "[[GPU0]]", source = "[[CPU:/job:localhost/replica:0/task:0/device:CPU:0]]"} : tensor<2xf32>
  // CHECK-NEXT: %[[A:.+]] = gplace.constant {{.*}}assigned_device = "[[CPU]]"
  // CHECK-NEXT: %[[AG0:.+]] = gplace.copy %[[A]] {assigned_device = "[[GPU0]]", destination = "[[GPU0]]", source = "[[CPU]]"}
  // CHECK-NEXT: %[[AG1:.+]] = gplace.copy %[[A]] {assigned_device = "[[GPU1:[^"]+GPU:1]]", destination = "[[GPU1]]", source = "[[CPU]]"}
  %a = gplace.constant dense<2.0> : tensor<2xf32> {device = "/cpu:0"}
  // CHECK-NEXT: %[[B:.+]] = gplace.add %[[AG0]], %[[XG]]
  %b = gplace.add %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %[[C:.+]] = gplace.mul %[[AG0]], %[[B]]
  %c = gplace.mul %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %[[CG1:.+]] = gplace.copy %[[C]] {assigned_device = "[[GPU1]]", destination = "[[GPU1]]", source = "[[GPU0]]"}
  // CHECK-NEXT: gplace.sub %[[AG1]], %[[CG1]] {{.*}}assigned_device = "[[GPU1]]"
  %d = gplace.sub %a, %c {device = "/gpu:1"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NOT: gplace.copy
  return %d : tensor<2xf32>
}

// -----

// Tests that a group's operands are waited for, not copied, and that a
// CPU-only op fed by a GPU op gets its input copied to the CPU.
// CHECK-LABEL: func.func @groupsAndCpuOnlyOps
func.func @groupsAndCpuOnlyOps(%x: tensor<2xf32>) {
  // CHECK: %[[E:.+]] = gplace.exp
  // CHECK-NEXT: %[[EC:.+]] = gplace.copy %[[E]] {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"
  %e = gplace.exp %x : tensor<2xf32>
  %c = gplace.constant dense<1> : tensor<2xi32>
  // CHECK: gplace.group %[[E]], %{{.*}} {assigned_device
  %g = gplace.group %e, %c : tensor<2xf32>, tensor<2xi32>
  // CHECK: gplace.cast %[[EC]]
  %i = gplace.cast %e : tensor<2xf32> to tensor<2xi32>
  return
}
