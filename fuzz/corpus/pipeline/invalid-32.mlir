func.func @sliceBegin(%x: tensor<2x3xf32>) {
  %0 = gplace.slice %x begin = [0, 4] size = [1, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  return
}
