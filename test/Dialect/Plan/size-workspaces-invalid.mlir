// Tests that --gplace-size-workspaces reports, and never crashes on, a
// hand-written convolution launch the graph's verifiers would not have
// made (the launch's parameters are checked for their kinds only): input
// channels that are no multiple of the filter's (a division by zero),
// window arrays without values, a stride beyond oneDNN's int range.
// REQUIRES: dnnl
// RUN: gplace-opt %s --split-input-file --gplace-size-workspaces -verify-diagnostics

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @channels {
  %x = gplan.input 0 : !gplan.buffer<2x3x7x6xf32>
  %w = gplan.input 1 : !gplan.buffer<3x3x5x17xf32>
  // expected-error @+1 {{'gplan.launch' op has no workspace size: gplace.conv2d: 3 input channels and a filter of 3x3x5x17xf32 (the input's channels must be a multiple of the filter's, and the groups must divide the output channels)}}
  %y = gplan.launch conv2d(%x, %w) on @cpu0 stream 0 {channels_first, window_dilations = array<i64: 1, 1>, window_pads = array<i64: 1, 1, 1, 1>, window_size = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (!gplan.buffer<2x3x7x6xf32>, !gplan.buffer<3x3x5x17xf32>) -> !gplan.buffer<2x17x7x6xf32>
  gplan.return %y : !gplan.buffer<2x17x7x6xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @emptyWindow {
  %x = gplan.input 0 : !gplan.buffer<2x3x7x6xf32>
  %w = gplan.input 1 : !gplan.buffer<3x3x3x17xf32>
  // expected-error @+1 {{'gplan.launch' op has no workspace size: gplace.conv2d: window_size has 0 values, not 2}}
  %y = gplan.launch conv2d(%x, %w) on @cpu0 stream 0 {channels_first, window_dilations = array<i64>, window_pads = array<i64>, window_size = array<i64>, window_strides = array<i64>} : (!gplan.buffer<2x3x7x6xf32>, !gplan.buffer<3x3x3x17xf32>) -> !gplan.buffer<2x17x7x6xf32>
  gplan.return %y : !gplan.buffer<2x17x7x6xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @emptyPoolWindow {
  %x = gplan.input 0 : !gplan.buffer<2x8x8x3xf32>
  %w = gplan.input 1 : !gplan.buffer<3x3x3x4xf32>
  %b = gplan.input 2 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op has no workspace size: gplace.fused_conv2d_pool: pool_window_size has 0 values, not 2}}
  %y = gplan.launch fused_conv2d_pool(%x, %w, %b) on @cpu0 stream 0 {window_dilations = array<i64: 1, 1>, window_pads = array<i64: 1, 1, 1, 1>, window_size = array<i64: 3, 3>, window_strides = array<i64: 1, 1>, pool_window_size = array<i64>, pool_window_strides = array<i64>, pool_window_pads = array<i64>} : (!gplan.buffer<2x8x8x3xf32>, !gplan.buffer<3x3x3x4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<2x4x4x4xf32>
  gplan.return %y : !gplan.buffer<2x4x4x4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @hugeStride {
  %x = gplan.input 0 : !gplan.buffer<1x3x3x1xf32>
  %w = gplan.input 1 : !gplan.buffer<2x2x1x1xf32>
  // expected-error @+1 {{'gplan.launch' op has no workspace size: gplace.conv2d: window_strides value 2147483648 is outside 0 to 2^31 - 1 (oneDNN's range)}}
  %y = gplan.launch conv2d(%x, %w) on @cpu0 stream 0 {window_dilations = array<i64: 1, 1>, window_pads = array<i64: 0, 0, 0, 0>, window_size = array<i64: 2, 2>, window_strides = array<i64: 2147483648, 2147483648>} : (!gplan.buffer<1x3x3x1xf32>, !gplan.buffer<2x2x1x1xf32>) -> !gplan.buffer<1x1x1x1xf32>
  gplan.return %y : !gplan.buffer<1x1x1x1xf32>
}
