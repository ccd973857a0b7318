func.func @concatAxis(%a: tensor<2x3xf32>) {
  %0 = gplace.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}
