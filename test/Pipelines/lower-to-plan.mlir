// Tests the lowering of --gplace-pipeline end to end: buffers, launches on
// compute streams, copies on the destination's copy stream, events between
// streams, fusion on GPUs, arena tables, and reads of variables as views.
// RUN: gplace-opt %s --split-input-file --gplace-pipeline="devices=cpu:1,gpu:1" | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-pipeline="devices=cpu:1,gpu:1" | gplace-opt --split-input-file | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-pipeline="devices=cpu:1,gpu:1 fuse-elementwise=false" | FileCheck %s --check-prefix=UNFUSED

// Tests copies into the GPU on its copy stream and one event to its compute
// stream.
// CHECK-LABEL: gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 0 : i64, peak_bytes = 128 : i64, persistent_bytes = 128 : i64}
// CHECK-NEXT: gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 192 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @copiesAndEvents
// CHECK-NEXT: gplan.arena @gpu0 bytes 192 offsets [0, 64, 128]
// CHECK-NEXT: %[[A:.+]] = gplan.constant @cpu0 dense<{{.*}}> : tensor<2x3xf32>
// CHECK-NEXT: %[[AG:.+]] = gplan.copy %[[A]] to @gpu0 stream 1 name "Copy" : !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[B:.+]] = gplan.constant @cpu0 dense<{{.*}}> : tensor<3x2xf32>
// CHECK-NEXT: %[[BG:.+]] = gplan.copy %[[B]] to @gpu0 stream 1 name "Copy_1" : !gplan.buffer<3x2xf32>
// CHECK-NEXT: %[[E:.+]] = gplan.record on @gpu0 stream 1
// CHECK-NEXT: %[[C:.+]] = gplan.launch matmul(%[[AG]], %[[BG]]) on @gpu0 stream 0 wait(%[[E]]) name "MatMul" : (!gplan.buffer<2x3xf32>, !gplan.buffer<3x2xf32>) -> !gplan.buffer<2x2xf32>
// CHECK-NEXT: gplan.return %[[C]] : !gplan.buffer<2x2xf32>
func.func @copiesAndEvents() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/cpu:0"}
  %b = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> {device = "/cpu:0"}
  %c = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// Tests a chain of elementwise ops on the GPU: fused, its inner values in
// registers (offset -1); unfused, two 64-byte slots serve five values, the
// copied input's slot reused once the compute stream has read it.
// CHECK-LABEL: gplan.program @chainOnTheGpu
// CHECK-NEXT: gplan.arena @gpu0 bytes 128 offsets [0, -1, -1, -1, 64]
// CHECK: gplan.launch exp({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-COUNT-3: gplan.launch exp({{.*}}) on @gpu0 stream 0 fusion 0
// UNFUSED-LABEL: gplan.program @chainOnTheGpu
// UNFUSED-NEXT: gplan.arena @gpu0 bytes 128 offsets [0, 64, 0, 64, 0]
// UNFUSED-NOT: fusion
func.func @chainOnTheGpu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = gplace.exp %x : tensor<4xf32>
  %b = gplace.exp %a : tensor<4xf32>
  %c = gplace.exp %b : tensor<4xf32>
  %d = gplace.exp %c : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Tests variables: persistent memory written in place by a launch that
// returns a token, and a read after the last write that is a view of the
// variable, with no copy and no step.
// CHECK-LABEL: gplan.program @state
// CHECK: %[[X:.+]] = gplan.input 0 : !gplan.buffer<f32>
// CHECK: %[[V:.+]] = gplan.variable @cpu0 "v" dense<0.000000e+00> : tensor<f32>
// CHECK: gplan.launch assign_add(%[[X]]) into(%[[V]]) on @cpu0 stream 0 name "{{.*}}" : (!gplan.buffer<f32>) into(!gplan.buffer<f32>) -> !gplan.token
// CHECK-NOT: gplan.launch read
// CHECK: %[[R:.+]] = gplan.view %[[V]]
// CHECK: gplan.return %[[R]]
func.func @state(%x: tensor<f32>) -> tensor<f32> {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0", name = "v"}
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  %r = gplace.read %v : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}
