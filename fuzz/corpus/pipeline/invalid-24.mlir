func.func @castShape(%x: tensor<2x3xi32>) {
  %0 = gplace.cast %x : tensor<2x3xi32> to tensor<6xf32>
  return
}
