func.func @matmulRankLhs(%a: tensor<2x3x4xf32>, %b: tensor<3x2xf32>) {
  %0 = gplace.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return
}
