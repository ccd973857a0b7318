// Tests every verifier message of the window ops (conv2d, pooling, their
// gradients) and dropout, one case per split: each names the op and the
// mismatched dimension or attribute.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

func.func @outputHeight(%x: tensor<1x28x28x1xf32>, %w: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op result dimension 1 (height) is 28, expected 24 from input height 28, window 5, stride 1, dilation 1, padding "VALID"}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<1x28x28x32xf32>
  return
}

// -----

func.func @outputWidthStrided(%x: tensor<1x28x28x1xf32>, %w: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op result dimension 2 (width) is 13, expected 14 from input width 28, window 5, stride 2, dilation 1, padding "SAME"}}
  %0 = gplace.conv2d %x, %w strides = [1, 2, 2, 1] padding = "SAME" : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<1x14x13x32xf32>
  return
}

// -----

func.func @outputChannels(%x: tensor<1x28x28x1xf32>, %w: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op result dimension 3 (channels) is 16, expected 32 from the filter}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<1x28x28x16xf32>
  return
}

// -----

func.func @nchwChannels(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op result dimension 1 (channels) is 3, expected 4 from the filter}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @batch(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op result dimension 0 (batch) is 1, expected 2 from input}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @inputChannels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op input has 3 channels, which is not a multiple of the filter's 2 input channels}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32> -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @groups(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x3xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op filter's 3 output channels are not a multiple of the 2 groups (input channels 4 / filter input channels 2)}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x4xf32>, tensor<3x3x2x3xf32> -> tensor<1x8x8x3xf32>
  return
}

// -----

func.func @tooBig(%x: tensor<1x2x2x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op window of 3 (dilation 1) does not fit the input's height of 2 with padding "VALID" (TensorFlow: computed output size would be negative)}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x2x2x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @batchStride(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op strides in the batch dimension must be 1, as TensorFlow's}}
  %0 = gplace.conv2d %x, %w strides = [2, 1, 1, 1] padding = "SAME" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @stridesCount(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op strides must have 4 entries (one per dimension of data_format)}}
  %0 = gplace.conv2d %x, %w strides = [1, 1] padding = "SAME" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @zeroStride(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op strides must be positive}}
  %0 = gplace.conv2d %x, %w strides = [1, 0, 1, 1] padding = "SAME" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @channelDilation(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op dilations in the channels dimension must be 1, as TensorFlow's}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {dilations = array<i64: 1, 1, 1, 2>} : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @padding(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op padding must be "SAME", "VALID" or "EXPLICIT", not "FULL"}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "FULL" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @explicitCount(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op padding "EXPLICIT" needs 8 explicit_paddings (before and after each dimension)}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "EXPLICIT" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @explicitBatch(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op explicit_paddings of the batch dimension must be 0}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "EXPLICIT" {explicit_paddings = array<i64: 1, 0, 1, 1, 1, 1, 0, 0>} : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<2x8x8x1xf32>
  return
}

// -----

func.func @explicitWithSame(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op explicit_paddings are only allowed with padding "EXPLICIT"}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {explicit_paddings = array<i64: 0, 0, 1, 1, 1, 1, 0, 0>} : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @format(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op data_format must be "NHWC" or "NCHW", not "NDHWC"}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NDHWC"} : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @rank(%x: tensor<8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op input must have rank 4, not 3 ('tensor<8x8x1xf32>')}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<8x8x1xf32>, tensor<3x3x1x1xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @elementTypes(%x: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf16>) {
  // expected-error @+1 {{'gplace.conv2d' op operands and result must have one element type}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x1xf32>, tensor<3x3x1x1xf16> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @backpropInput(%w: tensor<3x3x1x4xf32>, %dy: tensor<1x6x6x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d_backprop_input' op out_backprop dimension 1 (height) is 6, expected 8 from result height 8, window 3, stride 1, dilation 1, padding "SAME"}}
  %0 = gplace.conv2d_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<3x3x1x4xf32>, tensor<1x6x6x4xf32> -> tensor<1x8x8x1xf32>
  return
}

// -----

func.func @backpropFilter(%x: tensor<1x8x8x1xf32>, %dy: tensor<1x8x8x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d_backprop_filter' op out_backprop dimension 3 (channels) is 4, expected 5 from the filter}}
  %0 = gplace.conv2d_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x1xf32>, tensor<1x8x8x4xf32> -> tensor<3x3x1x5xf32>
  return
}

// -----

func.func @poolShape(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{'gplace.max_pool' op result dimension 2 (width) is 13, expected 14 from input width 28, window 2, stride 2, dilation 1, padding "VALID"}}
  %0 = gplace.max_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x28x28x32xf32> -> tensor<1x14x13x32xf32>
  return
}

// -----

func.func @poolChannels(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{'gplace.avg_pool' op result dimension 3 (channels) is 16, expected 32 from input}}
  %0 = gplace.avg_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x28x28x32xf32> -> tensor<1x14x14x16xf32>
  return
}

// -----

func.func @poolKsize(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{'gplace.max_pool' op ksize in the channels dimension must be 1, as TensorFlow's}}
  %0 = gplace.max_pool %x ksize = [1, 2, 2, 2] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x28x28x32xf32> -> tensor<1x14x14x32xf32>
  return
}

// -----

func.func @poolExplicit(%x: tensor<1x28x28x32xf32>) {
  // expected-error @+1 {{'gplace.max_pool' op padding must be "SAME", "VALID", not "EXPLICIT"}}
  %0 = gplace.max_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "EXPLICIT" : tensor<1x28x28x32xf32> -> tensor<1x14x14x32xf32>
  return
}

// -----

func.func @maxPoolGrad(%x: tensor<1x4x4x1xf32>, %y: tensor<1x2x2x1xf32>, %g: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'gplace.max_pool_grad' op orig_output dimension 1 (height) is 2, expected 3 from orig_input height 4, window 2, stride 1, dilation 1, padding "VALID"}}
  %0 = gplace.max_pool_grad %x, %y, %g ksize = [1, 2, 2, 1] strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  return
}

// -----

func.func @dropoutRate(%x: tensor<4xf32>, %r: tensor<f64>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.dropout' op rate must be a scalar of the input's element type 'f32', not 'tensor<f64>'}}
  %0 = gplace.dropout %x, %r, %s : tensor<4xf32>, tensor<f64>, tensor<2xi64>
  return
}

// -----

func.func @dropoutSeed(%x: tensor<4xf32>, %r: tensor<f32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'gplace.dropout' op seed must be a tensor of 2 integers, not 'tensor<3xi64>'}}
  %0 = gplace.dropout %x, %r, %s : tensor<4xf32>, tensor<f32>, tensor<3xi64>
  return
}

// -----

func.func @fusedOps(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d' op fused_ops must be ["BiasAdd"] or ["BiasAdd", "Relu"], not ["Relu"]}}
  %0 = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["Relu"] : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @fusedBias(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d' op bias must be a vector of the result's 2 channels of 'f32', not 'tensor<3xf32>'}}
  %0 = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd"] : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<3xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @fusedShape(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d' op result dimension 1 (height) is 4, expected 2 from input height 4, window 3, stride 1, dilation 1, padding "VALID"}}
  %0 = gplace.fused_conv2d %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd"] : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x4x4x2xf32>
  return
}

// -----

func.func @depthwiseChannels(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x2x2xf32>) {
  // expected-error @+1 {{'gplace.depthwise_conv2d_native' op filter has 2 input channels, expected the input's 3 (depthwise: [height, width, in_channels, channel_multiplier])}}
  %0 = gplace.depthwise_conv2d_native %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x3xf32>, tensor<3x3x2x2xf32> -> tensor<1x2x2x4xf32>
  return
}

// -----

func.func @depthwiseOutChannels(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x2xf32>) {
  // expected-error @+1 {{'gplace.depthwise_conv2d_native' op result dimension 3 (channels) is 2, expected 6 from the filter}}
  %0 = gplace.depthwise_conv2d_native %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x3xf32>, tensor<3x3x3x2xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @depthwiseBackpropFilter(%x: tensor<1x4x4x3xf32>, %dy: tensor<1x2x2x6xf32>) {
  // expected-error @+1 {{'gplace.depthwise_conv2d_native_backprop_filter' op filter has 6 input channels, expected the input's 3}}
  %0 = gplace.depthwise_conv2d_native_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<1x4x4x3xf32>, tensor<1x2x2x6xf32> -> tensor<3x3x6x1xf32>
  return
}

// -----

func.func @batchNormChannels(%x: tensor<2x4x4x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'gplace.fused_batch_norm' op scale, offset, mean and variance must be vectors of x's 3 channels (dimension 3) of 'f32', not 'tensor<4xf32>'}}
  %y, %m, %v = gplace.fused_batch_norm %x, %s, %s, %s, %s epsilon = 1.0e-03 : tensor<2x4x4x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @batchNormNchwChannels(%x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_batch_norm' op scale, offset, mean and variance must be vectors of x's 4 channels (dimension 1) of 'f32', not 'tensor<3xf32>'}}
  %y, %m, %v = gplace.fused_batch_norm %x, %s, %s, %s, %s epsilon = 1.0e-03 is_training {data_format = "NCHW"} : tensor<2x4x4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batchNormRank(%x: tensor<4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_batch_norm' op x must have rank 4, not 2 ('tensor<4x3xf32>')}}
  %y, %m, %v = gplace.fused_batch_norm %x, %s, %s, %s, %s epsilon = 1.0e-03 : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batchNormEpsilon(%dy: tensor<2x4x4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_batch_norm_grad' op epsilon must be non-negative, not -1.000000e+00}}
  %dx, %ds, %do = gplace.fused_batch_norm_grad %dy, %dy, %s, %s, %s epsilon = -1.0 : tensor<2x4x4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batchNormFormat(%x: tensor<2x4x4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_batch_norm' op data_format must be "NHWC" or "NCHW", not "CHWN"}}
  %y, %m, %v = gplace.fused_batch_norm %x, %s, %s, %s, %s epsilon = 1.0e-03 {data_format = "CHWN"} : tensor<2x4x4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @fusedPoolOps(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op fused_ops must be ["BiasAdd"(, "Relu"), "MaxPool" or "AvgPool"], not ["BiasAdd", "Relu"]}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "Relu"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "VALID" : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @fusedPoolResult(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op result dimension 1 (height) is 2, expected 1 from convolution's result height 2, window 2, stride 2, dilation 1, padding "VALID"}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "VALID" : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x2x1x2xf32>
  return
}

// -----

func.func @fusedPoolKsize(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op pool_ksize in the channels dimension must be 1, as TensorFlow's}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 2, 2, 2] pool_strides = [1, 2, 2, 1] pool_padding = "VALID" : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @fusedPoolPadding(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op pool_padding must be "SAME", "VALID", not "EXPLICIT"}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 2, 2, 1] pool_strides = [1, 2, 2, 1] pool_padding = "EXPLICIT" : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @fusedPoolConvolution(%x: tensor<1x4x4x1xf32>, %w: tensor<5x5x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op window of 5 (dilation 1) does not fit the input's height of 4 with padding "VALID"}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 1, 1, 1] pool_strides = [1, 1, 1, 1] pool_padding = "VALID" : tensor<1x4x4x1xf32>, tensor<5x5x1x2xf32>, tensor<2xf32> -> tensor<1x1x1x2xf32>
  return
}

// -----

func.func @fusedPoolNchw(%x: tensor<1x1x4x4xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op runs NHWC only, not data_format "NCHW"}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 1, 1, 1] pool_strides = [1, 1, 1, 1] pool_padding = "VALID" {data_format = "NCHW"} : tensor<1x1x4x4xf32>, tensor<3x3x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @fusedPoolBias(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.fused_conv2d_pool' op bias must be a vector of the convolution's 2 channels of 'f32', not 'tensor<3xf32>'}}
  %0 = gplace.fused_conv2d_pool %x, %w, %b strides = [1, 1, 1, 1] padding = "VALID" fused_ops = ["BiasAdd", "MaxPool"] pool_ksize = [1, 1, 1, 1] pool_strides = [1, 1, 1, 1] pool_padding = "VALID" : tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<3xf32> -> tensor<1x2x2x2xf32>
  return
}

// -----

// Found by fuzzing: the groups (input channels / filter input channels) were
// divided by before zero channels were refused.
func.func @zeroChannels(%x: tensor<1x8x8x0xf32>, %w: tensor<3x3x1x4xf32>) {
  // expected-error @+1 {{'gplace.conv2d' op input has 0 channels; a convolution needs at least one}}
  %0 = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x0xf32>, tensor<3x3x1x4xf32> -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @zeroChannelsDepthwise(%x: tensor<1x8x8x0xf32>, %w: tensor<3x3x0x2xf32>) {
  // expected-error @+1 {{'gplace.depthwise_conv2d_native' op input has 0 channels; a convolution needs at least one}}
  %0 = gplace.depthwise_conv2d_native %x, %w strides = [1, 1, 1, 1] padding = "SAME" : tensor<1x8x8x0xf32>, tensor<3x3x0x2xf32> -> tensor<1x8x8x0xf32>
  return
}

// -----

func.func @zeroChannelsBackpropInput(%w: tensor<5x5x1x32xf32>, %dy: tensor<8x28x28x32xf32>) {
  // expected-error @+1 {{'gplace.conv2d_backprop_input' op result has 0 channels; a convolution needs at least one}}
  %0 = gplace.conv2d_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "SAME" : tensor<5x5x1x32xf32>, tensor<8x28x28x32xf32> -> tensor<8x28x28x0xf32>
  return
}
