// Tests --gplace-verify-plan: a plan the runtime can run passes unchanged;
// each broken invariant is an error at the offending op.
// RUN: gplace-opt %s --split-input-file --gplace-verify-plan -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gplan.program @complete
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @complete {
  gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %2 = gplan.launch exp(%1) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch neg(%2) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %3 : !gplan.buffer<4xf32>
}

// -----

// expected-error @+1 {{'gplan.device' op has no memory plan; run --gplace-plan-memory}}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @noMemoryPlan {
  gplan.return
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @unscheduled {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.copy' op has no stream; run --gplace-schedule-plan first}}
  %1 = gplan.copy %0 to @gpu0 : !gplan.buffer<4xf32>
  gplan.return
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @joinLeft {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.join' op is left in a scheduled plan; run --gplace-schedule-plan}}
  %t = gplan.join %0 : !gplan.buffer<4xf32>
  gplan.return
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @fusionNotConsecutive {
  gplan.arena @gpu0 bytes 64 offsets [0, 0, 0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op is in fusion group 0, whose launches must be consecutive on one stream}}
  %3 = gplan.launch neg(%1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2, %3 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @noArena {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes a buffer on @gpu0, which has no gplan.arena; run --gplace-plan-memory}}
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @outsideTheArena {
  gplan.arena @gpu0 bytes 64 offsets [0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes buffer #0 of @gpu0 at offset 0, which does not hold it inside the arena of 64 bytes}}
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<64xf32>
  gplan.return %1 : !gplan.buffer<64xf32>
}

// -----

// An offset whose sum with the buffer's size wraps past 2^63 (it passed).
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 192 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
gplan.program @offsetPlusSizeOverflows {
  gplan.arena @cpu0 bytes 192 offsets [128]
  %0 = gplan.input 0 : !gplan.buffer<9223372036854775680xui8>
  // expected-error @+1 {{'gplan.copy' op writes buffer #0 of @cpu0 at offset 128, which does not hold it inside the arena of 192 bytes}}
  %1 = gplan.copy %0 to @cpu0 stream 1 : !gplan.buffer<9223372036854775680xui8>
  gplan.return %1 : !gplan.buffer<9223372036854775680xui8>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @registersAreMinusOne {
  gplan.arena @gpu0 bytes 64 offsets [-1]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes buffer #0 of @gpu0 at offset -1, which does not hold it inside the arena of 64 bytes}}
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @tooManyOffsets {
  // expected-error @+1 {{'gplan.arena' op has 2 offsets, but the program writes 1 buffers on @gpu0}}
  gplan.arena @gpu0 bytes 64 offsets [0, 0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @registersHaveNoSlot {
  gplan.arena @gpu0 bytes 128 offsets [0, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes buffer #0 of @gpu0 at offset 0, which must be -1: the value stays in registers}}
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @waitOwnStream {
  gplan.arena @gpu0 bytes 128 offsets [0, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 0
  // expected-error @+1 {{'gplan.launch' op waits for an event of its own stream (@gpu0 stream 0)}}
  %2 = gplan.launch neg(%1) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @waitInsideGroup {
  gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %2 = gplan.launch exp(%0) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op waits for events inside fusion group 0; only a group's first launch may wait}}
  %3 = gplan.launch add(%2, %1) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %3 : !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @readWithoutWait {
  gplan.arena @gpu0 bytes 128 offsets [0, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %v = gplan.view %1 : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op uses a buffer written by gplan.copy on another stream without waiting for it}}
  %2 = gplan.launch exp(%v) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %2 : !gplan.buffer<2x2xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @sharedWhileLive {
  gplan.arena @gpu0 bytes 64 offsets [0, 0, 0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes a buffer at offset 0 of @gpu0 while the buffer of gplan.launch there may still be in use}}
  %2 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch add(%1, %2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %3 : !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @reusedAcrossStreamsWithoutEvent {
  gplan.arena @gpu0 bytes 64 offsets [0, 0]
  gplan.arena @cpu0 bytes 64 offsets [0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 0
  %2 = gplan.copy %1 to @cpu0 stream 1 wait(%e) : !gplan.buffer<4xf32>
  // The CPU's copy may still be reading %1.
  // expected-error @+1 {{'gplan.launch' op writes a buffer at offset 0 of @gpu0 while the buffer of gplan.launch there may still be in use}}
  %3 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2, %3 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @reusedAcrossStreamsAfterEvent
gplan.program @reusedAcrossStreamsAfterEvent {
  gplan.arena @gpu0 bytes 64 offsets [0, 0]
  gplan.arena @cpu0 bytes 64 offsets [0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 0
  %2 = gplan.copy %1 to @cpu0 stream 1 wait(%e) : !gplan.buffer<4xf32>
  %f = gplan.record on @cpu0 stream 1
  %3 = gplan.launch neg(%0) on @gpu0 stream 0 wait(%f) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2, %3 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @resultOverwritten {
  gplan.arena @gpu0 bytes 64 offsets [0, 0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op writes a buffer at offset 0 of @gpu0 while the buffer of gplan.launch there may still be in use}}
  %2 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1, %2 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 192 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
gplan.program @spansTwoSlots {
  gplan.arena @gpu0 bytes 192 offsets [0, 64, 128, 0, 128]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %w = gplan.input 1 : !gplan.buffer<4x32xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch exp(%1) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %v = gplan.view %3 : !gplan.buffer<4xf32> -> !gplan.buffer<1x4xf32>
  // [0, 128) takes %1's slot, which is free, and %2's, which is not.
  // expected-error @+1 {{'gplan.launch' op writes a buffer at offset 0 of @gpu0 while the buffer of gplan.launch there may still be in use}}
  %4 = gplan.launch matmul(%v, %w) on @gpu0 stream 0 : (!gplan.buffer<1x4xf32>, !gplan.buffer<4x32xf32>) -> !gplan.buffer<1x32xf32>
  %5 = gplan.launch exp(%2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %4, %5 : !gplan.buffer<1x32xf32>, !gplan.buffer<4xf32>
}

// -----

// An empty tensor at the offset of a buffer still in use takes none of its
// memory, and %w, written over %a before %s reads it, is still caught.
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @emptyTensorHidesNoTenant {
  gplan.arena @gpu0 bytes 128 offsets [0, 0, 0, 64]
  %x = gplan.input 0 : !gplan.buffer<16xf32>
  %a = gplan.launch neg(%x) on @gpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<16xf32>
  %z = gplan.launch broadcast_to(%x) on @gpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<0x16xf32>
  // expected-error @+1 {{'gplan.launch' op writes a buffer at offset 0 of @gpu0 while the buffer of gplan.launch there may still be in use}}
  %w = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<16xf32>
  %s = gplan.launch add(%a, %w) on @gpu0 stream 0 : (!gplan.buffer<16xf32>, !gplan.buffer<16xf32>) -> !gplan.buffer<16xf32>
  gplan.return %s, %z : !gplan.buffer<16xf32>, !gplan.buffer<0x16xf32>
}

// -----

// expected-error @+1 {{'gplan.device' op has persistent_bytes = 0, but its constants and variables take 64 bytes}}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 0 : i64, peak_bytes = 0 : i64, persistent_bytes = 0 : i64}
gplan.program @persistentTooSmall {
  %0 = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  gplan.return %0 : !gplan.buffer<4xf32>
}

// -----

// expected-error @+1 {{'gplan.device' op has peak_bytes = 64, but persistent_bytes + arena_bytes = 64 + 64}}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 64 : i64}
gplan.program @peakNotTheSum {
  gplan.arena @cpu0 bytes 64 offsets [0]
  %0 = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  %1 = gplan.launch exp(%0) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}
