func.func @concatScalars(%a: tensor<f32>) {
  %0 = gplace.concat %a, %a axis = 0 : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return
}
