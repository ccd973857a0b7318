func.func @transposePermRange(%x: tensor<2x3xf32>) {
  %0 = gplace.transpose %x perm = [1, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}
