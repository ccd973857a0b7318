func.func @readNotResource(%x: tensor<f32>) {
  %0 = "gplace.read"(%x) : (tensor<f32>) -> tensor<f32>
  return
}
