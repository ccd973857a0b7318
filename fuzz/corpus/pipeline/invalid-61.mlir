func.func @copyOfResource() {
  %v = gplace.variable dense<1.0> : tensor<f32>
  %0 = "gplace.copy"(%v) <{source = "a", destination = "b"}> : (!gplace.resource<tensor<f32>>) -> !gplace.resource<tensor<f32>>
  return
}
