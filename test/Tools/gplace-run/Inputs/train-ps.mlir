// train.mlir's logistic regression laid out as TensorFlow's parameter
// servers: the variables (and their updates) on /job:ps/task:0, the
// forward and backward passes on /job:worker/task:0 (cluster.test).
func.func @init() {
  %w = gplace.variable dense<0.0> : tensor<4x2xf32> {name = "w", device = "/job:ps/task:0/cpu:0"}
  %seed = gplace.constant dense<[7, 0]> : tensor<2xi64>
  %r = gplace.stateless_random_normal %seed : tensor<2xi64> -> tensor<4x2xf32>
  %set = gplace.assign %w, %r : !gplace.resource<tensor<4x2xf32>>
  return
}

func.func @train(%x: tensor<16x4xf32>, %labels: tensor<16xui8>) -> tensor<f32> {
  %w = gplace.variable dense<0.0> : tensor<4x2xf32> {name = "w", device = "/job:ps/task:0/cpu:0"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "b", device = "/job:ps/task:0/cpu:0"}
  %wr = gplace.read %w : !gplace.resource<tensor<4x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %mm = gplace.matmul %x, %wr {device = "/job:worker/task:0/cpu:0"} : (tensor<16x4xf32>, tensor<4x2xf32>) -> tensor<16x2xf32>
  %logits = gplace.bias_add %mm, %br : tensor<16x2xf32>, tensor<2xf32>
  %l32 = gplace.cast %labels : tensor<16xui8> to tensor<16xi32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %l32 : tensor<16x2xf32>, tensor<16xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<16xf32> -> tensor<f32>
  %gw, %gb = gplace.gradients %loss wrt %wr, %br : tensor<f32> wrt tensor<4x2xf32>, tensor<2xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %uw = gplace.apply_gradient_descent %w, %lr, %gw : !gplace.resource<tensor<4x2xf32>>, tensor<f32>, tensor<4x2xf32>
  %ub = gplace.apply_gradient_descent %b, %lr, %gb : !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>
  %done = gplace.group %uw, %ub : !gplace.control, !gplace.control
  %result = gplace.identity %loss after(%done) : tensor<f32>
  return %result : tensor<f32>
}
