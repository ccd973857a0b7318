func.func @constantWithoutValue() {
  %0 = "gplace.constant"() : () -> tensor<2xf32>
  return
}
