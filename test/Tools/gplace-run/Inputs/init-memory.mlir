// --init's plan and the entry's each fit GPU:0's memory limit alone, and
// not together: gplace-run unloads the --init function's plan before it
// loads the entry's (training.test).
func.func @init() {
  %w = gplace.variable dense<0.0> : tensor<512x512xf32> {name = "w", device = "/gpu:0"}
  %seed = gplace.constant dense<[7, 0]> : tensor<2xi64>
  %r = gplace.stateless_random_normal %seed : tensor<2xi64> -> tensor<512x512xf32>
  %set = gplace.assign %w, %r {device = "/gpu:0"} : !gplace.resource<tensor<512x512xf32>>
  return
}

func.func @main() -> tensor<f32> {
  %w = gplace.variable dense<0.0> : tensor<512x512xf32> {name = "w", device = "/gpu:0"}
  %wr = gplace.read %w {device = "/gpu:0"} : !gplace.resource<tensor<512x512xf32>>
  %p = gplace.matmul %wr, %wr {device = "/gpu:0"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %q = gplace.matmul %p, %wr {device = "/gpu:0"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  // A sub, not an add: --gplace-remap would make p + q one matmul_accumulate
  // (GEMM with beta = 1), with no buffer for q, and the plan would need
  // 3 MiB rather than all 4.
  %r = gplace.sub %p, %q {device = "/gpu:0"} : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %s = gplace.reduce_sum %r axes = [0, 1] {device = "/gpu:0"} : tensor<512x512xf32> -> tensor<f32>
  return %s : tensor<f32>
}
