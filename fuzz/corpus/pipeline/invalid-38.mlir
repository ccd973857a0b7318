func.func @concatElementType(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  %0 = gplace.concat %a, %b axis = 0 : tensor<2xf32>, tensor<2xi32> -> tensor<4xf32>
  return
}
