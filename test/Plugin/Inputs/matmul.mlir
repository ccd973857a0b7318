func.func @main() -> tensor<2x2xf32> {
  %a = gplace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = gplace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m = gplace.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // A bias (broadcast): an add of a 2x2 tensor would fuse with the matmul
  // into matmul_accumulate (--gplace-remap), and no MatMul would be left.
  %s = gplace.add %m, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
