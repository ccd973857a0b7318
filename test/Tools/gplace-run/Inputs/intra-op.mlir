// Kernels large enough to split over threads: a 256x256 matmul (oneDNN's
// or OpenBLAS's threads) and a 65,536-element elementwise op and sum (the
// host kernels' parallel loops). devices.test runs it with several
// --intra-op-parallelism-threads.
func.func @main() -> (tensor<f32>, tensor<f32>) {
  %a = gplace.constant dense<0.5> : tensor<256x256xf32>
  %p = gplace.matmul %a, %a : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %e = gplace.exp %p : tensor<256x256xf32>
  %l = gplace.log %e : tensor<256x256xf32>
  %s = gplace.reduce_sum %l axes = [0, 1] : tensor<256x256xf32> -> tensor<f32>
  %m = gplace.reduce_max %p axes = [0, 1] : tensor<256x256xf32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}
