func.func @transposeResult(%x: tensor<2x3xf32>) {
  %0 = gplace.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}
