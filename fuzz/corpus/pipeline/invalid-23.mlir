func.func @softmaxScalar(%x: tensor<f32>) {
  %0 = gplace.softmax %x : tensor<f32>
  return
}
