func.func @assignSubType(%x: tensor<i32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  %0 = gplace.assign_sub %v, %x : !gplace.resource<tensor<f32>>
  return
}
