// A logistic regression trained with gradient descent (training.test).
func.func @init() {
  %w = gplace.variable dense<0.0> : tensor<4x2xf32> {name = "w"}
  %seed = gplace.constant dense<[7, 0]> : tensor<2xi64>
  %r = gplace.stateless_random_normal %seed : tensor<2xi64> -> tensor<4x2xf32>
  %set = gplace.assign %w, %r : !gplace.resource<tensor<4x2xf32>>
  return
}

func.func @train(%x: tensor<16x4xf32>, %labels: tensor<16xui8>) -> tensor<f32> {
  %w = gplace.variable dense<0.0> : tensor<4x2xf32> {name = "w"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "b"}
  %wr = gplace.read %w : !gplace.resource<tensor<4x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %mm = gplace.matmul %x, %wr : (tensor<16x4xf32>, tensor<4x2xf32>) -> tensor<16x2xf32>
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

func.func @evaluate(%x: tensor<64x4xf32>, %labels: tensor<64xui8>) -> tensor<f32> {
  %w = gplace.variable dense<0.0> : tensor<4x2xf32> {name = "w"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {name = "b"}
  %wr = gplace.read %w : !gplace.resource<tensor<4x2xf32>>
  %br = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %mm = gplace.matmul %x, %wr : (tensor<64x4xf32>, tensor<4x2xf32>) -> tensor<64x2xf32>
  %logits = gplace.bias_add %mm, %br : tensor<64x2xf32>, tensor<2xf32>
  %predicted = gplace.argmax %logits axis = 1 : tensor<64x2xf32> -> tensor<64xi64>
  %l64 = gplace.cast %labels : tensor<64xui8> to tensor<64xi64>
  %correct = gplace.equal %predicted, %l64 : (tensor<64xi64>, tensor<64xi64>) -> tensor<64xi1>
  %hits = gplace.cast %correct : tensor<64xi1> to tensor<64xf32>
  %accuracy = gplace.reduce_mean %hits axes = [0] : tensor<64xf32> -> tensor<f32>
  return %accuracy : tensor<f32>
}

// A model whose variable `w` has another shape (restore error).
func.func @other() -> tensor<3xf32> {
  %w = gplace.variable dense<0.0> : tensor<3xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3xf32>>
  return %r : tensor<3xf32>
}

func.func @missing() -> tensor<3xf32> {
  %v = gplace.variable dense<0.0> : tensor<3xf32> {name = "not_in_checkpoint"}
  %r = gplace.read %v : !gplace.resource<tensor<3xf32>>
  return %r : tensor<3xf32>
}
