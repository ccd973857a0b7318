// Tests --gplace-plan-memory's second planner: where first fit in program
// order leaves the arena above the liveness lower bound, best fit by size
// (largest buffer first) plans the device again and is kept if it needs
// less memory; reuse across streams gets the waits it needs, and the plan
// passes --gplace-verify-plan.
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory --gplace-plan-memory | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory --gplace-verify-plan | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory --gplace-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT

// One stream, buffers of 64, 128, 256 and 128 bytes, each read by the
// next. First fit puts %c above %a's 64 freed bytes and %d into %a's and
// %b's: 448 bytes (offsets [0, 64, 192, 0]). By size, %c goes first at 0,
// %b and %d (never in use together) above it, %a below %b's: 384 bytes,
// the bound (%b and %c in use at once, then %c and %d).
// CHECK: gplan.device @cpu0 {{.*}} {arena_bytes = 384 : i64, peak_bytes = 384 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @oneStream
// CHECK-NEXT: gplan.arena @cpu0 bytes 384 offsets [0, 256, 0, 256]
// PRINT: Memory plan for /job:localhost/replica:0/task:0/device:CPU:0: peak 384 bytes (persistent 0, arena 384), liveness lower bound 384 bytes (arena 384)
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @oneStream {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.launch broadcast_to(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<16xf32>
  %b = gplan.launch broadcast_to(%a) on @cpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<2x16xf32>
  %c = gplan.launch broadcast_to(%b) on @cpu0 stream 0 : (!gplan.buffer<2x16xf32>) -> !gplan.buffer<2x2x16xf32>
  %d = gplan.launch reduce_sum(%c) on @cpu0 stream 0 {axes = array<i64: 0>} : (!gplan.buffer<2x2x16xf32>) -> !gplan.buffer<2x16xf32>
  gplan.return %d : !gplan.buffer<2x16xf32>
}

// -----

// The same on a GPU, where %a is also read by a copy to the host on the
// CPU's copy stream. By size, %c takes %a's memory, so %c's launch waits
// for an event recorded after that copy (first fit: 512 bytes, offsets
// [0, 64, 128, 256, 128]).
// CHECK: gplan.device @gpu0 {{.*}} {arena_bytes = 384 : i64, peak_bytes = 384 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @acrossStreams
// CHECK-DAG: gplan.arena @cpu0 bytes 64 offsets [0]
// CHECK-DAG: gplan.arena @gpu0 bytes 384 offsets [0, 64, 256, 0, 256]
// CHECK: gplan.copy %{{.*}} to @cpu0 stream 1 wait
// CHECK-NEXT: %[[E:.+]] = gplan.record on @cpu0 stream 1
// CHECK-NEXT: gplan.launch broadcast_to(%{{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch broadcast_to(%{{.*}}) on @gpu0 stream 0 wait(%[[E]])
// CHECK-NEXT: gplan.launch reduce_sum(%{{.*}}) on @gpu0 stream 0 {
// PRINT: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak 384 bytes (persistent 0, arena 384), liveness lower bound 384 bytes (arena 384)
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @acrossStreams {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %xg = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e0 = gplan.record on @gpu0 stream 1
  %a = gplan.launch broadcast_to(%xg) on @gpu0 stream 0 wait(%e0) : (!gplan.buffer<4xf32>) -> !gplan.buffer<16xf32>
  %e1 = gplan.record on @gpu0 stream 0
  %ah = gplan.copy %a to @cpu0 stream 1 wait(%e1) : !gplan.buffer<16xf32>
  %b = gplan.launch broadcast_to(%a) on @gpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<2x16xf32>
  %c = gplan.launch broadcast_to(%b) on @gpu0 stream 0 : (!gplan.buffer<2x16xf32>) -> !gplan.buffer<2x2x16xf32>
  %d = gplan.launch reduce_sum(%c) on @gpu0 stream 0 {axes = array<i64: 0>} : (!gplan.buffer<2x2x16xf32>) -> !gplan.buffer<2x16xf32>
  gplan.return %ah, %d : !gplan.buffer<16xf32>, !gplan.buffer<2x16xf32>
}

// -----

// A CPU step never waits for another device: %a, read by a copy on the
// GPU's copy stream that the CPU knows nothing of, keeps its memory from
// every later CPU buffer, by size as by first fit (which then wins the
// tie: 448 bytes either way, offsets [0, 64, 192, 64]).
// CHECK-LABEL: gplan.program @hostWaitsForNoGpu
// CHECK-DAG: gplan.arena @cpu0 bytes 448 offsets [0, 64, 192, 64]
// CHECK: gplan.copy %{{.*}} to @gpu0 stream 1 wait
// CHECK-NOT: wait(
// CHECK: gplan.return
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @hostWaitsForNoGpu {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.launch broadcast_to(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<16xf32>
  %e1 = gplan.record on @cpu0 stream 0
  %ag = gplan.copy %a to @gpu0 stream 1 wait(%e1) : !gplan.buffer<16xf32>
  %b = gplan.launch broadcast_to(%a) on @cpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<2x16xf32>
  %c = gplan.launch broadcast_to(%b) on @cpu0 stream 0 : (!gplan.buffer<2x16xf32>) -> !gplan.buffer<2x2x16xf32>
  %d = gplan.launch reduce_sum(%c) on @cpu0 stream 0 {axes = array<i64: 0>} : (!gplan.buffer<2x2x16xf32>) -> !gplan.buffer<2x16xf32>
  gplan.return %ag, %d : !gplan.buffer<16xf32>, !gplan.buffer<2x16xf32>
}
