// Long reductions (1024 elements or more per result), which a CUDA GPU runs
// as one block of threads per result: a bias's gradient over a batch of
// images (axes 0, 1, 2), a mean, a max (a NaN in one channel propagates),
// all axes, and a middle axis.
func.func @main() -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<16x8xf32>, tensor<8xf32>) {
  %seed = gplace.constant dense<[7, 1]> : tensor<2xi64>
  %u = gplace.stateless_random_uniform %seed : tensor<2xi64> -> tensor<16x24x24x8xf32>
  %half = gplace.constant dense<0.5> : tensor<f32>
  %x = gplace.sub %u, %half : (tensor<16x24x24x8xf32>, tensor<f32>) -> tensor<16x24x24x8xf32>
  %sum = gplace.reduce_sum %x axes = [0, 1, 2] : tensor<16x24x24x8xf32> -> tensor<8xf32>
  %mean = gplace.reduce_mean %x axes = [0, 1, 2] : tensor<16x24x24x8xf32> -> tensor<8xf32>
  %max = gplace.reduce_max %x axes = [0, 1, 2] : tensor<16x24x24x8xf32> -> tensor<8xf32>
  %all = gplace.reduce_sum %x axes = [0, 1, 2, 3] : tensor<16x24x24x8xf32> -> tensor<f32>
  %rows = gplace.reduce_sum %x axes = [1, 2] : tensor<16x24x24x8xf32> -> tensor<16x8xf32>
  %nan = gplace.constant dense<[0.0, 0.0, 0x7FC00000, 0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<8xf32>
  %withnan = gplace.add %x, %nan : (tensor<16x24x24x8xf32>, tensor<8xf32>) -> tensor<16x24x24x8xf32>
  %maxnan = gplace.reduce_max %withnan axes = [0, 1, 2] : tensor<16x24x24x8xf32> -> tensor<8xf32>
  return %sum, %mean, %max, %all, %rows, %maxnan : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<16x8xf32>, tensor<8xf32>
}
