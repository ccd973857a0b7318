gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @waitInsideGroup {
  gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %2 = gplan.launch exp(%0) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch add(%2, %1) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %3 : !gplan.buffer<4xf32>
}
