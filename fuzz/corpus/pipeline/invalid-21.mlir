func.func @reduceAxisTwice(%x: tensor<2x3xf32>) {
  %0 = gplace.reduce_mean %x axes = [1, -1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}
