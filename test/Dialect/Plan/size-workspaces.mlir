// REQUIRES: dnnl
// Tests --gplace-size-workspaces with gplace-opt's kernel library (the
// host kernels'): a CPU launch of a oneDNN kernel that reorders its
// tensors (an NCHW convolution, run blocked) gets a workspace result of
// the bytes it takes, and uses of its results move to the new launch; an
// elementwise launch takes none; a GPU's launch is left to the GPU's
// library; a launch with a workspace already keeps it, so running the
// pass twice changes nothing. --gplace-plan-memory then gives the
// workspace an arena slot after the result's, free once the launch has run.
// RUN: gplace-opt %s --gplace-size-workspaces | FileCheck %s
// RUN: gplace-opt %s --gplace-size-workspaces --gplace-size-workspaces | FileCheck %s
// RUN: gplace-opt %s --gplace-size-workspaces --gplace-plan-memory --gplace-verify-plan | FileCheck %s --check-prefix=MEMORY
// RUN: gplace-opt %s --gplace-size-workspaces --gplace-plan-memory --gplace-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// CHECK-LABEL: gplan.program @main
// CHECK: %[[Y:.*]]:2 = gplan.launch conv2d(%{{.*}}, %{{.*}}) on @cpu0 stream 0 workspace {channels_first, {{.*}}} : (!gplan.buffer<2x3x7x6xf32>, !gplan.buffer<3x3x3x17xf32>) -> !gplan.buffer<2x17x7x6xf32>, !gplan.buffer<{{[1-9][0-9]*}}xui8>
// CHECK-NEXT: %[[Z:.*]] = gplan.launch exp(%[[Y]]#0) on @cpu0 stream 0 : (!gplan.buffer<2x17x7x6xf32>) -> !gplan.buffer<2x17x7x6xf32>
// CHECK-NEXT: %[[E:.*]] = gplan.record on @cpu0 stream 0
// CHECK-NEXT: %[[G:.*]] = gplan.copy %[[X:.*]] to @gpu0 stream 1 : !gplan.buffer<2x3x7x6xf32>
// CHECK: gplan.launch conv2d(%{{.*}}, %{{.*}}) on @gpu0 stream 0 wait(%{{.*}}) {channels_first, {{.*}} -> !gplan.buffer<2x17x7x6xf32>
// CHECK: gplan.launch max_pool(%{{.*}}) on @cpu0 stream 0 workspace {{.*}} -> !gplan.buffer<2x17x3x3xf32>, !gplan.buffer<64xui8>
// CHECK: gplan.return %[[Z]]

// The conv's result (0) and workspace (5760, after it), exp's result in
// the workspace's memory (the conv's result is still read), max_pool's
// result in the conv's and its workspace after it; the GPU has none.
// MEMORY: gplan.arena @cpu0 bytes {{[0-9]+}} offsets [0, 5760, 5760, 0, 1280]
// MEMORY-NEXT: gplan.arena @gpu0 bytes 8640 offsets [0, 1024, 2880]
// PRINT: @main tensor<{{[0-9]+}}xui8> (workspace of conv2d): {{[0-9]+}} bytes at [5760, {{[0-9]+}}), live steps 0..0
// PRINT: @main tensor<64xui8> (workspace of max_pool): 64 bytes at [1280, 1344), live steps 5..5
gplan.program @main {
  %x = gplan.input 0 : !gplan.buffer<2x3x7x6xf32>
  %w = gplan.constant @cpu0 dense<1.0> : tensor<3x3x3x17xf32>
  %y = gplan.launch conv2d(%x, %w) on @cpu0 stream 0 {channels_first, window_dilations = array<i64: 1, 1>, window_pads = array<i64: 1, 1, 1, 1>, window_size = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (!gplan.buffer<2x3x7x6xf32>, !gplan.buffer<3x3x3x17xf32>) -> !gplan.buffer<2x17x7x6xf32>
  %z = gplan.launch exp(%y) on @cpu0 stream 0 : (!gplan.buffer<2x17x7x6xf32>) -> !gplan.buffer<2x17x7x6xf32>
  %e = gplan.record on @cpu0 stream 0
  %xg = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<2x3x7x6xf32>
  %wg = gplan.copy %w to @gpu0 stream 1 : !gplan.buffer<3x3x3x17xf32>
  %eg = gplan.record on @gpu0 stream 1
  %yg = gplan.launch conv2d(%xg, %wg) on @gpu0 stream 0 wait(%eg) {channels_first, window_dilations = array<i64: 1, 1>, window_pads = array<i64: 1, 1, 1, 1>, window_size = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (!gplan.buffer<2x3x7x6xf32>, !gplan.buffer<3x3x3x17xf32>) -> !gplan.buffer<2x17x7x6xf32>
  %p:2 = gplan.launch max_pool(%z) on @cpu0 stream 0 workspace {channels_first, window_dilations = array<i64: 1, 1>, window_pads = array<i64: 0, 0, 0, 0>, window_size = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (!gplan.buffer<2x17x7x6xf32>) -> !gplan.buffer<2x17x3x3xf32>, !gplan.buffer<64xui8>
  gplan.return %z : !gplan.buffer<2x17x7x6xf32>
}
