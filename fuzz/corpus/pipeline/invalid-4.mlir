func.func @matmulElementTypes(%a: tensor<2x3xf32>, %b: tensor<3x2xf16>) {
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf16>) -> tensor<2x2xf32>
  return
}
