// A 2-stage model whose second variable (and its read) request the host:
// test/Transforms/pipeline-replicas-mirrored.mlir's error.
func.func @unrequested(%x: tensor<4x3xf32>, %y: tensor<4x1xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<0.5> : tensor<3x3xf32> {name = "stage0/w", device = "/device:GPU:0"}
  %r0 = gplace.read %w0 {name = "stage0/read", device = "/device:GPU:0"} : !gplace.resource<tensor<3x3xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "stage0/matmul", device = "/device:GPU:0"} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %h0 = gplace.tanh %m0 {name = "stage0/tanh", device = "/device:GPU:0"} : tensor<4x3xf32>
  %w1 = gplace.variable dense<0.25> : tensor<3x1xf32> {name = "stage1/w", device = "/device:CPU:0"}
  %r1 = gplace.read %w1 {name = "stage1/read", device = "/device:CPU:0"} : !gplace.resource<tensor<3x1xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "stage1/matmul", device = "/device:GPU:1"} : (tensor<4x3xf32>, tensor<3x1xf32>) -> tensor<4x1xf32>
  %d = gplace.sub %m1, %y {name = "stage1/sub", device = "/device:GPU:1"} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %sq = gplace.square %d {name = "stage1/square", device = "/device:GPU:1"} : tensor<4x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "stage1/loss", device = "/device:GPU:1"} : tensor<4x1xf32> -> tensor<f32>
  %g0, %g1 = gplace.gradients %loss wrt %r0, %r1 : tensor<f32> wrt tensor<3x3xf32>, tensor<3x1xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 {name = "stage0/update"} : !gplace.resource<tensor<3x3xf32>>, tensor<f32>, tensor<3x3xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 {name = "stage1/update"} : !gplace.resource<tensor<3x1xf32>>, tensor<f32>, tensor<3x1xf32>
  return %loss : tensor<f32>
}
