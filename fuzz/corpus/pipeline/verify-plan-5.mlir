gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @noArena {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}
