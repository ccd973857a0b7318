gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

gplan.program @groupNotEnded {
  %x = gplan.input 0 : !gplan.buffer<4xf32>
  %a = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %f1 = gplan.launch exp(%a) on @gpu0 stream 0 fusion 0 wait(%e) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %c = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %f2 = gplan.launch neg(%f1) on @gpu0 stream 0 fusion 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %f2, %c : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}
