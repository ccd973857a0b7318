gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @joinLeft {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %t = gplan.join %0 : !gplan.buffer<4xf32>
  gplan.return
}
