func.func @serializedCopies() {
  %a = gplace.constant dense<1.0> : tensor<4xf32> {device = "/cpu:0"}
  %b = gplace.constant dense<2.0> : tensor<4xf32> {device = "/cpu:0"}
  %c = gplace.add %a, %b {device = "/gpu:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
