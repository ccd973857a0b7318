func.func @matmulBool(%a: tensor<2x2xi1>) {
  %0 = gplace.matmul %a, %a : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}
