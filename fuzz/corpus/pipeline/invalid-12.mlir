func.func @unaryResult(%a: tensor<2xf32>) {
  %0 = "gplace.tanh"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return
}
