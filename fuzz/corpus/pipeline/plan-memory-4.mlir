gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"

gplan.program @fused {
  %k = gplan.constant @cpu0 dense<1.0> : tensor<4xf32>
  %w = gplan.variable @cpu0 "w" dense<1.0> : tensor<4xf32>
  %x = gplan.copy %k to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%x) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch neg(%2) on @gpu0 stream 0 fusion 1 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch exp(%3) on @gpu0 stream 0 fusion 1 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %2 : !gplan.buffer<4xf32>
}
