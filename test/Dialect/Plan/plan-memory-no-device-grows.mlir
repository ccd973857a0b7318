// Tests that --gplace-plan-memory keeps best fit by size only where no
// device's arena grows, the CPU's limit included.
// RUN: gplace-opt %s --gplace-plan-memory | FileCheck %s
// RUN: gplace-opt %s --gplace-plan-memory --gplace-verify-plan | FileCheck %s

// Best fit on one device must not cost another. First fit makes the GPU's
// copy %Z wait (%8) for the copies of %X1 and %X2, to reuse their memory;
// the CPU, waiting for %Z's event, then knows those copies have run and
// writes %Y1 and %Y2 over %X1 and %X2: 8192 bytes. By size the GPU's arena
// would be 64 bytes smaller with %Z waiting for nothing, and the CPU would
// need 16384 bytes, over its limit: first fit's plan stays.
// CHECK: gplan.device @cpu0 {{.*}} {arena_bytes = 8192 : i64, memory_limit = 10000 : i64, peak_bytes = 8192 : i64, persistent_bytes = 0 : i64}
// CHECK: gplan.device @gpu0 {{.*}} {arena_bytes = 24704 : i64, peak_bytes = 24704 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @noDeviceGrows
// CHECK-NEXT: gplan.arena @cpu0 bytes 8192 offsets [0, 4096, 0, 4096]
// CHECK-NEXT: gplan.arena @gpu0 bytes 24704 offsets [0, 4096, 8192, 0, 64, 128, 8320, 128]
// CHECK: %[[E:.+]] = gplan.record on @gpu0 stream 0
// CHECK-NEXT: gplan.copy %{{.*}} to @gpu0 stream 1 wait(%[[E]])
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {memory_limit = 10000 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @noDeviceGrows {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %X1 = gplan.launch broadcast_to(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<64x16xf32>
  %X2 = gplan.launch broadcast_to(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<64x16xf32>
  %e1 = gplan.record on @cpu0 stream 0
  %Xg1 = gplan.copy %X1 to @gpu0 stream 0 wait(%e1) : !gplan.buffer<64x16xf32>
  %Xg2 = gplan.copy %X2 to @gpu0 stream 0 : !gplan.buffer<64x16xf32>
  %A = gplan.launch add(%Xg1, %Xg2) on @gpu0 stream 0 : (!gplan.buffer<64x16xf32>, !gplan.buffer<64x16xf32>) -> !gplan.buffer<64x16xf32>
  %U = gplan.launch reduce_sum(%A) on @gpu0 stream 0 {axes = array<i64: 0>} : (!gplan.buffer<64x16xf32>) -> !gplan.buffer<16xf32>
  %Z = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e2 = gplan.record on @gpu0 stream 1
  %Y1 = gplan.launch broadcast_to(%x) on @cpu0 stream 0 wait(%e2) : (!gplan.buffer<4xf32>) -> !gplan.buffer<64x16xf32>
  %Y2 = gplan.launch broadcast_to(%x) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<64x16xf32>
  %b = gplan.launch broadcast_to(%U) on @gpu0 stream 0 : (!gplan.buffer<16xf32>) -> !gplan.buffer<128x16xf32>
  %c = gplan.launch broadcast_to(%b) on @gpu0 stream 0 : (!gplan.buffer<128x16xf32>) -> !gplan.buffer<2x128x16xf32>
  %d = gplan.launch reduce_sum(%c) on @gpu0 stream 0 {axes = array<i64: 0>} : (!gplan.buffer<2x128x16xf32>) -> !gplan.buffer<128x16xf32>
  gplan.return %Y1, %Y2, %Z, %d : !gplan.buffer<64x16xf32>, !gplan.buffer<64x16xf32>, !gplan.buffer<4xf32>, !gplan.buffer<128x16xf32>
}
