func.func @addNTypes(%a: tensor<2x2xf32>, %b: tensor<2xf32>) {
  %0 = "gplace.add_n"(%a, %b) <{operandSegmentSizes = array<i32: 2, 0>}> : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return
}
