// Three independent chains of kernels, one per device (the CPU and two
// emulated GPUs), each on a stream of its own, so that nothing orders one
// chain's kernels against another's: inter-op.test bounds how many run at
// once with --inter-op-parallelism-threads.
func.func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %c0 = gplace.constant dense<0.01> : tensor<128x128xf32> {device = "/cpu:0"}
  %m0 = gplace.matmul %c0, %c0 {device = "/cpu:0"} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %t0 = gplace.tanh %m0 {device = "/cpu:0"} : tensor<128x128xf32>
  %s0 = gplace.reduce_sum %t0 axes = [0, 1] {device = "/cpu:0"} : tensor<128x128xf32> -> tensor<f32>
  %c1 = gplace.constant dense<0.02> : tensor<128x128xf32> {device = "/gpu:0"}
  %m1 = gplace.matmul %c1, %c1 {device = "/gpu:0"} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %t1 = gplace.tanh %m1 {device = "/gpu:0"} : tensor<128x128xf32>
  %s1 = gplace.reduce_sum %t1 axes = [0, 1] {device = "/gpu:0"} : tensor<128x128xf32> -> tensor<f32>
  %c2 = gplace.constant dense<0.03> : tensor<128x128xf32> {device = "/gpu:1"}
  %m2 = gplace.matmul %c2, %c2 {device = "/gpu:1"} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %t2 = gplace.tanh %m2 {device = "/gpu:1"} : tensor<128x128xf32>
  %s2 = gplace.reduce_sum %t2 axes = [0, 1] {device = "/gpu:1"} : tensor<128x128xf32> -> tensor<f32>
  return %s0, %s1, %s2 : tensor<f32>, tensor<f32>, tensor<f32>
}
