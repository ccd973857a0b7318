func.func @readType() {
  %v = gplace.variable dense<3.0> : tensor<f32>
  %0 = "gplace.read"(%v) : (!gplace.resource<tensor<f32>>) -> tensor<i32>
  return
}
