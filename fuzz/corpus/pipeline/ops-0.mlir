gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {arena_bytes = 128 : i64, memory_limit = 0 : i64, peak_bytes = 192 : i64, persistent_bytes = 64 : i64}
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {memory_limit = 1024 : i64}

gplan.program @unscheduled {
  %0 = gplan.input 0 : !gplan.buffer<2x3xf32>
  %1 = gplan.variable @cpu0 "v" dense<0.0> : tensor<2x3xf32>
  %t = gplan.launch assign(%0) into(%1) on @cpu0 : (!gplan.buffer<2x3xf32>) into(!gplan.buffer<2x3xf32>) -> !gplan.token
  %2 = gplan.view %1 after(%t) : !gplan.buffer<2x3xf32> -> !gplan.buffer<6xf32>
  %j = gplan.join %2, %t : !gplan.buffer<6xf32>, !gplan.token
  %3 = gplan.copy %2 to @gpu0 after(%j) : !gplan.buffer<6xf32>
  %4 = gplan.launch reduce_max(%3) on @gpu0 {axes = array<i64: 0>} : (!gplan.buffer<6xf32>) -> !gplan.buffer<f32>
  gplan.return %4 : !gplan.buffer<f32>
}

gplan.program @scheduled {
  gplan.arena @gpu0 bytes 128 offsets [0, -1, 64]
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  %1 = gplan.constant @cpu0 dense<1.0> : tensor<2xf32>
  %2 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<2xf32>
  %e = gplan.record on @gpu0 stream 1
  %3 = gplan.launch add(%2, %2) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<2xf32>, !gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  %4 = gplan.launch relu(%3) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  %5 = gplan.input 1 : !gplan.buffer<2x3xf32>
  %6 = gplan.launch matmul(%5, %5) on @cpu0 stream 0 {transpose_b} : (!gplan.buffer<2x3xf32>, !gplan.buffer<2x3xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %4, %6 : !gplan.buffer<2xf32>, !gplan.buffer<2x2xf32>
}

"test.kernel_attr"() {"kernel" = #gplan.kernel<softmax>} : () -> ()
