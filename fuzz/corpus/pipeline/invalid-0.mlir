func.func @matmulContraction(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) {
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}
