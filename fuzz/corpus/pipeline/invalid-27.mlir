func.func @transposePermRepeat(%x: tensor<2x3xf32>) {
  %0 = gplace.transpose %x perm = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}
