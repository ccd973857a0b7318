func.func @biasAddBiasRank(%x: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<1x3xf32>
  return
}
