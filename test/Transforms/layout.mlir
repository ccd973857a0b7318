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
// PIPELINE: gplan.launch max_pool(%{{.*}}) on @cpu0 stream 0 name "MaxPool" {window_dilations = {{.*}} -> !gplan.buffer<8x14x14x32xf32>
// OFF-LABEL: gplan.program @pool
// OFF: gplan.launch max_pool(%{{.*}}) on @cpu0 stream 0 {{(workspace )?}}name "MaxPool" {channels_first, {{.*}} -> !gplan.buffer<8x32x14x14xf32>
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

// -----

// A flatten of a transpose to NCHW into matmuls of constant weights (ONNX's
// Flatten + Gemm after a pool): the flatten reads the NHWC result and each
// weight's rows (columns, with transpose_b) are permuted from (c, h, w) to
// (h, w, c), folded. `w`, read by nothing else, goes; `wt`, also returned,
// stays.
// CHECK-LABEL: func.func @flatten_matmul
// CHECK-NEXT: %[[T:.*]] = gplace.transpose %arg0 perm = [0, 2, 3, 1] {name = "p-0-TransposeNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[P:.*]] = gplace.max_pool %[[T]] {{.*}} {name = "p"} : tensor<2x2x2x3xf32> -> tensor<2x2x2x3xf32>
// CHECK-NEXT: %[[F:.*]] = gplace.reshape %[[P]] {name = "flatten"} : tensor<2x2x2x3xf32> -> tensor<2x12xf32>
// CHECK-NEXT: %[[WT:.*]] = gplace.constant {{.*}} : tensor<2x12xf32> {name = "wt"}
// CHECK-NEXT: %[[W1:.*]] = gplace.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [8.000000e+00, 9.000000e+00], [1.600000e+01, 1.700000e+01], [2.000000e+00, 3.000000e+00], [1.000000e+01, 1.100000e+01], [1.800000e+01, 1.900000e+01], [4.000000e+00, 5.000000e+00], [1.200000e+01, 1.300000e+01], [2.000000e+01, 2.100000e+01], [6.000000e+00, 7.000000e+00], [1.400000e+01, 1.500000e+01], [2.200000e+01, 2.300000e+01]]> : tensor<12x2xf32> {name = "fc-1-PermuteNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[FC:.*]] = gplace.matmul %[[F]], %[[W1]] {name = "fc"}
// CHECK-NEXT: %[[W2:.*]] = gplace.constant dense<{{\[\[}}0.000000e+00, 4.000000e+00, 8.000000e+00, 1.000000e+00, 5.000000e+00, 9.000000e+00, 2.000000e+00, 6.000000e+00, 1.000000e+01, 3.000000e+00, 7.000000e+00, 1.100000e+01], [1.200000e+01, 1.600000e+01, 2.000000e+01, 1.300000e+01, 1.700000e+01, 2.100000e+01, 1.400000e+01, 1.800000e+01, 2.200000e+01, 1.500000e+01, 1.900000e+01, 2.300000e+01]]> : tensor<2x12xf32> {name = "fct-1-PermuteNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: %[[FCT:.*]] = gplace.matmul %[[F]], %[[W2]] transpose_b {name = "fct"}
// CHECK-NEXT: return %[[FC]], %[[FCT]], %[[WT]]
// PIPELINE-LABEL: gplan.program @flatten_matmul
// PIPELINE: %[[P:.*]] = gplan.launch max_pool
// PIPELINE-NEXT: %[[F:.*]] = gplan.view %[[P]] : !gplan.buffer<2x2x2x3xf32> -> !gplan.buffer<2x12xf32>
// PIPELINE-NOT: gplan.launch transpose
// PIPELINE: gplan.launch matmul(%[[F]]
// PIPELINE-NOT: gplan.launch transpose
// PIPELINE: gplan.launch matmul(%[[F]]
// PIPELINE-NEXT: gplan.return
func.func @flatten_matmul(%x: tensor<2x3x2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x12xf32>) {
  %p = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "p"} : tensor<2x3x2x2xf32> -> tensor<2x3x2x2xf32>
  %f = gplace.reshape %p {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %w = gplace.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0]]> : tensor<12x2xf32> {name = "w"}
  %wt = gplace.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x12xf32> {name = "wt"}
  %fc = gplace.matmul %f, %w {name = "fc"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  %fct = gplace.matmul %f, %wt transpose_b {name = "fct"} : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x2xf32>
  return %fc, %fct, %wt : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x12xf32>
}

// -----

// A weight read from a variable (trainable: it would have to be permuted
// at every run, and its gradient back) keeps the transpose.
// CHECK-LABEL: func.func @flatten_variable
// CHECK: %[[P:.*]] = gplace.max_pool {{.*}} {name = "p"}
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[P]] perm = [0, 3, 1, 2] {name = "p-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: %[[F:.*]] = gplace.reshape %[[B]] {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
// CHECK: gplace.matmul %[[F]], %{{.*}} {name = "fc"}
func.func @flatten_variable(%x: tensor<2x3x2x2xf32>) -> tensor<2x2xf32> {
  %p = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "p"} : tensor<2x3x2x2xf32> -> tensor<2x3x2x2xf32>
  %f = gplace.reshape %p {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %v = gplace.variable dense<1.0> : tensor<12x2xf32> {name = "w"}
  %w = gplace.read %v {name = "w/read"} : !gplace.resource<tensor<12x2xf32>>
  %fc = gplace.matmul %f, %w {name = "fc"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  return %fc : tensor<2x2xf32>
}

// -----

// A transpose with another reader, or a flatten with a reader that is not
// such a matmul, stays.
// CHECK-LABEL: func.func @flatten_shared
// CHECK: %[[P:.*]] = gplace.max_pool {{.*}} {name = "p"}
// CHECK-NEXT: %[[B:.*]] = gplace.transpose %[[P]] perm = [0, 3, 1, 2] {name = "p-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: %[[F:.*]] = gplace.reshape %[[B]] {name = "flatten"}
// CHECK-NEXT: %[[W:.*]] = gplace.constant {{.*}} {name = "w"}
// CHECK-NEXT: gplace.matmul %[[F]], %[[W]] {name = "fc"}
// CHECK: %[[Q:.*]] = gplace.max_pool {{.*}} {name = "q"}
// CHECK-NEXT: %[[QB:.*]] = gplace.transpose %[[Q]] perm = [0, 3, 1, 2] {name = "q-0-TransposeNHWCToNCHW-LayoutOptimizer"}
// CHECK-NEXT: %[[G:.*]] = gplace.reshape %[[QB]] {name = "flatten2"}
// CHECK-NEXT: %[[V:.*]] = gplace.constant {{.*}} {name = "v"}
// CHECK-NEXT: gplace.matmul %[[G]], %[[V]] {name = "fc2"}
// CHECK-NEXT: gplace.relu %[[G]] {name = "r"}
func.func @flatten_shared(%x: tensor<2x3x2x2xf32>) -> (tensor<2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x12xf32>) {
  %p = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "p"} : tensor<2x3x2x2xf32> -> tensor<2x3x2x2xf32>
  %f = gplace.reshape %p {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %w = gplace.constant dense<1.0> : tensor<12x2xf32> {name = "w"}
  %fc = gplace.matmul %f, %w {name = "fc"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  %q = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "q"} : tensor<2x3x2x2xf32> -> tensor<2x3x2x2xf32>
  %g = gplace.reshape %q {name = "flatten2"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %v = gplace.constant dense<1.0> : tensor<12x2xf32> {name = "v"}
  %fc2 = gplace.matmul %g, %v {name = "fc2"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  %r = gplace.relu %g {name = "r"} : tensor<2x12xf32>
  return %fc, %p, %fc2, %r : tensor<2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x12xf32>
}

// -----

// Two matmuls of one weight: one permuted constant, before the first.
// CHECK-LABEL: func.func @flatten_one_weight
// CHECK: %[[F:.*]] = gplace.reshape %{{.*}} {name = "flatten"} : tensor<2x2x2x3xf32> -> tensor<2x12xf32>
// CHECK-NEXT: %[[W:.*]] = gplace.constant {{.*}} : tensor<12x2xf32> {name = "fc-1-PermuteNCHWToNHWC-LayoutOptimizer"}
// CHECK-NEXT: gplace.matmul %[[F]], %[[W]] {name = "fc"}
// CHECK-NEXT: gplace.matmul %[[F]], %[[W]] {name = "fc2"}
// CHECK-NOT: gplace.constant
func.func @flatten_one_weight(%x: tensor<2x3x2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %p = gplace.max_pool %x ksize = [1, 1, 1, 1] strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW", name = "p"} : tensor<2x3x2x2xf32> -> tensor<2x3x2x2xf32>
  %f = gplace.reshape %p {name = "flatten"} : tensor<2x3x2x2xf32> -> tensor<2x12xf32>
  %w = gplace.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0]]> : tensor<12x2xf32> {name = "w"}
  %fc = gplace.matmul %f, %w {name = "fc"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  %fc2 = gplace.matmul %f, %w {name = "fc2"} : (tensor<2x12xf32>, tensor<12x2xf32>) -> tensor<2x2xf32>
  return %fc, %fc2 : tensor<2x2xf32>, tensor<2x2xf32>
}
