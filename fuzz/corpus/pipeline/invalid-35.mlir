func.func @concatShapes(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = gplace.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x7xf32>
  return
}
