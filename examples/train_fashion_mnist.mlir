// A 784-256-128-10 ReLU MLP for Fashion-MNIST, trained with Adam
// (learning rate 0.001, batches of 128), in three functions that share
// their variables by name (docs/training.md):
//   @init      Glorot-uniform kernels from stateless random numbers, zero
//              biases (TensorFlow's initializers, run once: --init=init);
//   @train     one step: the mean sparse softmax cross-entropy of a batch,
//              its gradients (gplace.gradients) and an Adam update of every
//              variable; returns the loss;
//   @evaluate  the accuracy on the 10,000 test images.
//
//   gplace-run examples/train_fashion_mnist.mlir --entry=train --init=init \
//       --input=@$D/train-images-idx3-ubyte.gz --input=@$D/train-labels-idx1-ubyte.gz \
//       --epochs=10 --shuffle=1 --save=/tmp/fashion.npz
//   gplace-run examples/train_fashion_mnist.mlir --entry=evaluate --restore=/tmp/fashion.npz \
//       --input=@$D/t10k-images-idx3-ubyte.gz --input=@$D/t10k-labels-idx1-ubyte.gz
//
// with D=/usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist).

func.func @init() {
  %dense_w = gplace.variable dense<0.0> : tensor<784x256xf32> {name = "dense/kernel"}
  %dense_b = gplace.variable dense<0.0> : tensor<256xf32> {name = "dense/bias"}
  %dense_1_w = gplace.variable dense<0.0> : tensor<256x128xf32> {name = "dense_1/kernel"}
  %dense_1_b = gplace.variable dense<0.0> : tensor<128xf32> {name = "dense_1/bias"}
  %dense_2_w = gplace.variable dense<0.0> : tensor<128x10xf32> {name = "dense_2/kernel"}
  %dense_2_b = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_2/bias"}
  %dense_seed = gplace.constant dense<[1, 0]> : tensor<2xi64>
  %dense_u = gplace.stateless_random_uniform %dense_seed : tensor<2xi64> -> tensor<784x256xf32>
  %dense_scale = gplace.constant dense<0.151910905> : tensor<f32>
  %dense_shift = gplace.constant dense<0.0759554525> : tensor<f32>
  %dense_scaled = gplace.mul %dense_u, %dense_scale : (tensor<784x256xf32>, tensor<f32>) -> tensor<784x256xf32>
  %dense_glorot = gplace.sub %dense_scaled, %dense_shift : (tensor<784x256xf32>, tensor<f32>) -> tensor<784x256xf32>
  %dense_init = gplace.assign %dense_w, %dense_glorot : !gplace.resource<tensor<784x256xf32>>
  %dense_1_seed = gplace.constant dense<[2, 0]> : tensor<2xi64>
  %dense_1_u = gplace.stateless_random_uniform %dense_1_seed : tensor<2xi64> -> tensor<256x128xf32>
  %dense_1_scale = gplace.constant dense<0.25> : tensor<f32>
  %dense_1_shift = gplace.constant dense<0.125> : tensor<f32>
  %dense_1_scaled = gplace.mul %dense_1_u, %dense_1_scale : (tensor<256x128xf32>, tensor<f32>) -> tensor<256x128xf32>
  %dense_1_glorot = gplace.sub %dense_1_scaled, %dense_1_shift : (tensor<256x128xf32>, tensor<f32>) -> tensor<256x128xf32>
  %dense_1_init = gplace.assign %dense_1_w, %dense_1_glorot : !gplace.resource<tensor<256x128xf32>>
  %dense_2_seed = gplace.constant dense<[3, 0]> : tensor<2xi64>
  %dense_2_u = gplace.stateless_random_uniform %dense_2_seed : tensor<2xi64> -> tensor<128x10xf32>
  %dense_2_scale = gplace.constant dense<0.417028828> : tensor<f32>
  %dense_2_shift = gplace.constant dense<0.208514414> : tensor<f32>
  %dense_2_scaled = gplace.mul %dense_2_u, %dense_2_scale : (tensor<128x10xf32>, tensor<f32>) -> tensor<128x10xf32>
  %dense_2_glorot = gplace.sub %dense_2_scaled, %dense_2_shift : (tensor<128x10xf32>, tensor<f32>) -> tensor<128x10xf32>
  %dense_2_init = gplace.assign %dense_2_w, %dense_2_glorot : !gplace.resource<tensor<128x10xf32>>
  return
}

func.func @train(%images: tensor<128x28x28xui8>, %labels: tensor<128xui8>) -> tensor<f32> {
  %dense_w = gplace.variable dense<0.0> : tensor<784x256xf32> {name = "dense/kernel"}
  %dense_b = gplace.variable dense<0.0> : tensor<256xf32> {name = "dense/bias"}
  %dense_w_m = gplace.variable dense<0.0> : tensor<784x256xf32> {name = "dense/kernel/Adam"}
  %dense_w_v = gplace.variable dense<0.0> : tensor<784x256xf32> {name = "dense/kernel/Adam_1"}
  %dense_b_m = gplace.variable dense<0.0> : tensor<256xf32> {name = "dense/bias/Adam"}
  %dense_b_v = gplace.variable dense<0.0> : tensor<256xf32> {name = "dense/bias/Adam_1"}
  %dense_1_w = gplace.variable dense<0.0> : tensor<256x128xf32> {name = "dense_1/kernel"}
  %dense_1_b = gplace.variable dense<0.0> : tensor<128xf32> {name = "dense_1/bias"}
  %dense_1_w_m = gplace.variable dense<0.0> : tensor<256x128xf32> {name = "dense_1/kernel/Adam"}
  %dense_1_w_v = gplace.variable dense<0.0> : tensor<256x128xf32> {name = "dense_1/kernel/Adam_1"}
  %dense_1_b_m = gplace.variable dense<0.0> : tensor<128xf32> {name = "dense_1/bias/Adam"}
  %dense_1_b_v = gplace.variable dense<0.0> : tensor<128xf32> {name = "dense_1/bias/Adam_1"}
  %dense_2_w = gplace.variable dense<0.0> : tensor<128x10xf32> {name = "dense_2/kernel"}
  %dense_2_b = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_2/bias"}
  %dense_2_w_m = gplace.variable dense<0.0> : tensor<128x10xf32> {name = "dense_2/kernel/Adam"}
  %dense_2_w_v = gplace.variable dense<0.0> : tensor<128x10xf32> {name = "dense_2/kernel/Adam_1"}
  %dense_2_b_m = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_2/bias/Adam"}
  %dense_2_b_v = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_2/bias/Adam_1"}
  %beta1_power = gplace.variable dense<0.9> : tensor<f32> {name = "beta1_power"}
  %beta2_power = gplace.variable dense<0.999> : tensor<f32> {name = "beta2_power"}
  %pixels = gplace.cast %images : tensor<128x28x28xui8> to tensor<128x28x28xf32>
  %flat = gplace.reshape %pixels : tensor<128x28x28xf32> -> tensor<128x784xf32>
  %scale = gplace.constant dense<0.00392156886> : tensor<f32>
  %x = gplace.mul %flat, %scale : (tensor<128x784xf32>, tensor<f32>) -> tensor<128x784xf32>
  %dense_wr = gplace.read %dense_w : !gplace.resource<tensor<784x256xf32>>
  %dense_br = gplace.read %dense_b : !gplace.resource<tensor<256xf32>>
  %dense_mm = gplace.matmul %x, %dense_wr : (tensor<128x784xf32>, tensor<784x256xf32>) -> tensor<128x256xf32>
  %dense_z = gplace.bias_add %dense_mm, %dense_br : tensor<128x256xf32>, tensor<256xf32>
  %dense_h = gplace.relu %dense_z : tensor<128x256xf32>
  %dense_1_wr = gplace.read %dense_1_w : !gplace.resource<tensor<256x128xf32>>
  %dense_1_br = gplace.read %dense_1_b : !gplace.resource<tensor<128xf32>>
  %dense_1_mm = gplace.matmul %dense_h, %dense_1_wr : (tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<128x128xf32>
  %dense_1_z = gplace.bias_add %dense_1_mm, %dense_1_br : tensor<128x128xf32>, tensor<128xf32>
  %dense_1_h = gplace.relu %dense_1_z : tensor<128x128xf32>
  %dense_2_wr = gplace.read %dense_2_w : !gplace.resource<tensor<128x10xf32>>
  %dense_2_br = gplace.read %dense_2_b : !gplace.resource<tensor<10xf32>>
  %dense_2_mm = gplace.matmul %dense_1_h, %dense_2_wr : (tensor<128x128xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
  %dense_2_z = gplace.bias_add %dense_2_mm, %dense_2_br : tensor<128x10xf32>, tensor<10xf32>
  %labels32 = gplace.cast %labels : tensor<128xui8> to tensor<128xi32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %dense_2_z, %labels32 : tensor<128x10xf32>, tensor<128xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<128xf32> -> tensor<f32>
  %g_w0, %g_b0, %g_w1, %g_b1, %g_w2, %g_b2 = gplace.gradients %loss wrt %dense_wr, %dense_br, %dense_1_wr, %dense_1_br, %dense_2_wr, %dense_2_br : tensor<f32> wrt tensor<784x256xf32>, tensor<256xf32>, tensor<256x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>
  %lr = gplace.constant dense<0.001> : tensor<f32>
  %beta1 = gplace.constant dense<0.9> : tensor<f32>
  %beta2 = gplace.constant dense<0.999> : tensor<f32>
  %epsilon = gplace.constant dense<1.0e-7> : tensor<f32>
  %b1p = gplace.read %beta1_power : !gplace.resource<tensor<f32>>
  %b2p = gplace.read %beta2_power : !gplace.resource<tensor<f32>>
  %dense_w_adam = gplace.apply_adam %dense_w, %dense_w_m, %dense_w_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_w0 : !gplace.resource<tensor<784x256xf32>>, !gplace.resource<tensor<784x256xf32>>, !gplace.resource<tensor<784x256xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<784x256xf32>
  %dense_b_adam = gplace.apply_adam %dense_b, %dense_b_m, %dense_b_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_b0 : !gplace.resource<tensor<256xf32>>, !gplace.resource<tensor<256xf32>>, !gplace.resource<tensor<256xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<256xf32>
  %dense_1_w_adam = gplace.apply_adam %dense_1_w, %dense_1_w_m, %dense_1_w_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_w1 : !gplace.resource<tensor<256x128xf32>>, !gplace.resource<tensor<256x128xf32>>, !gplace.resource<tensor<256x128xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<256x128xf32>
  %dense_1_b_adam = gplace.apply_adam %dense_1_b, %dense_1_b_m, %dense_1_b_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_b1 : !gplace.resource<tensor<128xf32>>, !gplace.resource<tensor<128xf32>>, !gplace.resource<tensor<128xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<128xf32>
  %dense_2_w_adam = gplace.apply_adam %dense_2_w, %dense_2_w_m, %dense_2_w_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_w2 : !gplace.resource<tensor<128x10xf32>>, !gplace.resource<tensor<128x10xf32>>, !gplace.resource<tensor<128x10xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<128x10xf32>
  %dense_2_b_adam = gplace.apply_adam %dense_2_b, %dense_2_b_m, %dense_2_b_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g_b2 : !gplace.resource<tensor<10xf32>>, !gplace.resource<tensor<10xf32>>, !gplace.resource<tensor<10xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<10xf32>
  %updated = gplace.group %dense_w_adam, %dense_b_adam, %dense_1_w_adam, %dense_1_b_adam, %dense_2_w_adam, %dense_2_b_adam : !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control
  %b1p_next = gplace.mul %b1p, %beta1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b2p_next = gplace.mul %b2p, %beta2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %step1 = gplace.assign %beta1_power, %b1p_next after(%updated) : !gplace.resource<tensor<f32>>
  %step2 = gplace.assign %beta2_power, %b2p_next after(%updated) : !gplace.resource<tensor<f32>>
  %done = gplace.group %step1, %step2 : !gplace.control, !gplace.control
  %result = gplace.identity %loss after(%done) : tensor<f32>
  return %result : tensor<f32>
}

func.func @evaluate(%images: tensor<10000x28x28xui8>, %labels: tensor<10000xui8>) -> tensor<f32> {
  %dense_w = gplace.variable dense<0.0> : tensor<784x256xf32> {name = "dense/kernel"}
  %dense_b = gplace.variable dense<0.0> : tensor<256xf32> {name = "dense/bias"}
  %dense_1_w = gplace.variable dense<0.0> : tensor<256x128xf32> {name = "dense_1/kernel"}
  %dense_1_b = gplace.variable dense<0.0> : tensor<128xf32> {name = "dense_1/bias"}
  %dense_2_w = gplace.variable dense<0.0> : tensor<128x10xf32> {name = "dense_2/kernel"}
  %dense_2_b = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_2/bias"}
  %pixels = gplace.cast %images : tensor<10000x28x28xui8> to tensor<10000x28x28xf32>
  %flat = gplace.reshape %pixels : tensor<10000x28x28xf32> -> tensor<10000x784xf32>
  %scale = gplace.constant dense<0.00392156886> : tensor<f32>
  %x = gplace.mul %flat, %scale : (tensor<10000x784xf32>, tensor<f32>) -> tensor<10000x784xf32>
  %dense_wr = gplace.read %dense_w : !gplace.resource<tensor<784x256xf32>>
  %dense_br = gplace.read %dense_b : !gplace.resource<tensor<256xf32>>
  %dense_mm = gplace.matmul %x, %dense_wr : (tensor<10000x784xf32>, tensor<784x256xf32>) -> tensor<10000x256xf32>
  %dense_z = gplace.bias_add %dense_mm, %dense_br : tensor<10000x256xf32>, tensor<256xf32>
  %dense_h = gplace.relu %dense_z : tensor<10000x256xf32>
  %dense_1_wr = gplace.read %dense_1_w : !gplace.resource<tensor<256x128xf32>>
  %dense_1_br = gplace.read %dense_1_b : !gplace.resource<tensor<128xf32>>
  %dense_1_mm = gplace.matmul %dense_h, %dense_1_wr : (tensor<10000x256xf32>, tensor<256x128xf32>) -> tensor<10000x128xf32>
  %dense_1_z = gplace.bias_add %dense_1_mm, %dense_1_br : tensor<10000x128xf32>, tensor<128xf32>
  %dense_1_h = gplace.relu %dense_1_z : tensor<10000x128xf32>
  %dense_2_wr = gplace.read %dense_2_w : !gplace.resource<tensor<128x10xf32>>
  %dense_2_br = gplace.read %dense_2_b : !gplace.resource<tensor<10xf32>>
  %dense_2_mm = gplace.matmul %dense_1_h, %dense_2_wr : (tensor<10000x128xf32>, tensor<128x10xf32>) -> tensor<10000x10xf32>
  %dense_2_z = gplace.bias_add %dense_2_mm, %dense_2_br : tensor<10000x10xf32>, tensor<10xf32>
  %predicted = gplace.argmax %dense_2_z axis = 1 : tensor<10000x10xf32> -> tensor<10000xi64>
  %labels64 = gplace.cast %labels : tensor<10000xui8> to tensor<10000xi64>
  %correct = gplace.equal %predicted, %labels64 : (tensor<10000xi64>, tensor<10000xi64>) -> tensor<10000xi1>
  %hits = gplace.cast %correct : tensor<10000xi1> to tensor<10000xf32>
  %accuracy = gplace.reduce_mean %hits axes = [0] : tensor<10000xf32> -> tensor<f32>
  return %accuracy : tensor<f32>
}
