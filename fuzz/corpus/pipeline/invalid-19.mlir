func.func @reduceAxisRange(%x: tensor<2x3xf32>) {
  %0 = gplace.reduce_sum %x axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}
