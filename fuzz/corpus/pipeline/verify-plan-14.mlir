gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @reusedAcrossStreamsWithoutEvent {
  gplan.arena @gpu0 bytes 64 offsets [0, 0]
  gplan.arena @cpu0 bytes 64 offsets [0]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 0
  %2 = gplan.copy %1 to @cpu0 stream 1 wait(%e) : !gplan.buffer<4xf32>
  %3 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2, %3 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}
