// --gplace-layout (Grappler's layout optimizer, for the CPU): NCHW
// layout-sensitive ops that can only run on a CPU run NHWC, transposed at
// the borders of the NCHW region; transposes move down through elementwise
// ops and cancel in pairs.
// RUN: gplace-opt %s --gplace-layout --split-input-file | FileCheck %s
// The pipeline runs it, unless layout-optimizer=false.
// RUN: gplace-opt %s --gplace-pipeline --split-input-file | FileCheck %s --check-prefix=PIPELINE
// RUN: gplace-opt %s --gplace-pipeline="layout-optimizer=false" --split-input-file | FileCheck %s --check-prefix=OFF

// An NCHW pool on the CPU runs NHWC between two transposes.
// CHECK-LABEL: func.func @pool
// CHECK-NEXT: %[[T:.*]] = gplace.transpose %arg0 perm = [0, 2, 3, 1] {name = "MaxPool-0-TransposeNCHWToNHWC-LayoutOptimizer"} : tensor<8x32x28x28xf32> -> tensor<8x28x28x32xf32>
// CHECK-NEXT: %[[P:.*]] = gplace.max_pool %[[T]] ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32> -> tensor<8x14x14x32xf32>
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[P]] perm = [0, 3, 1, 2] {name = "MaxPool-0-TransposeNHWCToNCHW-LayoutOptimizer"} : tensor<8x14x14x32xf32> -> tensor<8x32x14x14xf32>
// CHECK-NEXT: return %[[B]]
// PIPELINE-LABEL: gplan.program @pool
// PIPELINE: gplan.launch max_pool(%{{.*}}) on @cpu0 stream 0 {window_dilations = {{.*}} -> !gplan.buffer<8x14x14x32xf32>
// OFF-LABEL: gplan.program @pool
// OFF: gplan.launch max_pool(%{{.*}}) on @cpu0 stream 0 {{(workspace )?}}{channels_first, {{.*}} -> !gplan.buffer<8x32x14x14xf32>
func.func @pool(%x: tensor<8x32x28x28xf32>) -> tensor<8x32x14x14xf32> {
  %y = gplace.max_pool %x ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW"} : tensor<8x32x28x28xf32> -> tensor<8x32x14x14xf32>
  return %y : tensor<8x32x14x14xf32>
}

// -----

// An imported convolution with its [C, 1, 1] bias, a relu and a pool: one
// transpose in, one out; the bias is reshaped to [1, 1, 1, C].
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[T:.*]] = gplace.transpose %arg0 perm = [0, 2, 3, 1] {name = "conv-0-TransposeNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[C:.*]] = gplace.conv2d %[[T]], %arg1 strides = [1, 1, 1, 1] padding = "SAME" {name = "conv"} : tensor<4x9x9x2xf32>, tensor<3x3x2x8xf32> -> tensor<4x9x9x8xf32>
// CHECK-NEXT: %[[R:.*]] = gplace.reshape %arg2 {name = "bias-1-ReshapeNCHWToNHWC-LayoutOptimizer"} : tensor<8x1x1xf32> -> tensor<1x1x1x8xf32>
// CHECK-NEXT: %[[A:.*]] = gplace.add %[[C]], %[[R]] {name = "bias"} : (tensor<4x9x9x8xf32>, tensor<1x1x1x8xf32>) -> tensor<4x9x9x8xf32>
// CHECK-NEXT: %[[Y:.*]] = gplace.relu %[[A]] {name = "relu"} : tensor<4x9x9x8xf32>
// CHECK-NEXT: %[[P:.*]] = gplace.avg_pool %[[Y]] ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {name = "pool"} : tensor<4x9x9x8xf32> -> tensor<4x4x4x8xf32>
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[P]] perm = [0, 3, 1, 2] {name = "pool-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: return %[[B]]
func.func @chain(%x: tensor<4x2x9x9xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8x1x1xf32>) -> tensor<4x8x4x4xf32> {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW", name = "conv"} : tensor<4x2x9x9xf32>, tensor<3x3x2x8xf32> -> tensor<4x8x9x9xf32>
  %a = gplace.add %c, %b {name = "bias"} : (tensor<4x8x9x9xf32>, tensor<8x1x1xf32>) -> tensor<4x8x9x9xf32>
  %r = gplace.relu %a {name = "relu"} : tensor<4x8x9x9xf32>
  %p = gplace.avg_pool %r ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW", name = "pool"} : tensor<4x8x9x9xf32> -> tensor<4x8x4x4xf32>
  return %p : tensor<4x8x4x4xf32>
}

// -----

// One channel: the transpose in moves a unit dimension alone, so it is a
// reshape. Explicit paddings and dilations are permuted.
// CHECK-LABEL: func.func @one_channel
// CHECK-NEXT: %[[R:.*]] = gplace.reshape %arg0 {name = "Conv2D-0-TransposeNCHWToNHWC-LayoutOptimizer"} : tensor<4x1x5x5xf32> -> tensor<4x5x5x1xf32>
// CHECK-NEXT: %[[C:.*]] = gplace.conv2d %[[R]], %arg1 strides = [1, 2, 2, 1] padding = "EXPLICIT" {dilations = array<i64: 1, 2, 1, 1>, explicit_paddings = array<i64: 0, 0, 1, 0, 0, 1, 0, 0>} : tensor<4x5x5x1xf32>, tensor<2x2x1x3xf32> -> tensor<4x2x3x3xf32>
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[C]] perm = [0, 3, 1, 2] {name = "Conv2D-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: gplace.slice %[[B]]
func.func @one_channel(%x: tensor<4x1x5x5xf32>, %w: tensor<2x2x1x3xf32>) -> tensor<4x3x2x2xf32> {
  %c = gplace.conv2d %x, %w strides = [1, 1, 2, 2] padding = "EXPLICIT" {data_format = "NCHW", explicit_paddings = array<i64: 0, 0, 0, 0, 1, 0, 0, 1>, dilations = array<i64: 1, 1, 2, 1>} : tensor<4x1x5x5xf32>, tensor<2x2x1x3xf32> -> tensor<4x3x2x3xf32>
  %s = gplace.slice %c begin = [0, 0, 0, 0] size = [4, 3, 2, 2] : tensor<4x3x2x3xf32> -> tensor<4x3x2x2xf32>
  return %s : tensor<4x3x2x2xf32>
}

// -----

// With a GPU in the module's devices, an op without a request may run on
// it and keeps NCHW; one requesting the CPU runs NHWC, and so do its
// transposes. batch_mean is a vector: no transpose.
// CHECK-LABEL: func.func @gpu
// CHECK-NEXT: %[[P:.*]] = gplace.max_pool %arg0 ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW", name = "on_gpu"}
// CHECK-NEXT: %[[T:.*]] = gplace.transpose %arg0 perm = [0, 2, 3, 1] {device = "/cpu:0", name = "bn-0-TransposeNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[Y:.*]], %[[M:.*]], %{{.*}} = gplace.fused_batch_norm %[[T]], %arg1, %arg1, %arg1, %arg1 epsilon = 1.000000e-03 is_training {device = "/cpu:0", name = "bn"} : tensor<2x6x6x4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[Y]] perm = [0, 3, 1, 2] {device = "/cpu:0", name = "bn-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: return %[[P]], %[[B]], %[[M]]
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">]} {
  func.func @gpu(%x: tensor<2x4x6x6xf32>, %s: tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x4x6x6xf32>, tensor<4xf32>) {
    %p = gplace.max_pool %x ksize = [1, 1, 2, 2] strides = [1, 1, 2, 2] padding = "VALID" {data_format = "NCHW", name = "on_gpu"} : tensor<2x4x6x6xf32> -> tensor<2x4x3x3xf32>
    %y, %m, %v = gplace.fused_batch_norm %x, %s, %s, %s, %s epsilon = 1.0e-03 is_training {data_format = "NCHW", device = "/cpu:0", name = "bn"} : tensor<2x4x6x6xf32>, tensor<4xf32>
    return %p, %y, %m : tensor<2x4x3x3xf32>, tensor<2x4x6x6xf32>, tensor<4xf32>
  }
}

// -----

// Three convolutions of one input share one transpose. Both operands of
// `sum` come transposed and a scalar broadcasts either way: the transpose
// moves below them. A rank-1 operand broadcasts along the width, which
// NHWC cannot say in rank 1: the transpose stops before `rows`. A
// transpose with two users stays where it is.
// CHECK-LABEL: func.func @sink
// CHECK-NEXT: %[[T:.*]] = gplace.transpose %arg0 perm = [0, 2, 3, 1] {name = "a-0-TransposeNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[A:.*]] = gplace.conv2d %[[T]], %arg1 {{.*}} {name = "a"}
// CHECK-NEXT: %[[B:.*]] = gplace.conv2d %[[T]], %arg1 {{.*}} {name = "b"}
// CHECK-NEXT: %[[S:.*]] = gplace.add %[[A]], %[[B]] {name = "sum"} : (tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>) -> tensor<2x6x6x3xf32>
// CHECK-NEXT: %[[M:.*]] = gplace.mul %[[S]], %arg3 {name = "scaled"} : (tensor<2x6x6x3xf32>, tensor<f32>) -> tensor<2x6x6x3xf32>
// CHECK-NEXT: %[[MB:.*]] = gplace.transpose %[[M]] perm = [0, 3, 1, 2] {name = "scaled-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: %[[ROWS:.*]] = gplace.add %[[MB]], %arg2 {name = "rows"} : (tensor<2x3x6x6xf32>, tensor<6xf32>) -> tensor<2x3x6x6xf32>
// CHECK-NEXT: %[[C:.*]] = gplace.conv2d %[[T]], %arg1 {{.*}} {name = "c"}
// CHECK-NEXT: %[[CB:.*]] = gplace.transpose %[[C]] perm = [0, 3, 1, 2] {name = "c-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: gplace.exp %[[CB]] {name = "e"} : tensor<2x3x6x6xf32>
// CHECK-NEXT: gplace.exp %[[CB]] {name = "f"} : tensor<2x3x6x6xf32>
func.func @sink(%x: tensor<2x3x6x6xf32>, %w: tensor<1x1x3x3xf32>, %row: tensor<6xf32>, %s: tensor<f32>) -> (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) {
  %a = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW", name = "a"} : tensor<2x3x6x6xf32>, tensor<1x1x3x3xf32> -> tensor<2x3x6x6xf32>
  %b = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW", name = "b"} : tensor<2x3x6x6xf32>, tensor<1x1x3x3xf32> -> tensor<2x3x6x6xf32>
  %sum = gplace.add %a, %b {name = "sum"} : (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  %scaled = gplace.mul %sum, %s {name = "scaled"} : (tensor<2x3x6x6xf32>, tensor<f32>) -> tensor<2x3x6x6xf32>
  %rows = gplace.add %scaled, %row {name = "rows"} : (tensor<2x3x6x6xf32>, tensor<6xf32>) -> tensor<2x3x6x6xf32>
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW", name = "c"} : tensor<2x3x6x6xf32>, tensor<1x1x3x3xf32> -> tensor<2x3x6x6xf32>
  %e = gplace.exp %c {name = "e"} : tensor<2x3x6x6xf32>
  %f = gplace.exp %c {name = "f"} : tensor<2x3x6x6xf32>
  %ef = gplace.add %e, %f {name = "ef"} : (tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>) -> tensor<2x3x6x6xf32>
  return %rows, %ef : tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>
}

// -----

// NHWC ops stay as they are.
// CHECK-LABEL: func.func @nhwc
// CHECK-NEXT: gplace.max_pool %arg0 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32> -> tensor<8x14x14x32xf32>
// CHECK-NEXT: return
func.func @nhwc(%x: tensor<8x28x28x32xf32>) -> tensor<8x14x14x32xf32> {
  %y = gplace.max_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<8x28x28x32xf32> -> tensor<8x14x14x32xf32>
  return %y : tensor<8x14x14x32xf32>
}

// -----

// An op reading one transpose twice sinks it (and erases it once); a
// bias_add's rank-1 bias, even [1], stops the transpose (bias_add reads it
// as the last dimension, which NHWC makes the channels).
// CHECK-LABEL: func.func @twice
// CHECK: %[[P:.*]] = gplace.max_pool %{{.*}} {name = "p"} : tensor<2x4x1x3xf32> -> tensor<2x4x1x3xf32>
// CHECK-NEXT: %[[M:.*]] = gplace.mul %[[P]], %[[P]] {name = "m"} : (tensor<2x4x1x3xf32>, tensor<2x4x1x3xf32>) -> tensor<2x4x1x3xf32>
// CHECK-NEXT: %[[MB:.*]] = gplace.transpose %[[M]] perm = [0, 3, 1, 2] {name = "m-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: gplace.bias_add %[[MB]], %arg1 {name = "b"} : tensor<2x3x4x1xf32>, tensor<1xf32>
// CHECK-NEXT: return
func.func @twice(%x: tensor<2x3x4x1xf32>, %b: tensor<1xf32>) -> tensor<2x3x4x1xf32> {
  %p = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "p"} : tensor<2x3x4x1xf32> -> tensor<2x3x4x1xf32>
  %m = gplace.mul %p, %p {name = "m"} : (tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %y = gplace.bias_add %m, %b {name = "b"} : tensor<2x3x4x1xf32>, tensor<1xf32>
  return %y : tensor<2x3x4x1xf32>
}
