func.func @afterTakesTokens(%a: tensor<f32>) {
  %0 = "gplace.constant"(%a) <{value = dense<1.0> : tensor<f32>}> : (tensor<f32>) -> tensor<f32>
  return
}
