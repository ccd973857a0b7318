// Tests --gplace-insert-control-deps: automatic control dependencies on
// resources, max-inflight-copies, and cross-device `after` edges made
// explicit. Running the pass twice changes nothing.
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies --gplace-insert-control-deps=max-inflight-copies=1 | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-place="devices=cpu:1,gpu:2" --gplace-insert-copies --gplace-insert-control-deps=max-inflight-copies=1 --gplace-insert-control-deps=max-inflight-copies=1 | FileCheck %s

// Tests TensorFlow 2's automatic control dependencies: a read waits for the
// last assign, an assign for the last assign and the reads since.
// CHECK-LABEL: func.func @statefulOrder
func.func @statefulOrder(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[V:.+]] = gplace.variable
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0"}
  // CHECK: %[[R0:.+]] = gplace.read %[[V]] {
  %r0 = gplace.read %v : !gplace.resource<tensor<f32>>
  // CHECK: %[[R1:.+]] = gplace.read %[[V]] {
  %r1 = gplace.read %v : !gplace.resource<tensor<f32>>
  // CHECK: %[[G:.+]] = gplace.group %[[R0]], %[[R1]] {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<f32>, tensor<f32>
  // CHECK-NEXT: %[[W0:.+]] = gplace.assign %[[V]], %{{.*}} after(%[[G]])
  %w0 = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  // CHECK-NEXT: %[[W1:.+]] = gplace.assign_add %[[V]], %{{.*}} after(%[[W0]])
  %w1 = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  // CHECK-NEXT: %[[R2:.+]] = gplace.read %[[V]] after(%[[W1]])
  %r2 = gplace.read %v : !gplace.resource<tensor<f32>>
  // Through an identity of the resource, the same variable.
  %i = gplace.identity %v : !gplace.resource<tensor<f32>>
  // CHECK: %[[G2:.+]] = gplace.group %[[R2]] {
  // CHECK-NEXT: gplace.assign_sub %{{.*}}, %{{.*}} after(%[[W1]], %[[G2]])
  %w2 = gplace.assign_sub %i, %x : !gplace.resource<tensor<f32>>
  return %r2 : tensor<f32>
}

// -----

// Tests that an `after` token from another device becomes a token copy.
// CHECK-LABEL: func.func @crossDeviceAfter
func.func @crossDeviceAfter(%x: tensor<f32>) {
  // CHECK: %[[T:.+]] = gplace.group {{.*}}assigned_device = "[[GPU1:[^"]+GPU:1]]"
  %t = gplace.group %x {device = "/gpu:1"} : tensor<f32>
  // CHECK-NEXT: %[[TC:.+]] = gplace.copy %[[T]] {assigned_device = "[[GPU0:[^"]+GPU:0]]", destination = "[[GPU0]]", source = "[[GPU1]]"} : !gplace.control
  // CHECK: gplace.constant dense<1.000000e+00> : tensor<f32> after(%[[TC]]) {assigned_device = "[[GPU0]]"
  %a = gplace.constant dense<1.0> : tensor<f32> after(%t) {device = "/gpu:0"}
  // Same device: nothing to do.
  // CHECK: gplace.constant dense<2.000000e+00> : tensor<f32> after(%[[T]]) {assigned_device = "[[GPU1]]"
  %b = gplace.constant dense<2.0> : tensor<f32> after(%t) {device = "/gpu:1"}
  return
}

// -----

// Tests max-inflight-copies=1: each copy waits for the one before.
// CHECK-LABEL: func.func @serializedCopies
func.func @serializedCopies() {
  %a = gplace.constant dense<1.0> : tensor<4xf32> {device = "/cpu:0"}
  %b = gplace.constant dense<2.0> : tensor<4xf32> {device = "/cpu:0"}
  // CHECK: %[[C0:.+]] = gplace.copy %{{.*}} {assigned_device = "[[GPU0:[^"]+GPU:0]]"
  // CHECK: %[[G:.+]] = gplace.group %[[C0]] {assigned_device = "[[GPU0]]"}
  // CHECK-NEXT: %[[C1:.+]] = gplace.copy %{{.*}} after(%[[G]]) {assigned_device = "[[GPU0]]"
  %c = gplace.add %a, %b {device = "/gpu:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// An update of several variables (apply_adam's var, m and v) is ordered
// against the accesses of each: the read of m before it is grouped into
// its token, and the reads of m and v after it wait for it (only var's
// were ordered, and a copy of m to a GPU read it before the update).
// CHECK-LABEL: func.func @severalVariables
func.func @severalVariables(%grad: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w = gplace.variable dense<1.0> : tensor<4xf32> {name = "w", device = "/cpu:0"}
  %m = gplace.variable dense<0.0> : tensor<4xf32> {name = "m", device = "/cpu:0"}
  %v = gplace.variable dense<0.0> : tensor<4xf32> {name = "v", device = "/cpu:0"}
  // CHECK: %[[RM0:.+]] = gplace.read %{{.+}} {assigned_device
  %rm0 = gplace.read %m : !gplace.resource<tensor<4xf32>>
  %b1 = gplace.constant dense<0.9> : tensor<f32>
  %b2 = gplace.constant dense<0.999> : tensor<f32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %eps = gplace.constant dense<1.0e-7> : tensor<f32>
  // CHECK: %[[BEFORE:.+]] = gplace.group %[[RM0]]
  // CHECK: %[[ADAM:.+]] = gplace.apply_adam {{.*}} after(%[[BEFORE]])
  %adam = gplace.apply_adam %w, %m, %v, %b1, %b2, %lr, %b1, %b2, %eps, %grad : !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, !gplace.resource<tensor<4xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>
  // CHECK: gplace.read %{{.+}} after(%[[ADAM]])
  %rm = gplace.read %m : !gplace.resource<tensor<4xf32>>
  // CHECK: gplace.read %{{.+}} after(%[[ADAM]])
  %rv = gplace.read %v : !gplace.resource<tensor<4xf32>>
  return %rm0, %rm, %rv : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
