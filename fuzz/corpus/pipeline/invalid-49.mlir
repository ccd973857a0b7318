func.func @variableElementType() {
  %v = gplace.variable dense<3> : tensor<i8>
  return
}
