gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 0 : i64, peak_bytes = 0 : i64, persistent_bytes = 0 : i64}
gplan.program @persistentTooSmall {
  %0 = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  gplan.return %0 : !gplan.buffer<4xf32>
}
