gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

gplan.program @oneStream {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %2 = gplan.launch exp(%1) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %v = gplan.view %1 : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
  %3 = gplan.launch exp(%2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch neg(%v) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %5 = gplan.launch exp(%3) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %4, %5 : !gplan.buffer<2x2xf32>, !gplan.buffer<4xf32>
}
