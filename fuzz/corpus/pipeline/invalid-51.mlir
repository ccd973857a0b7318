func.func @constantType() {
  %0 = "gplace.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}
