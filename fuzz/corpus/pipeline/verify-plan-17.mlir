gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 192 : i64, peak_bytes = 192 : i64, persistent_bytes = 0 : i64}
gplan.program @spansTwoSlots {
  gplan.arena @gpu0 bytes 192 offsets [0, 64, 128, 0, 128]
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %w = gplan.input 1 : !gplan.buffer<4x32xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch exp(%1) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %v = gplan.view %3 : !gplan.buffer<4xf32> -> !gplan.buffer<1x4xf32>
  %4 = gplan.launch matmul(%v, %w) on @gpu0 stream 0 : (!gplan.buffer<1x4xf32>, !gplan.buffer<4x32xf32>) -> !gplan.buffer<1x32xf32>
  %5 = gplan.launch exp(%2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %4, %5 : !gplan.buffer<1x32xf32>, !gplan.buffer<4xf32>
}
