gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 128 : i64, peak_bytes = 128 : i64, persistent_bytes = 0 : i64}
gplan.program @readWithoutWait {
  gplan.arena @gpu0 bytes 128 offsets [0, 64]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %v = gplan.view %1 : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
  %2 = gplan.launch exp(%v) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %2 : !gplan.buffer<2x2xf32>
}
