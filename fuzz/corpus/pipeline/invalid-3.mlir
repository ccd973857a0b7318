func.func @matmulRankRhs(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x2xf32>
  return
}
