// --gplace-remap (Grappler's remapper): conv2d + bias_add (+ relu) becomes
// fused_conv2d, named after the last op it replaces, with the colocation
// constraints on the absorbed ops moved to it; what does not fuse stays.
// RUN: gplace-opt %s --gplace-remap --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @bias_relu
// CHECK-NEXT: %[[Y:.*]] = gplace.fused_conv2d %arg0, %arg1, %arg2 strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] {name = "Relu"} : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32>, tensor<8xf32> -> tensor<1x2x2x8xf32>
// The gradients of the absorbed conv and bias_add go with the fused op;
// an unnamed op whose default name does not change stays unnamed.
// CHECK-NEXT: gplace.exp %[[Y]] {gplace.colocate_with = "Relu", name = "g1"}
// CHECK-NEXT: gplace.exp %[[Y]] {gplace.colocate_with = "Relu", name = "g2"}
// CHECK-NEXT: gplace.exp %[[Y]] {gplace.colocate_with = "Relu", name = "g3"}
// CHECK-NEXT: gplace.exp %arg2 : tensor<8xf32>
func.func @bias_relu(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<8xf32>) {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x2x2x8xf32>
  %a = gplace.bias_add %c, %b : tensor<1x2x2x8xf32>, tensor<8xf32>
  %y = gplace.relu %a : tensor<1x2x2x8xf32>
  %g1 = gplace.exp %y {name = "g1", gplace.colocate_with = "Conv2D"} : tensor<1x2x2x8xf32>
  %g2 = gplace.exp %y {name = "g2", gplace.colocate_with = "BiasAdd"} : tensor<1x2x2x8xf32>
  %g3 = gplace.exp %y {name = "g3", gplace.colocate_with = "Relu"} : tensor<1x2x2x8xf32>
  %e = gplace.exp %b : tensor<8xf32>
  return %y, %g1, %g2, %g3, %e : tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<8xf32>
}

// -----

// The bias_add has two uses: the relu stays outside. The second conv has no
// bias_add and keeps its default name, now explicit, since the first
// Conv2D is gone; the relus' default names do not change.
// CHECK-LABEL: func.func @bias_only
// CHECK-NEXT: %[[F:.*]] = gplace.fused_conv2d %arg0, %arg1, %arg2 strides = [1, 1, 1, 1] padding = "SAME" fused_ops = ["BiasAdd"] {device = "/cpu:0", name = "my_bias"}
// CHECK-NEXT: gplace.relu %[[F]] : tensor<1x4x4x8xf32>
// CHECK-NEXT: %[[C:.*]] = gplace.conv2d %arg0, %arg1 {{.*}} {name = "Conv2D_1"}
// CHECK-NEXT: gplace.relu %[[C]] : tensor<1x4x4x8xf32>
func.func @bias_only(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/cpu:0"} : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x4x4x8xf32>
  %a = gplace.bias_add %c, %b {device = "/cpu:0", name = "my_bias"} : tensor<1x4x4x8xf32>, tensor<8xf32>
  %y = gplace.relu %a : tensor<1x4x4x8xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x4x4x8xf32>
  %y2 = gplace.relu %c2 : tensor<1x4x4x8xf32>
  return %a, %y, %y2 : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
}

// -----

// Nothing fuses: the conv's result has two uses; the bias_add asks for
// another device; the bias_add waits on a control dependency; NCHW's
// bias_add adds along the width, not the channels.
// CHECK-LABEL: func.func @no_fusion
// CHECK-NOT: fused_conv2d
// CHECK: return
func.func @no_fusion(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x2xf32>, %b: tensor<2xf32>, %xn: tensor<1x2x4x4xf32>, %wn: tensor<3x3x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %c1 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x2xf32>
  %a1 = gplace.bias_add %c1, %b : tensor<1x2x2x2xf32>, tensor<2xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x2xf32>
  %a2 = gplace.bias_add %c2, %b {device = "/gpu:0"} : tensor<1x2x2x2xf32>, tensor<2xf32>
  %c3 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x2xf32>
  %v = gplace.variable dense<0.0> : tensor<2xf32>
  %done = gplace.assign %v, %b : !gplace.resource<tensor<2xf32>>
  %a3 = gplace.bias_add %c3, %b after(%done) : tensor<1x2x2x2xf32>, tensor<2xf32>
  %c4 = gplace.conv2d %xn, %wn strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<1x2x4x4xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x2xf32>
  %a4 = gplace.bias_add %c4, %b : tensor<1x2x2x2xf32>, tensor<2xf32>
  return %c1, %a1, %a2, %a3, %a4, %a4 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A relu with another colocation stays outside; the conv and bias_add fuse.
// CHECK-LABEL: func.func @relu_elsewhere
// CHECK-NEXT: %[[F:.*]] = gplace.fused_conv2d {{.*}} fused_ops = ["BiasAdd"] {name = "BiasAdd"}
// CHECK-NEXT: gplace.relu %[[F]] {gplace.colocate_with = "v"}
func.func @relu_elsewhere(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x2xf32>
  %a = gplace.bias_add %c, %b : tensor<1x2x2x2xf32>, tensor<2xf32>
  %y = gplace.relu %a {gplace.colocate_with = "v"} : tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Grappler's IsBiasSemanticAdd: an add of a conv2d and a [C] or
// [1, 1, 1, C] operand is a bias_add (the rank-4 one reshaped to [C]); an
// add along another dimension, or of a full tensor, is not.
// CHECK-LABEL: func.func @bias_semantic_add
// CHECK-NEXT: %[[F:.*]] = gplace.fused_conv2d %arg0, %arg1, %arg2 strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] {name = "r1"}
// CHECK-NEXT: %[[B:.*]] = gplace.reshape %arg3 {name = "a2-1-ReshapeToBias-Remapper"} : tensor<1x1x1x8xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[G:.*]] = gplace.fused_conv2d %arg0, %arg1, %[[B]] strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd"] {name = "a2"}
// CHECK-NEXT: %[[C3:.*]] = gplace.conv2d
// CHECK-NEXT: gplace.add %[[C3]], %arg4 {name = "a3"}
// CHECK-NEXT: %[[C4:.*]] = gplace.conv2d
// CHECK-NEXT: gplace.add %arg5, %[[C4]] {name = "a4"}
func.func @bias_semantic_add(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8xf32>, %b4: tensor<1x1x1x8xf32>, %rows: tensor<1x1x2x1xf32>, %full: tensor<1x2x2x8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>) {
  %c1 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x2x2x8xf32>
  %a1 = gplace.add %b, %c1 {name = "a1"} : (tensor<8xf32>, tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  %r1 = gplace.relu %a1 {name = "r1"} : tensor<1x2x2x8xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x2x2x8xf32>
  %a2 = gplace.add %c2, %b4 {name = "a2"} : (tensor<1x2x2x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x2x2x8xf32>
  %c3 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x2x2x8xf32>
  %a3 = gplace.add %c3, %rows {name = "a3"} : (tensor<1x2x2x8xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x8xf32>
  %c4 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x2x2x8xf32>
  %a4 = gplace.add %full, %c4 {name = "a4"} : (tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  return %r1, %a2, %a3, %a4 : tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>
}

// -----

// Conv2D + FusedBatchNorm (+ Relu) in inference: the normalization folds
// into the filter and a bias, computed by small ops on the op's vectors;
// batch_mean and batch_variance (in inference, mean and variance) are
// replaced by those. In training, or after an NCHW convolution, nothing
// fuses.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT: %[[E:.*]] = gplace.constant dense<1.000000e-03> : tensor<f32> {device = "/cpu:0", name = "bn-FoldBatchNorm/epsilon"}
// CHECK-NEXT: %[[VE:.*]] = gplace.add %arg5, %[[E]] {device = "/cpu:0", name = "bn-FoldBatchNorm/add"} : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT: %[[SD:.*]] = gplace.sqrt %[[VE]] {device = "/cpu:0", name = "bn-FoldBatchNorm/Sqrt"} : tensor<8xf32>
// CHECK-NEXT: %[[S:.*]] = gplace.div %arg2, %[[SD]] {device = "/cpu:0", name = "bn-FoldBatchNorm/truediv"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[W:.*]] = gplace.mul %arg1, %[[S]] {device = "/cpu:0", name = "bn-FoldBatchNorm/mul"} : (tensor<3x3x2x8xf32>, tensor<8xf32>) -> tensor<3x3x2x8xf32>
// CHECK-NEXT: %[[MS:.*]] = gplace.mul %arg4, %[[S]] {device = "/cpu:0", name = "bn-FoldBatchNorm/mul_1"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = gplace.sub %arg3, %[[MS]] {device = "/cpu:0", name = "bn-FoldBatchNorm/sub"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[F:.*]] = gplace.fused_conv2d %arg0, %[[W]], %[[B]] strides = [1, 1, 1, 1] padding = "SAME" fused_ops = ["BiasAdd", "Relu"] {device = "/cpu:0", name = "relu"} : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32>, tensor<8xf32> -> tensor<1x4x4x8xf32>
// CHECK-NEXT: %[[C2:.*]] = gplace.conv2d %arg0, %arg1
// CHECK-NEXT: gplace.fused_batch_norm %[[C2]], {{.*}} is_training {name = "trained"}
// CHECK-NEXT: %[[C3:.*]] = gplace.conv2d %arg6, %arg1 {{.*}}data_format = "NCHW"
// CHECK-NEXT: gplace.fused_batch_norm %[[C3]], {{.*}}data_format = "NCHW", name = "channels_first"
// CHECK: return %[[F]], %arg4, %arg5,
func.func @batch_norm(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %scale: tensor<8xf32>, %offset: tensor<8xf32>, %mean: tensor<8xf32>, %var: tensor<8xf32>, %xn: tensor<1x2x4x4xf32>) -> (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x4x4xf32>) {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/cpu:0"} : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x4x4x8xf32>
  %y, %m, %v = gplace.fused_batch_norm %c, %scale, %offset, %mean, %var epsilon = 1.0e-03 {device = "/cpu:0", name = "bn"} : tensor<1x4x4x8xf32>, tensor<8xf32>
  %r = gplace.relu %y {device = "/cpu:0", name = "relu"} : tensor<1x4x4x8xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x4x4x8xf32>
  %y2, %m2, %v2 = gplace.fused_batch_norm %c2, %scale, %offset, %mean, %var epsilon = 1.0e-03 is_training {name = "trained"} : tensor<1x4x4x8xf32>, tensor<8xf32>
  %c3 = gplace.conv2d %xn, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<1x2x4x4xf32>, tensor<3x3x2x8xf32> -> tensor<1x8x4x4xf32>
  %y3, %m3, %v3 = gplace.fused_batch_norm %c3, %scale, %offset, %mean, %var epsilon = 1.0e-03 {data_format = "NCHW", name = "channels_first"} : tensor<1x8x4x4xf32>, tensor<8xf32>
  return %r, %m, %v, %y2, %y3 : tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x4x4xf32>
}

// -----

// Without a relu the batch norm's result is the fused op's; its
// batch_mean, returned, is the mean. An explicit NHWC data_format fuses
// too. In f64 and f16, epsilon is a constant of that type.
// CHECK-LABEL: func.func @batch_norm_alone
// CHECK: %[[F:.*]] = gplace.fused_conv2d %arg0, %{{.*}}, %{{.*}} strides = [1, 1, 1, 1] padding = "SAME" fused_ops = ["BiasAdd"] {name = "bn"}
// CHECK: gplace.constant dense<0.00100000004{{[0-9]*}}> : tensor<f64> {name = "bn64-FoldBatchNorm/epsilon"}
// CHECK: %[[G:.*]] = gplace.fused_conv2d {{.*}} fused_ops = ["BiasAdd"] {name = "bn64"}
// CHECK: gplace.constant dense<1.000400e-03> : tensor<f16> {name = "bn16-FoldBatchNorm/epsilon"}
// CHECK-NOT: gplace.fused_batch_norm
// CHECK: return %[[F]], %arg4, %[[G]]
func.func @batch_norm_alone(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %scale: tensor<8xf32>, %offset: tensor<8xf32>, %mean: tensor<8xf32>, %var: tensor<8xf32>, %x64: tensor<1x4x4x2xf64>, %w64: tensor<3x3x2x8xf64>, %v64: tensor<8xf64>, %x16: tensor<1x4x4x2xf16>, %w16: tensor<3x3x2x8xf16>, %v16: tensor<8xf16>) -> (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<1x4x4x8xf64>, tensor<1x4x4x8xf16>) {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<1x4x4x8xf32>
  %y, %m, %v = gplace.fused_batch_norm %c, %scale, %offset, %mean, %var epsilon = 1.0e-03 {data_format = "NHWC", name = "bn"} : tensor<1x4x4x8xf32>, tensor<8xf32>
  %c64 = gplace.conv2d %x64, %w64 strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x4x4x2xf64>, tensor<3x3x2x8xf64> -> tensor<1x4x4x8xf64>
  %y64, %m64, %var64 = gplace.fused_batch_norm %c64, %v64, %v64, %v64, %v64 epsilon = 1.0e-03 {name = "bn64"} : tensor<1x4x4x8xf64>, tensor<8xf64>
  %c16 = gplace.conv2d %x16, %w16 strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x4x4x2xf16>, tensor<3x3x2x8xf16> -> tensor<1x4x4x8xf16>
  %y16, %m16, %var16 = gplace.fused_batch_norm %c16, %v16, %v16, %v16, %v16 epsilon = 1.0e-03 {name = "bn16"} : tensor<1x4x4x8xf16>, tensor<8xf16>
  return %y, %m, %y64, %y16 : tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<1x4x4x8xf64>, tensor<1x4x4x8xf16>
}

// -----

// A fused_conv2d whose only use is a max_pool or avg_pool becomes
// fused_conv2d_pool, named after the pool, where both can only run on a
// CPU (here: no gplace.devices, so the process's CPU); colocation
// constraints on the absorbed ops name it.
// CHECK-LABEL: func.func @pool
// CHECK-NEXT: %[[P:.*]] = gplace.fused_conv2d_pool %arg0, %arg1, %arg2 strides = [1, 1, 1, 1] padding = "SAME" fused_ops = ["BiasAdd", "Relu", "MaxPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "VALID" {name = "pool"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32>, tensor<8xf32> -> tensor<2x2x2x8xf32>
// CHECK-NEXT: %[[A:.*]] = gplace.fused_conv2d_pool %arg0, %arg1, %arg2 strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "AvgPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 1, 1, 1] pool_padding = "SAME" {name = "AvgPool"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32>, tensor<8xf32> -> tensor<2x2x2x8xf32>
// CHECK-NEXT: gplace.exp %[[P]] {gplace.colocate_with = "pool", name = "g"}
// CHECK-NEXT: return %[[P]], %[[A]]
func.func @pool(%x: tensor<2x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8xf32>) -> (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>) {
  %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {name = "conv"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
  %a = gplace.bias_add %c, %b : tensor<2x4x4x8xf32>, tensor<8xf32>
  %r = gplace.relu %a {name = "relu"} : tensor<2x4x4x8xf32>
  %p = gplace.max_pool %r ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {name = "pool"} : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
  %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x2x2x8xf32>
  %a2 = gplace.bias_add %c2, %b : tensor<2x2x2x8xf32>, tensor<8xf32>
  %p2 = gplace.avg_pool %a2 ksize = [1, 2, 2, 1] strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x2x2x8xf32> -> tensor<2x2x2x8xf32>
  %g = gplace.exp %p {name = "g", gplace.colocate_with = "relu"} : tensor<2x2x2x8xf32>
  return %p, %p2, %g : tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>
}

// -----

// Where a GPU might run them, they stay apart (the pool has no GPU kernel
// fused): without a request, and with "/device:GPU:0". A CPU request
// fuses. A convolution read by another op besides the pool, or a pool
// with a colocation constraint of its own, stays too.
// CHECK-LABEL: func.func @pool_gpu
// CHECK: gplace.fused_conv2d %arg0, {{.*}} fused_ops = ["BiasAdd", "Relu"] {name = "relu"}
// CHECK-NEXT: gplace.max_pool
// CHECK-NEXT: gplace.fused_conv2d %arg0, {{.*}} fused_ops = ["BiasAdd", "Relu"] {device = "/device:GPU:0", name = "relu_gpu"}
// CHECK-NEXT: gplace.max_pool
// CHECK-NEXT: gplace.fused_conv2d_pool %arg0, {{.*}} fused_ops = ["BiasAdd", "Relu", "MaxPool"] {{.*}} {device = "/device:CPU:0", name = "pool_cpu"}
// CHECK-NEXT: gplace.fused_conv2d %arg0, {{.*}} {device = "/device:CPU:0", name = "relu_two"}
// CHECK-NEXT: gplace.max_pool
// CHECK-NEXT: gplace.exp
// CHECK-NEXT: gplace.fused_conv2d %arg0, {{.*}} {device = "/device:CPU:0", name = "relu_own"}
// CHECK-NEXT: gplace.max_pool {{.*}} {device = "/device:CPU:0", gplace.colocate_with = "relu_own", name = "pool_own"}
module attributes {gplace.devices = [#gplace.device<"/job:localhost/replica:0/task:0/device:CPU:0">, #gplace.device<"/job:localhost/replica:0/task:0/device:GPU:0">]} {
  func.func @pool_gpu(%x: tensor<2x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %b: tensor<8xf32>) -> (tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x4x4x8xf32>, tensor<2x2x2x8xf32>) {
    %c = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
    %a = gplace.bias_add %c, %b : tensor<2x4x4x8xf32>, tensor<8xf32>
    %r = gplace.relu %a {name = "relu"} : tensor<2x4x4x8xf32>
    %p = gplace.max_pool %r ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
    %cg = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:GPU:0"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
    %ag = gplace.bias_add %cg, %b {device = "/device:GPU:0"} : tensor<2x4x4x8xf32>, tensor<8xf32>
    %rg = gplace.relu %ag {device = "/device:GPU:0", name = "relu_gpu"} : tensor<2x4x4x8xf32>
    %pg = gplace.max_pool %rg ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {device = "/device:GPU:0"} : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
    %cc = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
    %ac = gplace.bias_add %cc, %b {device = "/device:CPU:0"} : tensor<2x4x4x8xf32>, tensor<8xf32>
    %rc = gplace.relu %ac {device = "/device:CPU:0"} : tensor<2x4x4x8xf32>
    %pc = gplace.max_pool %rc ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {device = "/device:CPU:0", name = "pool_cpu"} : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
    %c2 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
    %a2 = gplace.bias_add %c2, %b {device = "/device:CPU:0"} : tensor<2x4x4x8xf32>, tensor<8xf32>
    %r2 = gplace.relu %a2 {device = "/device:CPU:0", name = "relu_two"} : tensor<2x4x4x8xf32>
    %p2 = gplace.max_pool %r2 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {device = "/device:CPU:0"} : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
    %e2 = gplace.exp %r2 {device = "/device:CPU:0"} : tensor<2x4x4x8xf32>
    %c3 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {device = "/device:CPU:0"} : tensor<2x4x4x2xf32>, tensor<3x3x2x8xf32> -> tensor<2x4x4x8xf32>
    %a3 = gplace.bias_add %c3, %b {device = "/device:CPU:0"} : tensor<2x4x4x8xf32>, tensor<8xf32>
    %r3 = gplace.relu %a3 {device = "/device:CPU:0", name = "relu_own"} : tensor<2x4x4x8xf32>
    %p3 = gplace.max_pool %r3 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" {device = "/device:CPU:0", name = "pool_own", gplace.colocate_with = "relu_own"} : tensor<2x4x4x8xf32> -> tensor<2x2x2x8xf32>
    return %p, %pg, %pc, %p2, %e2, %p3 : tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x4x4x8xf32>, tensor<2x2x2x8xf32>
  }
}
