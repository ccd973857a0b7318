// The convolutions' and poolings' kernels of dnnl-layouts.test: NHWC with
// 8 input channels (where oneDNN 2.6 has no AVX2 JIT forward convolution
// for the tensors' own layout) and NCHW.
func.func @main(%x: tensor<4x12x12x8xf32>, %w: tensor<3x3x8x16xf32>,
                %dy: tensor<4x10x10x16xf32>, %g: tensor<4x6x6x8xf32>,
                %xc: tensor<4x8x12x12xf32>, %dyc: tensor<4x16x10x10xf32>)
    -> (tensor<4x10x10x16xf32>, tensor<4x12x12x8xf32>, tensor<3x3x8x16xf32>,
        tensor<4x8x12x12xf32>, tensor<3x3x8x16xf32>, tensor<4x6x6x8xf32>,
        tensor<4x6x6x8xf32>, tensor<4x12x12x8xf32>, tensor<4x12x12x8xf32>) {
  %y = gplace.conv2d %x, %w strides = [1, 1, 1, 1] padding = "VALID" : tensor<4x12x12x8xf32>, tensor<3x3x8x16xf32> -> tensor<4x10x10x16xf32>
  %dx = gplace.conv2d_backprop_input %w, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<3x3x8x16xf32>, tensor<4x10x10x16xf32> -> tensor<4x12x12x8xf32>
  %dw = gplace.conv2d_backprop_filter %x, %dy strides = [1, 1, 1, 1] padding = "VALID" : tensor<4x12x12x8xf32>, tensor<4x10x10x16xf32> -> tensor<3x3x8x16xf32>
  %dxc = gplace.conv2d_backprop_input %w, %dyc strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<3x3x8x16xf32>, tensor<4x16x10x10xf32> -> tensor<4x8x12x12xf32>
  %dwc = gplace.conv2d_backprop_filter %xc, %dyc strides = [1, 1, 1, 1] padding = "VALID" {data_format = "NCHW"} : tensor<4x8x12x12xf32>, tensor<4x16x10x10xf32> -> tensor<3x3x8x16xf32>
  %mp = gplace.max_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<4x12x12x8xf32> -> tensor<4x6x6x8xf32>
  %ap = gplace.avg_pool %x ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<4x12x12x8xf32> -> tensor<4x6x6x8xf32>
  %mpg = gplace.max_pool_grad %x, %mp, %g ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<4x12x12x8xf32>, tensor<4x6x6x8xf32>
  %apg = gplace.avg_pool_grad %g ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<4x6x6x8xf32> -> tensor<4x12x12x8xf32>
  return %y, %dx, %dw, %dxc, %dwc, %mp, %ap, %mpg, %apg : tensor<4x10x10x16xf32>, tensor<4x12x12x8xf32>, tensor<3x3x8x16xf32>, tensor<4x8x12x12xf32>, tensor<3x3x8x16xf32>, tensor<4x6x6x8xf32>, tensor<4x6x6x8xf32>, tensor<4x12x12x8xf32>, tensor<4x12x12x8xf32>
}
