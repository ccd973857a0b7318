func.func @assignNotResource(%x: tensor<f32>) {
  %0 = gplace.assign %x, %x : tensor<f32>
  return
}
