// @train of pipeline-parallel.mlir with momentum on w3: its slot variable
// (w3/Momentum) requests no device, so each mirrored pipeline replica's copy
// goes with the replica's update (test/Execution/pipeline-parallel.mlir).
func.func @train(%x: tensor<16x8xf32>, %y: tensor<16x1xf32>) -> (tensor<f32>, tensor<8x8xf32>, tensor<8x1xf32>) {
  %w0 = gplace.variable dense<[[-0.24, 0.32, -0.39, 0.45, -0.5, 0.54, -0.57, 0.59], [0.18, -0.1, 0.01, 0.07, -0.16, 0.24, -0.31, 0.38], [0.51, -0.46, 0.4, -0.34, 0.26, -0.18, 0.1, -0.02], [0.59, -0.6, 0.6, -0.58, 0.55, -0.51, 0.46, -0.41], [0.38, -0.44, 0.5, -0.54, 0.57, -0.59, 0.6, -0.6], [-0.02, -0.07, 0.15, -0.23, 0.31, -0.38, 0.44, -0.49], [-0.41, 0.34, -0.27, 0.19, -0.11, 0.02, 0.06, -0.15], [-0.6, 0.58, -0.55, 0.52, -0.47, 0.41, -0.34, 0.27]]> : tensor<8x8xf32> {name = "w0", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {device = "/device:GPU:0"} : !gplace.resource<tensor<8x8xf32>>
  %m0 = gplace.matmul %x, %r0 {device = "/device:GPU:0"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h0 = gplace.tanh %m0 {device = "/device:GPU:0"} : tensor<16x8xf32>
  %w1 = gplace.variable dense<[[-0.44, 0.5, -0.54, 0.57, -0.59, 0.6, -0.6, 0.58], [-0.07, 0.15, -0.23, 0.31, -0.38, 0.44, -0.49, 0.54], [0.34, -0.27, 0.19, -0.11, 0.02, 0.06, -0.15, 0.23], [0.58, -0.55, 0.52, -0.47, 0.41, -0.34, 0.27, -0.19], [0.54, -0.57, 0.59, -0.6, 0.6, -0.58, 0.56, -0.52], [0.23, -0.3, 0.37, -0.44, 0.49, -0.53, 0.57, -0.59], [-0.19, 0.11, -0.03, -0.06, 0.14, -0.22, 0.3, -0.37], [-0.52, 0.47, -0.41, 0.35, -0.28, 0.2, -0.12, 0.03]]> : tensor<8x8xf32> {name = "w1", device = "/device:GPU:1"}
  %r1 = gplace.read %w1 {device = "/device:GPU:1"} : !gplace.resource<tensor<8x8xf32>>
  %m1 = gplace.matmul %h0, %r1 {device = "/device:GPU:1"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h1 = gplace.tanh %m1 {device = "/device:GPU:1"} : tensor<16x8xf32>
  %w2 = gplace.variable dense<[[-0.57, 0.59, -0.6, 0.6, -0.58, 0.56, -0.52, 0.47], [-0.3, 0.37, -0.44, 0.49, -0.53, 0.57, -0.59, 0.6], [0.11, -0.03, -0.06, 0.14, -0.22, 0.3, -0.37, 0.43], [0.47, -0.41, 0.35, -0.28, 0.2, -0.12, 0.03, 0.05], [0.6, -0.6, 0.58, -0.56, 0.52, -0.47, 0.42, -0.35], [0.43, -0.49, 0.53, -0.57, 0.59, -0.6, 0.6, -0.58], [0.05, -0.14, 0.22, -0.29, 0.37, -0.43, 0.48, -0.53], [-0.35, 0.28, -0.2, 0.12, -0.04, -0.05, 0.13, -0.21]]> : tensor<8x8xf32> {name = "w2", device = "/device:GPU:2"}
  %r2 = gplace.read %w2 {device = "/device:GPU:2"} : !gplace.resource<tensor<8x8xf32>>
  %m2 = gplace.matmul %h1, %r2 {device = "/device:GPU:2"} : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %h2 = gplace.tanh %m2 {device = "/device:GPU:2"} : tensor<16x8xf32>
  %w3 = gplace.variable dense<[[-0.6], [-0.49], [-0.14], [0.28], [0.56], [0.56], [0.29], [-0.13]]> : tensor<8x1xf32> {name = "w3", device = "/device:GPU:3"}
  %r3 = gplace.read %w3 {device = "/device:GPU:3"} : !gplace.resource<tensor<8x1xf32>>
  %m3 = gplace.matmul %h2, %r3 {device = "/device:GPU:3"} : (tensor<16x8xf32>, tensor<8x1xf32>) -> tensor<16x1xf32>
  %d = gplace.sub %m3, %y {device = "/device:GPU:3"} : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
  %sq = gplace.square %d {device = "/device:GPU:3"} : tensor<16x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {device = "/device:GPU:3"} : tensor<16x1xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x1xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<8x8xf32>>, tensor<f32>, tensor<8x8xf32>
  %w3m = gplace.variable dense<0.0> : tensor<8x1xf32> {name = "w3/Momentum"}
  %mom = gplace.constant dense<0.9> : tensor<f32>
  %u3 = gplace.apply_momentum %w3, %w3m, %lr, %g3, %mom : !gplace.resource<tensor<8x1xf32>>, !gplace.resource<tensor<8x1xf32>>, tensor<f32>, tensor<8x1xf32>, tensor<f32>
  %a0 = gplace.read %w0 after(%u0) : !gplace.resource<tensor<8x8xf32>>
  %a3 = gplace.read %w3 after(%u3) : !gplace.resource<tensor<8x1xf32>>
  return %loss, %a0, %a3 : tensor<f32>, tensor<8x8xf32>, tensor<8x1xf32>
}

