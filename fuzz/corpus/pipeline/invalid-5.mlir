func.func @matmulResult(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return
}
