func.func @sliceSize(%x: tensor<2x3xf32>) {
  %0 = gplace.slice %x begin = [0, 1] size = [1, 3] : tensor<2x3xf32> -> tensor<1x3xf32>
  return
}
