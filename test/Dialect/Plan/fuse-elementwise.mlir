// Tests --gplace-fuse-elementwise: runs of elementwise launches with one
// result type on a stream, a GPU's or a CPU's, become fusion groups;
// events, other steps of the stream, other types, non-elementwise kernels
// and the limits end a run.
// RUN: gplace-opt %s --split-input-file --gplace-fuse-elementwise | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-fuse-elementwise --gplace-fuse-elementwise | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-fuse-elementwise="max-launches=2" | FileCheck %s --check-prefix=TWO
// RUN: %python %s.py | gplace-opt --gplace-fuse-elementwise | FileCheck %s --check-prefix=BUFFERS

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that a chain on the GPU is one group, another stream's steps in
// between do not break it, and a chain on the CPU is a group of its own.
// CHECK-LABEL: gplan.program @chains
// CHECK: gplan.launch add({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-NEXT: gplan.copy {{.*}} to @cpu0 stream 1
// CHECK-NEXT: gplan.launch mul({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-NEXT: gplan.launch relu({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-NEXT: gplan.launch add({{.*}}) on @cpu0 stream 0 fusion 1
// CHECK-NEXT: gplan.launch relu({{.*}}) on @cpu0 stream 0 fusion 1
// TWO-LABEL: gplan.program @chains
// TWO: gplan.launch add({{.*}}) on @gpu0 stream 0 fusion 0
// TWO: gplan.launch mul({{.*}}) on @gpu0 stream 0 fusion 0
// TWO-NEXT: gplan.launch relu({{.*}}) on @gpu0 stream 0 :
gplan.program @chains {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %c = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %1 = gplan.launch add(%c, %c) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.copy %0 to @cpu0 stream 1 : !gplan.buffer<4xf32>
  %3 = gplan.launch mul(%1, %c) on @gpu0 stream 0 : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch relu(%3) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %5 = gplan.launch add(%0, %0) on @cpu0 stream 0 : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %6 = gplan.launch relu(%5) on @cpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %4, %6 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests what ends a run: an event on the stream, a non-elementwise kernel,
// another result type; groups are numbered in program order.
// CHECK-LABEL: gplan.program @breaks
// CHECK: gplan.launch exp({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-NEXT: gplan.launch neg({{.*}}) on @gpu0 stream 0 fusion 0
// CHECK-NEXT: gplan.record on @gpu0 stream 0
// CHECK-NEXT: gplan.launch tanh({{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch softmax({{.*}}) on @gpu0 stream 0 :
// CHECK-NEXT: gplan.launch exp({{.*}}) on @gpu0 stream 0 fusion 1
// CHECK-NEXT: gplan.launch log({{.*}}) on @gpu0 stream 0 fusion 1
// CHECK: gplan.launch add({{.*}}) on @gpu0 stream 0 : (!gplan.buffer<2x4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<2x4xf32>
gplan.program @breaks {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %2 = gplan.launch exp(%1) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.launch neg(%2) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %f = gplan.record on @gpu0 stream 0
  %4 = gplan.launch tanh(%3) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %5 = gplan.launch softmax(%4) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %6 = gplan.launch exp(%5) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %7 = gplan.launch log(%6) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %8 = gplan.input 1 : !gplan.buffer<2x4xf32>
  %9 = gplan.copy %8 to @gpu0 stream 1 : !gplan.buffer<2x4xf32>
  %10 = gplan.launch add(%9, %7) on @gpu0 stream 0 : (!gplan.buffer<2x4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<2x4xf32>
  gplan.return %10 : !gplan.buffer<2x4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that a launch waiting for an event starts a new run: the wait
// comes before it, so it cannot join the kernel of the launches before.
// CHECK-LABEL: gplan.program @waitStartsRun
// CHECK: gplan.launch exp({{.*}}) on @gpu0 stream 0 fusion 0 :
// CHECK-NEXT: gplan.launch neg({{.*}}) on @gpu0 stream 0 fusion 0 :
// CHECK-NEXT: gplan.copy
// CHECK-NEXT: gplan.record
// CHECK-NEXT: gplan.launch add({{.*}}) on @gpu0 stream 0 fusion 1 wait(
// CHECK-NEXT: gplan.launch relu({{.*}}) on @gpu0 stream 0 fusion 1 :
gplan.program @waitStartsRun {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %2 = gplan.launch neg(%1) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.copy %0 to @gpu0 stream 1 : !gplan.buffer<4xf32>
  %e = gplan.record on @gpu0 stream 1
  %4 = gplan.launch add(%2, %3) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %5 = gplan.launch relu(%4) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %5 : !gplan.buffer<4xf32>
}

// Tests the 256-buffer bound, on the plan fuse-elementwise.mlir.py writes:
// three add_n of 100 inputs; the third would take the kernel past 256.
// BUFFERS: gplan.launch add_n({{.*}}) on @gpu0 stream 0 fusion 0
// BUFFERS: gplan.launch add_n({{.*}}) on @gpu0 stream 0 fusion 0
// BUFFERS: gplan.launch add_n({{.*}}) on @gpu0 stream 0 :
