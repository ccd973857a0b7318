func.func @reduceResult(%x: tensor<2x3xf32>) {
  %0 = gplace.reduce_sum %x axes = [1] keep_dims : tensor<2x3xf32> -> tensor<2xf32>
  return
}
