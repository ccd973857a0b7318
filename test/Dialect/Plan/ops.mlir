// Tests that every gplan op round-trips in custom and generic form.
// RUN: gplace-opt %s | FileCheck %s
// RUN: gplace-opt %s | gplace-opt | FileCheck %s
// RUN: gplace-opt %s -mlir-print-op-generic | gplace-opt | FileCheck %s

// CHECK: gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, memory_limit = 0 : i64, peak_bytes = 128 : i64, persistent_bytes = 64 : i64}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, memory_limit = 0 : i64, peak_bytes = 128 : i64, persistent_bytes = 64 : i64}
// CHECK: gplan.device @gpu0
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, memory_limit = 1024 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @main
gplan.program @main {
  // CHECK: %[[IN:.+]] = gplan.input 0 : !gplan.buffer<tensor<2xf32>>
  %0 = gplan.input 0 : !gplan.buffer<tensor<2xf32>>
  // CHECK: %[[C:.+]] = gplan.constant @cpu0 dense<1.000000e+00> : tensor<2xf32>
  %1 = gplan.constant @cpu0 dense<1.0> : tensor<2xf32>
  // CHECK: %[[V:.+]] = gplan.variable @cpu0 "v" dense<0.000000e+00> : tensor<2xf32>
  %2 = gplan.variable @cpu0 "v" dense<0.0> : tensor<2xf32>
  // CHECK: %[[A:.+]] = gplan.alloc @gpu0 offset 0 live [0, -1] : !gplan.buffer<tensor<2xf32>>
  %3 = gplan.alloc @gpu0 offset 0 live [0, -1] : !gplan.buffer<tensor<2xf32>>
  %4 = gplan.alloc @gpu0 offset 64 live [1, -1] : !gplan.buffer<tensor<2xf32>>
  // CHECK: gplan.copy %[[IN]] -> %[[A]] on @gpu0 stream 1 : !gplan.buffer<tensor<2xf32>>, !gplan.buffer<tensor<2xf32>>
  gplan.copy %0 -> %3 on @gpu0 stream 1 : !gplan.buffer<tensor<2xf32>>, !gplan.buffer<tensor<2xf32>>
  // CHECK: %[[E:.+]] = gplan.record on @gpu0 stream 1
  %e = gplan.record on @gpu0 stream 1
  // CHECK: gplan.wait %[[E]] on @gpu0 stream 0
  gplan.wait %e on @gpu0 stream 0
  // CHECK: gplan.launch "gplace.add" on @gpu0 stream 0 (%[[A]], %[[A]]) -> (%{{.*}}) {name = "add"} : (!gplan.buffer<tensor<2xf32>>, !gplan.buffer<tensor<2xf32>>) -> (!gplan.buffer<tensor<2xf32>>)
  gplan.launch "gplace.add" on @gpu0 stream 0 (%3, %3) -> (%4) {name = "add"} : (!gplan.buffer<tensor<2xf32>>, !gplan.buffer<tensor<2xf32>>) -> (!gplan.buffer<tensor<2xf32>>)
  // CHECK: gplan.launch "gplace.assign" on @cpu0 stream 0 (%[[C]]) -> (%[[V]])
  gplan.launch "gplace.assign" on @cpu0 stream 0 (%1) -> (%2) : (!gplan.buffer<tensor<2xf32>>) -> (!gplan.buffer<tensor<2xf32>>)
  // CHECK: gplan.return %{{.*}} : !gplan.buffer<tensor<2xf32>>
  gplan.return %4 : !gplan.buffer<tensor<2xf32>>
}
