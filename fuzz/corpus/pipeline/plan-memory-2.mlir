gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

gplan.program @prefersNoWait {
  %x = gplan.input 0 : !gplan.buffer<2x2xf32>
  %w = gplan.input 1 : !gplan.buffer<2x16xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<2x2xf32>
  %p = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %e1 = gplan.record on @gpu0 stream 0
  %b = gplan.copy %a to @cpu0 stream 1 wait(%e1) : !gplan.buffer<2x2xf32>
  %q = gplan.launch matmul(%p, %w) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>, !gplan.buffer<2x16xf32>) -> !gplan.buffer<2x16xf32>
  %r = gplan.launch exp(%x) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  %s = gplan.launch neg(%r) on @gpu0 stream 0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %b, %q, %s : !gplan.buffer<2x2xf32>, !gplan.buffer<2x16xf32>, !gplan.buffer<2x2xf32>
}
