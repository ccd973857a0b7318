func.func @deviceNotString() {
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = 3}
  return
}
