// A character-level LSTM language model (docs/training.md): an embedding
// of 16 symbols into 8 values, one LSTM layer of 32 units over sequences of
// 12 steps (gplace.cudnn_rnn: oneDNN's LSTM primitive, forward and backward),
// and a dense layer to the next symbol's logits, trained with Adam
// (learning rate 0.01, batches of 8), in two functions that share their
// variables by name:
//   @init   uniform [-0.1, 0.1) weights from stateless random numbers, zero
//           biases (run once: --init=init);
//   @train  one step on a batch of 8 windows of 13 symbols (int32: each
//           window's first 12 are the inputs, its last 12 the targets): the
//           mean sparse softmax cross-entropy of the next symbol, its
//           gradients (gplace.gradients) and an Adam update of every
//           variable; returns the loss.
//
//   gplace-run examples/train_lstm_lm.mlir --entry=train --init=init \
//       --input=@windows.npy --epochs=10 --shuffle=1
//
// with windows.npy an [N, 13] int32 array of symbols below 16 (the test
// test/Tools/gplace-run/train-lstm-example.test writes one from a text).
// --emulate-gpus=N places it as on N GPUs: cudnn_rnn and its gradient have
// no GPU kernel yet, so they stay on the CPU and the rest follows placement.

func.func @init() {
  %emb = gplace.variable dense<0.0> : tensor<16x8xf32> {name = "embedding"}
  %w = gplace.variable dense<0.0> : tensor<1x128x8xf32> {name = "lstm/w"}
  %r = gplace.variable dense<0.0> : tensor<1x128x32xf32> {name = "lstm/r"}
  %b = gplace.variable dense<0.0> : tensor<1x256xf32> {name = "lstm/b"}
  %ow = gplace.variable dense<0.0> : tensor<32x16xf32> {name = "dense/kernel"}
  %ob = gplace.variable dense<0.0> : tensor<16xf32> {name = "dense/bias"}
  %scale = gplace.constant dense<2.0e-01> : tensor<f32>
  %shift = gplace.constant dense<1.0e-01> : tensor<f32>
  %emb_seed = gplace.constant dense<[1, 0]> : tensor<2xi64>
  %emb_u = gplace.stateless_random_uniform %emb_seed : tensor<2xi64> -> tensor<16x8xf32>
  %emb_scaled = gplace.mul %emb_u, %scale : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %emb_value = gplace.sub %emb_scaled, %shift : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  %emb_init = gplace.assign %emb, %emb_value : !gplace.resource<tensor<16x8xf32>>
  %w_seed = gplace.constant dense<[2, 0]> : tensor<2xi64>
  %w_u = gplace.stateless_random_uniform %w_seed : tensor<2xi64> -> tensor<1x128x8xf32>
  %w_scaled = gplace.mul %w_u, %scale : (tensor<1x128x8xf32>, tensor<f32>) -> tensor<1x128x8xf32>
  %w_value = gplace.sub %w_scaled, %shift : (tensor<1x128x8xf32>, tensor<f32>) -> tensor<1x128x8xf32>
  %w_init = gplace.assign %w, %w_value : !gplace.resource<tensor<1x128x8xf32>>
  %r_seed = gplace.constant dense<[3, 0]> : tensor<2xi64>
  %r_u = gplace.stateless_random_uniform %r_seed : tensor<2xi64> -> tensor<1x128x32xf32>
  %r_scaled = gplace.mul %r_u, %scale : (tensor<1x128x32xf32>, tensor<f32>) -> tensor<1x128x32xf32>
  %r_value = gplace.sub %r_scaled, %shift : (tensor<1x128x32xf32>, tensor<f32>) -> tensor<1x128x32xf32>
  %r_init = gplace.assign %r, %r_value : !gplace.resource<tensor<1x128x32xf32>>
  %ow_seed = gplace.constant dense<[4, 0]> : tensor<2xi64>
  %ow_u = gplace.stateless_random_uniform %ow_seed : tensor<2xi64> -> tensor<32x16xf32>
  %ow_scaled = gplace.mul %ow_u, %scale : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %ow_value = gplace.sub %ow_scaled, %shift : (tensor<32x16xf32>, tensor<f32>) -> tensor<32x16xf32>
  %ow_init = gplace.assign %ow, %ow_value : !gplace.resource<tensor<32x16xf32>>
  return
}

func.func @train(%windows: tensor<8x13xi32>) -> tensor<f32> {
  %emb = gplace.variable dense<0.0> : tensor<16x8xf32> {name = "embedding"}
  %emb_m = gplace.variable dense<0.0> : tensor<16x8xf32> {name = "embedding/Adam"}
  %emb_v = gplace.variable dense<0.0> : tensor<16x8xf32> {name = "embedding/Adam_1"}
  %w = gplace.variable dense<0.0> : tensor<1x128x8xf32> {name = "lstm/w"}
  %w_m = gplace.variable dense<0.0> : tensor<1x128x8xf32> {name = "lstm/w/Adam"}
  %w_v = gplace.variable dense<0.0> : tensor<1x128x8xf32> {name = "lstm/w/Adam_1"}
  %r = gplace.variable dense<0.0> : tensor<1x128x32xf32> {name = "lstm/r"}
  %r_m = gplace.variable dense<0.0> : tensor<1x128x32xf32> {name = "lstm/r/Adam"}
  %r_v = gplace.variable dense<0.0> : tensor<1x128x32xf32> {name = "lstm/r/Adam_1"}
  %b = gplace.variable dense<0.0> : tensor<1x256xf32> {name = "lstm/b"}
  %b_m = gplace.variable dense<0.0> : tensor<1x256xf32> {name = "lstm/b/Adam"}
  %b_v = gplace.variable dense<0.0> : tensor<1x256xf32> {name = "lstm/b/Adam_1"}
  %ow = gplace.variable dense<0.0> : tensor<32x16xf32> {name = "dense/kernel"}
  %ow_m = gplace.variable dense<0.0> : tensor<32x16xf32> {name = "dense/kernel/Adam"}
  %ow_v = gplace.variable dense<0.0> : tensor<32x16xf32> {name = "dense/kernel/Adam_1"}
  %ob = gplace.variable dense<0.0> : tensor<16xf32> {name = "dense/bias"}
  %ob_m = gplace.variable dense<0.0> : tensor<16xf32> {name = "dense/bias/Adam"}
  %ob_v = gplace.variable dense<0.0> : tensor<16xf32> {name = "dense/bias/Adam_1"}
  %beta1_power = gplace.variable dense<0.9> : tensor<f32> {name = "beta1_power"}
  %beta2_power = gplace.variable dense<0.999> : tensor<f32> {name = "beta2_power"}
  %inputs = gplace.slice %windows begin = [0, 0] size = [8, 12] : tensor<8x13xi32> -> tensor<8x12xi32>
  %targets = gplace.slice %windows begin = [0, 1] size = [8, 12] : tensor<8x13xi32> -> tensor<8x12xi32>
  %steps = gplace.transpose %inputs perm = [1, 0] : tensor<8x12xi32> -> tensor<12x8xi32>
  %next = gplace.transpose %targets perm = [1, 0] : tensor<8x12xi32> -> tensor<12x8xi32>
  %labels = gplace.reshape %next : tensor<12x8xi32> -> tensor<96xi32>
  %emb_read = gplace.read %emb : !gplace.resource<tensor<16x8xf32>>
  %w_read = gplace.read %w : !gplace.resource<tensor<1x128x8xf32>>
  %r_read = gplace.read %r : !gplace.resource<tensor<1x128x32xf32>>
  %b_read = gplace.read %b : !gplace.resource<tensor<1x256xf32>>
  %ow_read = gplace.read %ow : !gplace.resource<tensor<32x16xf32>>
  %ob_read = gplace.read %ob : !gplace.resource<tensor<16xf32>>
  %x = gplace.gather %emb_read[%steps] axis = 0 : (tensor<16x8xf32>, tensor<12x8xi32>) -> tensor<12x8x8xf32>
  %state = gplace.constant dense<0.0> : tensor<1x8x32xf32>
  %y, %h, %c = gplace.cudnn_rnn %x, %state, %state, %w_read, %r_read, %b_read rnn_mode = "lstm" direction = "forward" {name = "lstm"} : tensor<12x8x8xf32>, tensor<1x8x32xf32>, tensor<1x128x8xf32>, tensor<1x128x32xf32>, tensor<1x256xf32> -> tensor<12x8x32xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>
  %rows = gplace.reshape %y : tensor<12x8x32xf32> -> tensor<96x32xf32>
  %mm = gplace.matmul %rows, %ow_read : (tensor<96x32xf32>, tensor<32x16xf32>) -> tensor<96x16xf32>
  %logits = gplace.bias_add %mm, %ob_read : tensor<96x16xf32>, tensor<16xf32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %labels : tensor<96x16xf32>, tensor<96xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<96xf32> -> tensor<f32>
  %g_emb, %g_w, %g_r, %g_b, %g_ow, %g_ob = gplace.gradients %loss wrt %emb_read, %w_read, %r_read, %b_read, %ow_read, %ob_read : tensor<f32> wrt tensor<16x8xf32>, tensor<1x128x8xf32>, tensor<1x128x32xf32>, tensor<1x256xf32>, tensor<32x16xf32>, tensor<16xf32>
  %lr = gplace.constant dense<1.0e-02> : tensor<f32>
  %beta1 = gplace.constant dense<0.9> : tensor<f32>
  %beta2 = gplace.constant dense<0.999> : tensor<f32>
  %epsilon = gplace.constant dense<1.0e-7> : tensor<f32>
  %b1p = gplace.read %beta1_power : !gplace.resource<tensor<f32>>
  %b2p = gplace.read %beta2_power : !gplace.resource<tensor<f32>>
  %emb_adam = gplace.apply_adam %emb, %emb_m, %emb_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_emb : !gplace.resource<tensor<16x8xf32>>, !gplace.resource<tensor<16x8xf32>>, !gplace.resource<tensor<16x8xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<16x8xf32>
  %w_adam = gplace.apply_adam %w, %w_m, %w_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_w : !gplace.resource<tensor<1x128x8xf32>>, !gplace.resource<tensor<1x128x8xf32>>, !gplace.resource<tensor<1x128x8xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1x128x8xf32>
  %r_adam = gplace.apply_adam %r, %r_m, %r_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_r : !gplace.resource<tensor<1x128x32xf32>>, !gplace.resource<tensor<1x128x32xf32>>, !gplace.resource<tensor<1x128x32xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1x128x32xf32>
  %b_adam = gplace.apply_adam %b, %b_m, %b_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_b : !gplace.resource<tensor<1x256xf32>>, !gplace.resource<tensor<1x256xf32>>, !gplace.resource<tensor<1x256xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1x256xf32>
  %ow_adam = gplace.apply_adam %ow, %ow_m, %ow_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_ow : !gplace.resource<tensor<32x16xf32>>, !gplace.resource<tensor<32x16xf32>>, !gplace.resource<tensor<32x16xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<32x16xf32>
  %ob_adam = gplace.apply_adam %ob, %ob_m, %ob_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_ob : !gplace.resource<tensor<16xf32>>, !gplace.resource<tensor<16xf32>>, !gplace.resource<tensor<16xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<16xf32>
  %updated = gplace.group %emb_adam, %w_adam, %r_adam, %b_adam, %ow_adam, %ob_adam : !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control
  %b1p_next = gplace.mul %b1p, %beta1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b2p_next = gplace.mul %b2p, %beta2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %step1 = gplace.assign %beta1_power, %b1p_next after(%updated) : !gplace.resource<tensor<f32>>
  %step2 = gplace.assign %beta2_power, %b2p_next after(%updated) : !gplace.resource<tensor<f32>>
  %done = gplace.group %step1, %step2 : !gplace.control, !gplace.control
  %result = gplace.identity %loss after(%done) : tensor<f32>
  return %result : tensor<f32>
}
