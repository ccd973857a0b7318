func.func @transposePermSize(%x: tensor<2x3xf32>) {
  %0 = gplace.transpose %x perm = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}
