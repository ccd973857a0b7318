func.func @biasAddRank(%x: tensor<3xf32>, %b: tensor<3xf32>) {
  %0 = gplace.bias_add %x, %b : tensor<3xf32>, tensor<3xf32>
  return
}
