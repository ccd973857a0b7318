// Tests --gplace-localize-task, what gplace-run --init runs on each task of
// a cluster: requests for another task's devices become requests for this
// task's, requests for this task (or none) stay, and copies of a variable
// mirrored over tasks become one variable per name and type.
// RUN: gplace-opt %s --gplace-localize-task="job=worker task=1" | FileCheck %s
// RUN: not gplace-opt %s --gplace-localize-task 2>&1 | FileCheck %s --check-prefix=NOJOB
// NOJOB: error: --gplace-localize-task needs this task's job (job=worker)

// CHECK-LABEL: func.func @init
// CHECK-SAME: gplace.default_device = "/device:CPU:0"
// CHECK: %[[W:.+]] = gplace.variable {{.*}}device = "/device:CPU:0", name = "w"
// CHECK-NOT: name = "w"
// CHECK: %[[G:.+]] = gplace.variable {{.*}}device = "/job:worker/task:1/gpu:0", name = "g"
// CHECK: %[[B:.+]] = gplace.variable {{.*}}name = "b"
// CHECK: %[[B2:.+]] = gplace.variable {{.*}}name = "b"
// CHECK: gplace.assign %[[W]]
// CHECK: gplace.assign %[[W]]
// CHECK: gplace.assign %[[G]]
// CHECK: gplace.assign %[[B]]
// CHECK: gplace.assign %[[B2]]
func.func @init() attributes {gplace.default_device = "/job:ps/task:0/cpu:0"} {
  // Two copies of one variable, on the ps task and on worker 0.
  %w0 = gplace.variable dense<0.0> : tensor<2xf32> {name = "w", device = "/job:ps/task:0/cpu:0"}
  %w1 = gplace.variable dense<0.0> : tensor<2xf32> {name = "w", device = "/job:worker/task:0/cpu:0"}
  // This task's own request stays.
  %g = gplace.variable dense<0.0> : tensor<2xf32> {name = "g", device = "/job:worker/task:1/gpu:0"}
  // Two variables of one name but different types are not merged.
  %b0 = gplace.variable dense<0.0> : tensor<2xf32> {name = "b"}
  %b1 = gplace.variable dense<0.0> : tensor<3xf32> {name = "b"}
  %one = gplace.constant dense<1.0> : tensor<2xf32>
  %three = gplace.constant dense<1.0> : tensor<3xf32>
  gplace.assign %w0, %one : !gplace.resource<tensor<2xf32>>
  gplace.assign %w1, %one : !gplace.resource<tensor<2xf32>>
  gplace.assign %g, %one : !gplace.resource<tensor<2xf32>>
  gplace.assign %b0, %one : !gplace.resource<tensor<2xf32>>
  gplace.assign %b1, %three : !gplace.resource<tensor<3xf32>>
  return
}
