func.func @reshapeCount(%x: tensor<2x3xf32>) {
  %0 = gplace.reshape %x : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}
