func.func @expOnIntegers(%a: tensor<2xi32>) {
  %0 = gplace.exp %a : tensor<2xi32>
  return
}
