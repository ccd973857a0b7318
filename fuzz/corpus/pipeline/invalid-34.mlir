func.func @sliceResult(%x: tensor<2x3xf32>) {
  %0 = gplace.slice %x begin = [0, 1] size = [-1, -1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}
