gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

gplan.program @acrossStreams {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %e1 = gplan.record on @gpu0 stream 0
  %b = gplan.copy %a to @cpu0 stream 1 wait(%e1) : !gplan.buffer<4xf32>
  %e2 = gplan.record on @cpu0 stream 1
  %c = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %c2 = gplan.launch exp(%c) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %d = gplan.launch neg(%c2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %b, %d : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}
