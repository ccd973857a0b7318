// Tests --gplace-plan-memory: first fit in program order, slots reused
// once every use of their last tenant happens before the new writer (by
// streams and events) or, failing that, with waits added for the uses
// that do not, views keeping their source alive, results alive to the
// end, fused values without memory, the byte counts and the limit.
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory --gplace-plan-memory | FileCheck %s

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests one stream: each slot is reused once its last reader has run; the
// view keeps %1 alive until the view's reader (step 3), so %3 cannot take
// its slot, and %5 takes it after.
// CHECK: gplan.device @gpu0 {{.*}} {arena_bytes = 192 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @oneStream
// CHECK-NEXT: gplan.arena @gpu0 bytes 192 offsets [0, 64, 128, 64, 0]
gplan.program @oneStream {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %2 = gplan.launch exp(%1) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %v = gplan.view %1 : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
  %3 = gplan.launch exp(%2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch neg(%v) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %5 = gplan.launch exp(%3) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %4, %5 : !gplan.buffer<2x2xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests streams: %a's last reader is the CPU's copy stream, which the
// GPU's compute stream knows nothing of. %c fits no other free slot, so it
// takes %a's and waits for the event already recorded after that copy.
// CHECK-LABEL: gplan.program @acrossStreams
// CHECK-DAG: gplan.arena @cpu0 bytes 64 offsets [0]
// CHECK-DAG: gplan.arena @gpu0 bytes 128 offsets [0, 0, 64, 0]
// CHECK: %[[E2:.+]] = gplan.record on @cpu0 stream 1
// CHECK-NEXT: gplan.launch exp(%{{.*}}) on @gpu0 stream 0 wait(%[[E2]])
// CHECK-NEXT: gplan.launch exp(%{{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch neg(%{{.*}}) on @gpu0 stream 0 :
gplan.program @acrossStreams {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %e1 = gplan.record on @gpu0 stream 0
  %b = gplan.copy %a to @cpu0 stream 1 wait(%e1) : !gplan.buffer<4xf32>
  %e2 = gplan.record on @cpu0 stream 1
  %c = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %c2 = gplan.launch exp(%c) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %d = gplan.launch neg(%c2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %b, %d : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests the order of preference: %q (128 bytes, %p's last reader) fits no
// free slot and grows the arena; %r takes %p's slot, which needs no wait, rather than the
// lower one of %a, which would; %s then takes %a's slot, and an event is
// recorded after the CPU's copy (none was) for it to wait for.
// CHECK-LABEL: gplan.program @prefersNoWait
// CHECK-DAG: gplan.arena @gpu0 bytes 256 offsets [0, 64, 128, 64, 0]
// CHECK: gplan.copy %{{.*}} to @cpu0 stream 1 wait(
// CHECK-NEXT: %[[E:.+]] = gplan.record on @cpu0 stream 1
// CHECK-NEXT: gplan.launch matmul({{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch exp(%{{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch neg(%{{.*}}) on @gpu0 stream 0 wait(%[[E]])
gplan.program @prefersNoWait {
  %x = gplan.input 0 : !gplan.buffer<2x2xf32>
  %w = gplan.input 1 : !gplan.buffer<2x16xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<2x2xf32>
  %p = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %e1 = gplan.record on @gpu0 stream 0
  %b = gplan.copy %a to @cpu0 stream 1 wait(%e1) : !gplan.buffer<2x2xf32>
  %q = gplan.launch matmul(%p, %w) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>, !gplan.buffer<2x16xf32>) -> !gplan.buffer<2x16xf32>
  %r = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %s = gplan.launch neg(%r) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %b, %q, %s : !gplan.buffer<2x2xf32>, !gplan.buffer<2x16xf32>, !gplan.buffer<2x2xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that a step cannot wait for a fusion group that ends after it: %a's
// last reader is the group, whose kernel runs with its last launch's
// place in program order still to come, so %c grows the arena.
// CHECK-LABEL: gplan.program @groupNotEnded
// CHECK-NEXT: gplan.arena @gpu0 bytes 192 offsets [0, -1, 128, 64]
// CHECK-NOT: gplan.record on @gpu0 stream 0
gplan.program @groupNotEnded {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %f1 = gplan.launch exp(%a) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %c = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %f2 = gplan.launch neg(%f1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %f2, %c : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"

// Tests a fusion group: values only the group reads need no memory (-1);
// constants and variables are persistent memory, counted per device.
// CHECK: gplan.device @gpu0 {{.*}} {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
// CHECK: gplan.device @cpu0 {{.*}} {arena_bytes = 0 : i64, peak_bytes = 128 : i64, persistent_bytes = 128 : i64}
// CHECK-LABEL: gplan.program @fused
// CHECK-NEXT: gplan.arena @gpu0 bytes 128 offsets [0, -1, 64, -1, -1]
gplan.program @fused {
  %k = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  %w = gplan.variable @cpu0 "w" dense<1.0> : tensor<4xf32>
  %x = gplan.copy %k to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%x) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch neg(%2) on @gpu0 stream 0 fusion 1 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch exp(%3) on @gpu0 stream 0 fusion 1 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2 : !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests the host: %h's last reader is the GPU's copy. A CPU step never
// waits for another device (the host would wait for the GPU between two of
// the GPU's steps, and the GPU's part could not be one CUDA graph), so %k
// grows the CPU's arena instead of taking %h's memory.
// CHECK-LABEL: gplan.program @hostDoesNotWaitForTheGpu
// CHECK-DAG: gplan.arena @cpu0 bytes 128 offsets [0, 64]
// CHECK: gplan.launch neg(%{{.*}}) on @cpu0 stream 0 :
gplan.program @hostDoesNotWaitForTheGpu {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %h = gplan.launch exp(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %e1 = gplan.record on @cpu0 stream 0
  %g = gplan.copy %h to @gpu0 stream 1 wait(%e1) : !gplan.buffer<4xf32>
  %k = gplan.launch neg(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %g, %k : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"

// Tests workspaces (--gplace-size-workspaces): a launch's workspace is
// memory in use while the launch alone runs, with its offset after the
// launch's results. %a's workspace (64) is free once %a has run, so %b's
// result takes it, and %b's workspace (256 bytes) grows the arena from
// 128; %c takes %a's result's slot (0), read last by %b; the in-place
// launch's workspace, before its token, takes %b's result's (64), read
// last by %c.
// CHECK-LABEL: gplan.program @workspaces
// CHECK-NEXT: gplan.arena @cpu0 bytes 384 offsets [0, 64, 64, 128, 0, 64]
gplan.program @workspaces {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %v = gplan.variable @cpu0 "v" dense<0.0> : tensor<4xf32>
  %a:2 = gplan.launch exp(%x) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>, !gplan.buffer<256xui8>
  %b:2 = gplan.launch exp(%a#0) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>, !gplan.buffer<200xui8>
  %c = gplan.launch exp(%b#0) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %t:2 = gplan.launch assign_add(%c) into(%v) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) into(!gplan.buffer<4xf32>) -> !gplan.buffer<64xui8>, !gplan.token
  gplan.return %c : !gplan.buffer<4xf32>
}
