// A 4-8-2 ReLU MLP trained with Adam, its slots and beta powers variables
// as TensorFlow 1's AdamOptimizer makes them, and the bias of the output
// layer with momentum (resume.test, bench/soak.py): every kind of
// optimizer state a resumed training must restore.
func.func @init() {
  %w1 = gplace.variable dense<0.0> : tensor<4x8xf32> {name = "w1"}
  %w2 = gplace.variable dense<0.0> : tensor<8x2xf32> {name = "w2"}
  %seed1 = gplace.constant dense<[7, 0]> : tensor<2xi64>
  %r1 = gplace.stateless_random_normal %seed1 : tensor<2xi64> -> tensor<4x8xf32>
  %set1 = gplace.assign %w1, %r1 : !gplace.resource<tensor<4x8xf32>>
  %seed2 = gplace.constant dense<[8, 0]> : tensor<2xi64>
  %r2 = gplace.stateless_random_normal %seed2 : tensor<2xi64> -> tensor<8x2xf32>
  %set2 = gplace.assign %w2, %r2 : !gplace.resource<tensor<8x2xf32>>
  return
}

func.func @train(%x: tensor<16x4xf32>, %labels: tensor<16xui8>) -> tensor<f32> {
  %w1 = gplace.variable dense<0.0> : tensor<4x8xf32> {name = "w1"}
  %b1 = gplace.variable dense<0.1> : tensor<8xf32> {name = "b1"}
  %w2 = gplace.variable dense<0.0> : tensor<8x2xf32> {name = "w2"}
  %b2 = gplace.variable dense<0.0> : tensor<2xf32> {name = "b2"}
  %w1_m = gplace.variable dense<0.0> : tensor<4x8xf32> {name = "w1/Adam"}
  %w1_v = gplace.variable dense<0.0> : tensor<4x8xf32> {name = "w1/Adam_1"}
  %b1_m = gplace.variable dense<0.0> : tensor<8xf32> {name = "b1/Adam"}
  %b1_v = gplace.variable dense<0.0> : tensor<8xf32> {name = "b1/Adam_1"}
  %w2_m = gplace.variable dense<0.0> : tensor<8x2xf32> {name = "w2/Adam"}
  %w2_v = gplace.variable dense<0.0> : tensor<8x2xf32> {name = "w2/Adam_1"}
  %b2_acc = gplace.variable dense<0.0> : tensor<2xf32> {name = "b2/Momentum"}
  %beta1_power = gplace.variable dense<0.9> : tensor<f32> {name = "beta1_power"}
  %beta2_power = gplace.variable dense<0.999> : tensor<f32> {name = "beta2_power"}
  %w1r = gplace.read %w1 : !gplace.resource<tensor<4x8xf32>>
  %b1r = gplace.read %b1 : !gplace.resource<tensor<8xf32>>
  %w2r = gplace.read %w2 : !gplace.resource<tensor<8x2xf32>>
  %b2r = gplace.read %b2 : !gplace.resource<tensor<2xf32>>
  %mm1 = gplace.matmul %x, %w1r : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %z1 = gplace.bias_add %mm1, %b1r : tensor<16x8xf32>, tensor<8xf32>
  %h1 = gplace.relu %z1 : tensor<16x8xf32>
  %mm2 = gplace.matmul %h1, %w2r : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  %logits = gplace.bias_add %mm2, %b2r : tensor<16x2xf32>, tensor<2xf32>
  %l32 = gplace.cast %labels : tensor<16xui8> to tensor<16xi32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %l32 : tensor<16x2xf32>, tensor<16xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<16xf32> -> tensor<f32>
  %gw1, %gb1, %gw2, %gb2 = gplace.gradients %loss wrt %w1r, %b1r, %w2r, %b2r : tensor<f32> wrt tensor<4x8xf32>, tensor<8xf32>, tensor<8x2xf32>, tensor<2xf32>
  %b1p = gplace.read %beta1_power : !gplace.resource<tensor<f32>>
  %b2p = gplace.read %beta2_power : !gplace.resource<tensor<f32>>
  %lr = gplace.constant dense<0.01> : tensor<f32>
  %beta1 = gplace.constant dense<0.9> : tensor<f32>
  %beta2 = gplace.constant dense<0.999> : tensor<f32>
  %epsilon = gplace.constant dense<1.0e-7> : tensor<f32>
  %momentum = gplace.constant dense<0.9> : tensor<f32>
  %u1 = gplace.apply_adam %w1, %w1_m, %w1_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %gw1 : !gplace.resource<tensor<4x8xf32>>, !gplace.resource<tensor<4x8xf32>>, !gplace.resource<tensor<4x8xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<4x8xf32>
  %u2 = gplace.apply_adam %b1, %b1_m, %b1_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %gb1 : !gplace.resource<tensor<8xf32>>, !gplace.resource<tensor<8xf32>>, !gplace.resource<tensor<8xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8xf32>
  %u3 = gplace.apply_adam %w2, %w2_m, %w2_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %gw2 : !gplace.resource<tensor<8x2xf32>>, !gplace.resource<tensor<8x2xf32>>, !gplace.resource<tensor<8x2xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x2xf32>
  %u4 = gplace.apply_momentum %b2, %b2_acc, %lr, %gb2, %momentum : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  %updated = gplace.group %u1, %u2, %u3, %u4 : !gplace.control, !gplace.control, !gplace.control, !gplace.control
  %b1p_next = gplace.mul %b1p, %beta1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b2p_next = gplace.mul %b2p, %beta2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %step1 = gplace.assign %beta1_power, %b1p_next after(%updated) : !gplace.resource<tensor<f32>>
  %step2 = gplace.assign %beta2_power, %b2p_next after(%updated) : !gplace.resource<tensor<f32>>
  %done = gplace.group %step1, %step2 : !gplace.control, !gplace.control
  %result = gplace.identity %loss after(%done) : tensor<f32>
  return %result : tensor<f32>
}

// The mean loss over a data set: no variable written, so a restored
// checkpoint's global_step does not skip its epochs.
func.func @evaluate(%x: tensor<16x4xf32>, %labels: tensor<16xui8>) -> tensor<f32> {
  %w1 = gplace.variable dense<0.0> : tensor<4x8xf32> {name = "w1"}
  %b1 = gplace.variable dense<0.1> : tensor<8xf32> {name = "b1"}
  %w2 = gplace.variable dense<0.0> : tensor<8x2xf32> {name = "w2"}
  %b2 = gplace.variable dense<0.0> : tensor<2xf32> {name = "b2"}
  %w1r = gplace.read %w1 : !gplace.resource<tensor<4x8xf32>>
  %b1r = gplace.read %b1 : !gplace.resource<tensor<8xf32>>
  %w2r = gplace.read %w2 : !gplace.resource<tensor<8x2xf32>>
  %b2r = gplace.read %b2 : !gplace.resource<tensor<2xf32>>
  %mm1 = gplace.matmul %x, %w1r : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %z1 = gplace.bias_add %mm1, %b1r : tensor<16x8xf32>, tensor<8xf32>
  %h1 = gplace.relu %z1 : tensor<16x8xf32>
  %mm2 = gplace.matmul %h1, %w2r : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  %logits = gplace.bias_add %mm2, %b2r : tensor<16x2xf32>, tensor<2xf32>
  %l32 = gplace.cast %labels : tensor<16xui8> to tensor<16xi32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %l32 : tensor<16x2xf32>, tensor<16xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
