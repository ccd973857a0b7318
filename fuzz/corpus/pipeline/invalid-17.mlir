func.func @biasAddSize(%x: tensor<2x3xf32>, %b: tensor<4xf32>) {
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<4xf32>
  return
}
