func.func @variableType() {
  %v = "gplace.variable"() <{initial_value = dense<3.0> : tensor<f32>}> : () -> !gplace.resource<tensor<2xf32>>
  return
}
