func.func @reduceAxisNegativeRange(%x: tensor<2x3xf32>) {
  %0 = gplace.reduce_max %x axes = [-3] : tensor<2x3xf32> -> tensor<2xf32>
  return
}
