func.func @matmulTransposedContraction(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  %0 = gplace.matmul %a, %b transpose_a transpose_b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return
}
