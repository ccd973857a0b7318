// An average pool padded unevenly on a CUDA GPU: an error naming the pads.
func.func @main(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32> {
  %y = gplace.avg_pool %x ksize = [1, 2, 2, 1] strides = [1, 1, 1, 1] padding = "SAME" {device = "/gpu:0"} : tensor<1x4x4x1xf32> -> tensor<1x4x4x1xf32>
  return %y : tensor<1x4x4x1xf32>
}
