func.func @biasAddElementType(%x: tensor<2x3xf32>, %b: tensor<3xf64>) {
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<3xf64>
  return
}
