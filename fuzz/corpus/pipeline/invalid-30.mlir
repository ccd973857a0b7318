func.func @reshapeElementType(%x: tensor<2x3xf32>) {
  %0 = gplace.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}
