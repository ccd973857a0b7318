func.func @chainOnTheGpu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = gplace.exp %x : tensor<4xf32>
  %b = gplace.exp %a : tensor<4xf32>
  %c = gplace.exp %b : tensor<4xf32>
  %d = gplace.exp %c : tensor<4xf32>
  return %d : tensor<4xf32>
}
