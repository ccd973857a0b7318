// Tests --gplace-lower-to-plan: buffers, launches on compute streams,
// copies on the destination's copy stream, events between streams, and the
// static memory plan.
// RUN: gplace-opt %s --split-input-file --gplace-pipeline="devices=cpu:1,gpu:1" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-pipeline="devices=cpu:1,gpu:1" | gplace-opt --split-input-file | FileCheck %s

// CHECK-LABEL: gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 0 : i64, memory_limit = 0 : i64, peak_bytes = 128 : i64, persistent_bytes = 128 : i64}
// CHECK-NEXT: gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 192 : i64, memory_limit = 0 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @copiesAndEvents
// CHECK: %[[A:.+]] = gplan.constant @cpu0 dense<{{.*}}> : tensor<2x3xf32>
// CHECK: %[[AG:.+]] = gplan.alloc @gpu0 offset 0 live [0, -1] : !gplan.buffer<tensor<2x3xf32>>
// CHECK: %[[B:.+]] = gplan.constant @cpu0 dense<{{.*}}> : tensor<3x2xf32>
// CHECK: %[[BG:.+]] = gplan.alloc @gpu0 offset 64 live [0, -1] : !gplan.buffer<tensor<3x2xf32>>
// CHECK: %[[C:.+]] = gplan.alloc @gpu0 offset 128 live [2, -1] : !gplan.buffer<tensor<2x2xf32>>
// CHECK: gplan.copy %[[A]] -> %[[AG]] on @gpu0 stream 1
// CHECK-NEXT: gplan.copy %[[B]] -> %[[BG]] on @gpu0 stream 1
// CHECK-NEXT: %[[E:.+]] = gplan.record on @gpu0 stream 1
// CHECK-NEXT: gplan.wait %[[E]] on @gpu0 stream 0
// CHECK-NEXT: gplan.launch "gplace.matmul" on @gpu0 stream 0 (%[[AG]], %[[BG]]) -> (%[[C]]) {name = "MatMul"}
// CHECK-NEXT: gplan.return %[[C]] : !gplan.buffer<tensor<2x2xf32>>
func.func @copiesAndEvents() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/cpu:0"}
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/cpu:0"}
  %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// Tests that a chain on one stream reuses arena slots once their last
// reader has run: three 64-byte slots serve five values.
// CHECK: gplan.device @gpu0 {{.*}}{arena_bytes = 192 : i64
// CHECK-LABEL: gplan.program @chainReusesMemory
// CHECK: gplan.input 0 : !gplan.buffer<tensor<4xf32>>
// CHECK: gplan.alloc @gpu0 offset 0 live [0, -1]
// CHECK: gplan.alloc @gpu0 offset 64 live [1, 2]
// CHECK: gplan.alloc @gpu0 offset 128 live [2, 3]
// CHECK: gplan.alloc @gpu0 offset 64 live [3, 4]
// CHECK: gplan.alloc @gpu0 offset 128 live [4, -1]
func.func @chainReusesMemory(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = gplace.exp %x : tensor<4xf32>
  %b = gplace.exp %a : tensor<4xf32>
  %c = gplace.exp %b : tensor<4xf32>
  %d = gplace.exp %c : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Tests variables and assigns: persistent memory, written in place, and
// groups that only order.
// CHECK-LABEL: gplan.program @state
// CHECK: %[[V:.+]] = gplan.variable @cpu0 "v" dense<0.000000e+00> : tensor<f32>
// CHECK: gplan.launch "gplace.assign_add" on @cpu0 stream 0 (%{{.*}}) -> (%[[V]])
// CHECK: gplan.launch "gplace.read" on @cpu0 stream 0 (%[[V]]) -> (%{{.*}})
func.func @state(%x: tensor<f32>) -> tensor<f32> {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0", name = "v"}
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  %r = gplace.read %v : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}
