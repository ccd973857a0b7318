func.func @assignAddType(%x: tensor<2xf32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  %0 = "gplace.assign_add"(%v, %x) : (!gplace.resource<tensor<f32>>, tensor<2xf32>) -> !gplace.control
  return
}
