func.func @assignType(%x: tensor<i32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  %0 = "gplace.assign"(%v, %x) : (!gplace.resource<tensor<f32>>, tensor<i32>) -> !gplace.control
  return
}
