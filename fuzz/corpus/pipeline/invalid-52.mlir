func.func @constantElementType() {
  %0 = gplace.constant dense<1> : tensor<2xi8>
  return
}
