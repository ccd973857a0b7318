// Window ops whose SAME padding is uneven (one more row or column after
// than before: an even window, or a stride), which cuDNN runs on an
// explicitly padded input (average pools then scaled to the mean over the
// input elements alone), and fused_batch_norm in training and inference
// with its gradient, on random inputs.
func.func @main() -> (tensor<2x3x3x4xf32>, tensor<2x4x3x3xf32>, tensor<2x5x5x4xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>, tensor<2x6x6x3xf32>, tensor<2x3x6x6xf32>, tensor<2x6x6x3xf32>, tensor<2x3x3x3xf32>, tensor<2x6x6x3xf32>, tensor<4x3x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4x3x3x5xf32>, tensor<4x3x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4x5x3x3xf32>, tensor<2x3x3x3xf32>, tensor<2x6x6x3xf32>, tensor<2x3x6x6xf32>) {
  %sx = gplace.constant dense<[3, 1]> : tensor<2xi64>
  %sw = gplace.constant dense<[3, 2]> : tensor<2xi64>
  %sd = gplace.constant dense<[3, 3]> : tensor<2xi64>
  %ux = gplace.stateless_random_uniform %sx : tensor<2xi64> -> tensor<2x6x6x3xf32>
  %uw = gplace.stateless_random_uniform %sw : tensor<2xi64> -> tensor<3x3x3x4xf32>
  %uw2 = gplace.stateless_random_uniform %sw : tensor<2xi64> -> tensor<2x2x3x4xf32>
  %half = gplace.constant dense<0.5> : tensor<f32>
  %x = gplace.sub %ux, %half : (tensor<2x6x6x3xf32>, tensor<f32>) -> tensor<2x6x6x3xf32>
  %w = gplace.sub %uw, %half : (tensor<3x3x3x4xf32>, tensor<f32>) -> tensor<3x3x3x4xf32>
  %w2 = gplace.sub %uw2, %half : (tensor<2x2x3x4xf32>, tensor<f32>) -> tensor<2x2x3x4xf32>
  // Stride 2, 3x3, SAME on 6x6: pads (0, 1) each way.
  %c = gplace.conv2d %x, %w strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<2x3x3x4xf32>
  %xc = gplace.transpose %x perm = [0, 3, 1, 2] : tensor<2x6x6x3xf32> -> tensor<2x3x6x6xf32>
  %cc = gplace.conv2d %xc, %w strides = [1, 1, 2, 2] padding = "SAME" {data_format = "NCHW"} : tensor<2x3x6x6xf32>, tensor<3x3x3x4xf32> -> tensor<2x4x3x3xf32>
  %x5 = gplace.slice %x begin = [0, 0, 0, 0] size = [2, 5, 5, 3] : tensor<2x6x6x3xf32> -> tensor<2x5x5x3xf32>
  // A 2x2 window at stride 1, SAME: pads (0, 1).
  %c2 = gplace.conv2d %x5, %w2 strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x5x5x3xf32>, tensor<2x2x3x4xf32> -> tensor<2x5x5x4xf32>
  %ud = gplace.stateless_random_uniform %sd : tensor<2xi64> -> tensor<2x3x3x4xf32>
  %dx = gplace.conv2d_backprop_input %w, %ud strides = [1, 2, 2, 1] padding = "SAME" : tensor<3x3x3x4xf32>, tensor<2x3x3x4xf32> -> tensor<2x6x6x3xf32>
  %dw = gplace.conv2d_backprop_filter %x, %ud strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x6x6x3xf32>, tensor<2x3x3x4xf32> -> tensor<3x3x3x4xf32>
  // Max pools: 2x2 at stride 1 and 3x3 at stride 2, SAME: pads (0, 1);
  // all-negative inputs, so that a zero padding would show.
  %neg = gplace.sub %ux, %half : (tensor<2x6x6x3xf32>, tensor<f32>) -> tensor<2x6x6x3xf32>
  %one = gplace.constant dense<1.0> : tensor<f32>
  %xn = gplace.sub %neg, %one : (tensor<2x6x6x3xf32>, tensor<f32>) -> tensor<2x6x6x3xf32>
  %m1 = gplace.max_pool %xn ksize = [1, 2, 2, 1] strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x6x6x3xf32> -> tensor<2x6x6x3xf32>
  %xnc = gplace.transpose %xn perm = [0, 3, 1, 2] : tensor<2x6x6x3xf32> -> tensor<2x3x6x6xf32>
  %m1c = gplace.max_pool %xnc ksize = [1, 1, 2, 2] strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<2x3x6x6xf32> -> tensor<2x3x6x6xf32>
  %g1 = gplace.max_pool_grad %xn, %m1, %x ksize = [1, 2, 2, 1] strides = [1, 1, 1, 1] padding = "SAME" : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>
  %m2 = gplace.max_pool %xn ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x6x6x3xf32> -> tensor<2x3x3x3xf32>
  %ug = gplace.stateless_random_uniform %sd : tensor<2xi64> -> tensor<2x3x3x3xf32>
  %g2 = gplace.max_pool_grad %xn, %m2, %ug ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x6x6x3xf32>, tensor<2x3x3x3xf32>
  // Batch norm, NHWC and NCHW.
  %ub = gplace.stateless_random_uniform %sx : tensor<2xi64> -> tensor<4x3x3x5xf32>
  %scale = gplace.constant dense<[1.5, 0.5, 2.0, 1.0, 0.25]> : tensor<5xf32>
  %offset = gplace.constant dense<[0.1, -0.2, 0.3, 0.0, 1.0]> : tensor<5xf32>
  %mean = gplace.constant dense<[0.5, 0.4, 0.6, 0.5, 0.3]> : tensor<5xf32>
  %var = gplace.constant dense<[0.1, 0.2, 0.05, 0.08, 0.3]> : tensor<5xf32>
  %y, %bm, %bv = gplace.fused_batch_norm %ub, %scale, %offset, %mean, %var epsilon = 0.001 is_training : tensor<4x3x3x5xf32>, tensor<5xf32>
  %yi, %mi, %vi = gplace.fused_batch_norm %ub, %scale, %offset, %mean, %var epsilon = 0.001 : tensor<4x3x3x5xf32>, tensor<5xf32>
  %dyb = gplace.stateless_random_uniform %sd : tensor<2xi64> -> tensor<4x3x3x5xf32>
  %dxb, %dscale, %doffset = gplace.fused_batch_norm_grad %dyb, %ub, %scale, %bm, %bv epsilon = 0.001 is_training : tensor<4x3x3x5xf32>, tensor<5xf32>
  %ubc = gplace.transpose %ub perm = [0, 3, 1, 2] : tensor<4x3x3x5xf32> -> tensor<4x5x3x3xf32>
  %yc, %bmc, %bvc = gplace.fused_batch_norm %ubc, %scale, %offset, %mean, %var epsilon = 0.001 is_training {data_format = "NCHW"} : tensor<4x5x3x3xf32>, tensor<5xf32>
  // Average pools: 3x3 at stride 2 and 2x2 at stride 1, SAME (pads 0, 1);
  // the 2x2 also NCHW, and the 3x3's gradient.
  %a1 = gplace.avg_pool %x ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x6x6x3xf32> -> tensor<2x3x3x3xf32>
  %ga = gplace.avg_pool_grad %ug ksize = [1, 3, 3, 1] strides = [1, 2, 2, 1] padding = "SAME" : tensor<2x3x3x3xf32> -> tensor<2x6x6x3xf32>
  %a2c = gplace.avg_pool %xc ksize = [1, 1, 2, 2] strides = [1, 1, 1, 1] padding = "SAME" {data_format = "NCHW"} : tensor<2x3x6x6xf32> -> tensor<2x3x6x6xf32>
  return %c, %cc, %c2, %dx, %dw, %m1, %m1c, %g1, %m2, %g2, %y, %bm, %bv, %yi, %dxb, %dscale, %doffset, %yc, %a1, %ga, %a2c : tensor<2x3x3x4xf32>, tensor<2x4x3x3xf32>, tensor<2x5x5x4xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>, tensor<2x6x6x3xf32>, tensor<2x3x6x6xf32>, tensor<2x6x6x3xf32>, tensor<2x3x3x3xf32>, tensor<2x6x6x3xf32>, tensor<4x3x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4x3x3x5xf32>, tensor<4x3x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<4x5x3x3xf32>, tensor<2x3x3x3xf32>, tensor<2x6x6x3xf32>, tensor<2x3x6x6xf32>
}
