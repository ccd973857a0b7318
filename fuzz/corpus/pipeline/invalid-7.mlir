func.func @broadcastIncompatible(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  %0 = gplace.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}
