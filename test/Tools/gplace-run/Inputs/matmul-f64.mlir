// An f64 matmul, which runs on OpenBLAS (f32 runs on oneDNN where gplace has
// it): blas.test runs it under each OpenBLAS core type.
func.func @main() -> tensor<2x2xf64> {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
  %b = gplace.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf64>
  %c = gplace.matmul %a, %b : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  return %c : tensor<2x2xf64>
}
