func.func @concatRank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %0 = gplace.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x6xf32>
  return
}
