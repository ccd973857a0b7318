func.func @broadcastResult(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  %0 = gplace.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}
