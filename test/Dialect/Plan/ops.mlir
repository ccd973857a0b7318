// Tests that every gplan op round-trips in custom and generic form, before
// scheduling (no streams, tokens, joins) and after (streams, events, arena
// tables, fusion groups).
// RUN: gplace-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: gplace-opt %s --allow-unregistered-dialect | gplace-opt --allow-unregistered-dialect | FileCheck %s
// RUN: gplace-opt %s --allow-unregistered-dialect -mlir-print-op-generic | gplace-opt --allow-unregistered-dialect | FileCheck %s

// CHECK: gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 128 : i64, peak_bytes = 192 : i64, persistent_bytes = 64 : i64}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 128 : i64, memory_limit = 0 : i64, peak_bytes = 192 : i64, persistent_bytes = 64 : i64}
// CHECK: gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {memory_limit = 1024 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {memory_limit = 1024 : i64}

// CHECK-LABEL: gplan.program @unscheduled
gplan.program @unscheduled {
  // CHECK: %[[IN:.+]] = gplan.input 0 : !gplan.buffer<2x3xf32>
  %0 = gplan.input 0 : !gplan.buffer<2x3xf32>
  // CHECK: %[[V:.+]] = gplan.variable @cpu0 "v" dense<0.000000e+00> : tensor<2x3xf32>
  %1 = gplan.variable @cpu0 "v" dense<0.0> : tensor<2x3xf32>
  // CHECK: %[[T:.+]] = gplan.launch assign(%[[IN]]) into(%[[V]]) on @cpu0 : (!gplan.buffer<2x3xf32>) into(!gplan.buffer<2x3xf32>) -> !gplan.token
  %t = gplan.launch assign(%0) into(%1) on @cpu0 : (!gplan.buffer<2x3xf32>) into(!gplan.buffer<2x3xf32>) -> !gplan.token
  // CHECK: %[[R:.+]] = gplan.view %[[V]] after(%[[T]]) : !gplan.buffer<2x3xf32> -> !gplan.buffer<6xf32>
  %2 = gplan.view %1 after(%t) : !gplan.buffer<2x3xf32> -> !gplan.buffer<6xf32>
  // CHECK: %[[J:.+]] = gplan.join %[[R]], %[[T]] : !gplan.buffer<6xf32>, !gplan.token
  %j = gplan.join %2, %t : !gplan.buffer<6xf32>, !gplan.token
  // Names (a step's label), kept in custom and generic form.
  // CHECK: %[[C:.+]] = gplan.copy %[[R]] to @gpu0 after(%[[J]]) name "Copy_3" : !gplan.buffer<6xf32>
  %3 = gplan.copy %2 to @gpu0 after(%j) name "Copy_3" : !gplan.buffer<6xf32>
  // CHECK: gplan.launch reduce_max(%[[C]]) on @gpu0 name "tower_0/Max \22x\22" {axes = array<i64: 0>} : (!gplan.buffer<6xf32>) -> !gplan.buffer<f32>
  %4 = gplan.launch reduce_max(%3) on @gpu0 name "tower_0/Max \"x\"" {axes = array<i64: 0>} : (!gplan.buffer<6xf32>) -> !gplan.buffer<f32>
  // CHECK: gplan.return %{{.*}} : !gplan.buffer<f32>
  gplan.return %4 : !gplan.buffer<f32>
}

// CHECK-LABEL: gplan.program @scheduled
gplan.program @scheduled {
  // CHECK: gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // CHECK: %[[K:.+]] = gplan.constant @cpu0 dense<1.000000e+00> : tensor<2xf32>
  %1 = gplan.constant @cpu0 dense<1.0> : tensor<2xf32>
  // CHECK: %[[A:.+]] = gplan.copy %{{.*}} to @gpu0 stream 1 : !gplan.buffer<2xf32>
  %2 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<2xf32>
  // CHECK: %[[E:.+]] = gplan.record on @gpu0 stream 1
  %e = gplan.record on @gpu0 stream 1
  // CHECK: %[[B:.+]] = gplan.launch add(%[[A]], %[[A]]) on @gpu0 stream 0 fusion 0 wait(%[[E]]) : (!gplan.buffer<2xf32>, !gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  %3 = gplan.launch add(%2, %2) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<2xf32>, !gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  // CHECK: gplan.launch relu(%[[B]]) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  %4 = gplan.launch relu(%3) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  // CHECK: gplan.launch matmul(%{{.*}}, %{{.*}}) on @cpu0 stream 0 {transpose_b} : (!gplan.buffer<2x3xf32>, !gplan.buffer<2x3xf32>) -> !gplan.buffer<2x2xf32>
  %5 = gplan.input 1 : !gplan.buffer<2x3xf32>
  %6 = gplan.launch matmul(%5, %5) on @cpu0 stream 0 {transpose_b} : (!gplan.buffer<2x3xf32>, !gplan.buffer<2x3xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %4, %6 : !gplan.buffer<2xf32>, !gplan.buffer<2x2xf32>
}

// CHECK: kernel = #gplan.kernel<softmax>
"test.kernel_attr"() {"kernel" = #gplan.kernel<softmax>} : () -> ()
