func.func @concatResult(%a: tensor<2xf32>) {
  %0 = gplace.concat %a, %a axis = 0 : tensor<2xf32>, tensor<2xf32> -> tensor<5xf32>
  return
}
