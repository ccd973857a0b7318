func.func @elementwiseElementType(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  %0 = gplace.sub %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}
