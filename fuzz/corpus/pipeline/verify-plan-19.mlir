gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 64 : i64}
gplan.program @peakNotTheSum {
  gplan.arena @cpu0 bytes 64 offsets [0]
  %0 = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  %1 = gplan.launch exp(%0) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}
