// The seeds' conv_net (seed 002, after aymericdamien's multigpu_cnn) for
// Fashion-MNIST: conv 5x5x32 + ReLU, max-pool 2x2, conv 3x3x64 + ReLU,
// max-pool 2x2, dense 1024 + ReLU, dropout (rate 0.25), dense 10; Keras's
// defaults (padding "VALID", Glorot-uniform kernels, zero biases), trained
// with Adam (learning rate 0.001, batches of 128), in three functions that
// share their variables by name (docs/training.md):
//   @init      the initial values (run once: --init=init);
//   @train     one step: the mean sparse softmax cross-entropy of a batch,
//              its gradients and an Adam update of every variable; dropout
//              draws a new mask each step from the step counter; returns
//              the loss;
//   @evaluate  the accuracy on the 10,000 test images (no dropout).
//
//   gplace-run examples/train_fashion_mnist_cnn.mlir --entry=train --init=init \
//       --input=@$D/train-images-idx3-ubyte.gz --input=@$D/train-labels-idx1-ubyte.gz \
//       --epochs=3 --shuffle=1 --save=/tmp/fashion-cnn.npz
//   gplace-run examples/train_fashion_mnist_cnn.mlir --entry=evaluate --restore=/tmp/fashion-cnn.npz \
//       --input=@$D/t10k-images-idx3-ubyte.gz --input=@$D/t10k-labels-idx1-ubyte.gz
//
// with D=/usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist).
// The convolutions and poolings run oneDNN's kernels, on the CPU and on
// emulated GPUs (--replicas=4 --emulate-gpus=4).

func.func @init() {
  %conv2d_kernel = gplace.variable dense<0.0> : tensor<5x5x1x32xf32> {name = "conv2d/kernel"}
  %conv2d_bias = gplace.variable dense<0.0> : tensor<32xf32> {name = "conv2d/bias"}
  %conv2d_1_kernel = gplace.variable dense<0.0> : tensor<3x3x32x64xf32> {name = "conv2d_1/kernel"}
  %conv2d_1_bias = gplace.variable dense<0.0> : tensor<64xf32> {name = "conv2d_1/bias"}
  %dense_kernel = gplace.variable dense<0.0> : tensor<1600x1024xf32> {name = "dense/kernel"}
  %dense_bias = gplace.variable dense<0.0> : tensor<1024xf32> {name = "dense/bias"}
  %dense_1_kernel = gplace.variable dense<0.0> : tensor<1024x10xf32> {name = "dense_1/kernel"}
  %dense_1_bias = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_1/bias"}
  %conv2d_kernel_seed = gplace.constant dense<[1, 0]> : tensor<2xi64>
  %conv2d_kernel_u = gplace.stateless_random_uniform %conv2d_kernel_seed : tensor<2xi64> -> tensor<5x5x1x32xf32>
  %conv2d_kernel_scale = gplace.constant dense<0.170560573> : tensor<f32>
  %conv2d_kernel_shift = gplace.constant dense<0.0852802865> : tensor<f32>
  %conv2d_kernel_scaled = gplace.mul %conv2d_kernel_u, %conv2d_kernel_scale : (tensor<5x5x1x32xf32>, tensor<f32>) -> tensor<5x5x1x32xf32>
  %conv2d_kernel_glorot = gplace.sub %conv2d_kernel_scaled, %conv2d_kernel_shift : (tensor<5x5x1x32xf32>, tensor<f32>) -> tensor<5x5x1x32xf32>
  %conv2d_kernel_init = gplace.assign %conv2d_kernel, %conv2d_kernel_glorot : !gplace.resource<tensor<5x5x1x32xf32>>
  %conv2d_1_kernel_seed = gplace.constant dense<[2, 0]> : tensor<2xi64>
  %conv2d_1_kernel_u = gplace.stateless_random_uniform %conv2d_1_kernel_seed : tensor<2xi64> -> tensor<3x3x32x64xf32>
  %conv2d_1_kernel_scale = gplace.constant dense<0.166666667> : tensor<f32>
  %conv2d_1_kernel_shift = gplace.constant dense<0.0833333333> : tensor<f32>
  %conv2d_1_kernel_scaled = gplace.mul %conv2d_1_kernel_u, %conv2d_1_kernel_scale : (tensor<3x3x32x64xf32>, tensor<f32>) -> tensor<3x3x32x64xf32>
  %conv2d_1_kernel_glorot = gplace.sub %conv2d_1_kernel_scaled, %conv2d_1_kernel_shift : (tensor<3x3x32x64xf32>, tensor<f32>) -> tensor<3x3x32x64xf32>
  %conv2d_1_kernel_init = gplace.assign %conv2d_1_kernel, %conv2d_1_kernel_glorot : !gplace.resource<tensor<3x3x32x64xf32>>
  %dense_kernel_seed = gplace.constant dense<[3, 0]> : tensor<2xi64>
  %dense_kernel_u = gplace.stateless_random_uniform %dense_kernel_seed : tensor<2xi64> -> tensor<1600x1024xf32>
  %dense_kernel_scale = gplace.constant dense<0.095636507> : tensor<f32>
  %dense_kernel_shift = gplace.constant dense<0.0478182535> : tensor<f32>
  %dense_kernel_scaled = gplace.mul %dense_kernel_u, %dense_kernel_scale : (tensor<1600x1024xf32>, tensor<f32>) -> tensor<1600x1024xf32>
  %dense_kernel_glorot = gplace.sub %dense_kernel_scaled, %dense_kernel_shift : (tensor<1600x1024xf32>, tensor<f32>) -> tensor<1600x1024xf32>
  %dense_kernel_init = gplace.assign %dense_kernel, %dense_kernel_glorot : !gplace.resource<tensor<1600x1024xf32>>
  %dense_1_kernel_seed = gplace.constant dense<[4, 0]> : tensor<2xi64>
  %dense_1_kernel_u = gplace.stateless_random_uniform %dense_1_kernel_seed : tensor<2xi64> -> tensor<1024x10xf32>
  %dense_1_kernel_scale = gplace.constant dense<0.152351015> : tensor<f32>
  %dense_1_kernel_shift = gplace.constant dense<0.0761755074> : tensor<f32>
  %dense_1_kernel_scaled = gplace.mul %dense_1_kernel_u, %dense_1_kernel_scale : (tensor<1024x10xf32>, tensor<f32>) -> tensor<1024x10xf32>
  %dense_1_kernel_glorot = gplace.sub %dense_1_kernel_scaled, %dense_1_kernel_shift : (tensor<1024x10xf32>, tensor<f32>) -> tensor<1024x10xf32>
  %dense_1_kernel_init = gplace.assign %dense_1_kernel, %dense_1_kernel_glorot : !gplace.resource<tensor<1024x10xf32>>
  return
}

func.func @train(%images: tensor<128x28x28xui8>, %labels: tensor<128xui8>) -> tensor<f32> {
  %conv2d_kernel = gplace.variable dense<0.0> : tensor<5x5x1x32xf32> {name = "conv2d/kernel"}
  %conv2d_kernel_m = gplace.variable dense<0.0> : tensor<5x5x1x32xf32> {name = "conv2d/kernel/Adam"}
  %conv2d_kernel_v = gplace.variable dense<0.0> : tensor<5x5x1x32xf32> {name = "conv2d/kernel/Adam_1"}
  %conv2d_bias = gplace.variable dense<0.0> : tensor<32xf32> {name = "conv2d/bias"}
  %conv2d_bias_m = gplace.variable dense<0.0> : tensor<32xf32> {name = "conv2d/bias/Adam"}
  %conv2d_bias_v = gplace.variable dense<0.0> : tensor<32xf32> {name = "conv2d/bias/Adam_1"}
  %conv2d_1_kernel = gplace.variable dense<0.0> : tensor<3x3x32x64xf32> {name = "conv2d_1/kernel"}
  %conv2d_1_kernel_m = gplace.variable dense<0.0> : tensor<3x3x32x64xf32> {name = "conv2d_1/kernel/Adam"}
  %conv2d_1_kernel_v = gplace.variable dense<0.0> : tensor<3x3x32x64xf32> {name = "conv2d_1/kernel/Adam_1"}
  %conv2d_1_bias = gplace.variable dense<0.0> : tensor<64xf32> {name = "conv2d_1/bias"}
  %conv2d_1_bias_m = gplace.variable dense<0.0> : tensor<64xf32> {name = "conv2d_1/bias/Adam"}
  %conv2d_1_bias_v = gplace.variable dense<0.0> : tensor<64xf32> {name = "conv2d_1/bias/Adam_1"}
  %dense_kernel = gplace.variable dense<0.0> : tensor<1600x1024xf32> {name = "dense/kernel"}
  %dense_kernel_m = gplace.variable dense<0.0> : tensor<1600x1024xf32> {name = "dense/kernel/Adam"}
  %dense_kernel_v = gplace.variable dense<0.0> : tensor<1600x1024xf32> {name = "dense/kernel/Adam_1"}
  %dense_bias = gplace.variable dense<0.0> : tensor<1024xf32> {name = "dense/bias"}
  %dense_bias_m = gplace.variable dense<0.0> : tensor<1024xf32> {name = "dense/bias/Adam"}
  %dense_bias_v = gplace.variable dense<0.0> : tensor<1024xf32> {name = "dense/bias/Adam_1"}
  %dense_1_kernel = gplace.variable dense<0.0> : tensor<1024x10xf32> {name = "dense_1/kernel"}
  %dense_1_kernel_m = gplace.variable dense<0.0> : tensor<1024x10xf32> {name = "dense_1/kernel/Adam"}
  %dense_1_kernel_v = gplace.variable dense<0.0> : tensor<1024x10xf32> {name = "dense_1/kernel/Adam_1"}
  %dense_1_bias = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_1/bias"}
  %dense_1_bias_m = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_1/bias/Adam"}
  %dense_1_bias_v = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_1/bias/Adam_1"}
  %beta1_power = gplace.variable dense<0.9> : tensor<f32> {name = "beta1_power"}
  %beta2_power = gplace.variable dense<0.999> : tensor<f32> {name = "beta2_power"}
  %step = gplace.variable dense<0> : tensor<i64> {name = "global_step"}
  %pixels = gplace.cast %images : tensor<128x28x28xui8> to tensor<128x28x28xf32>
  %scale = gplace.constant dense<0.00392156886> : tensor<f32>
  %scaled = gplace.mul %pixels, %scale : (tensor<128x28x28xf32>, tensor<f32>) -> tensor<128x28x28xf32>
  %x = gplace.reshape %scaled : tensor<128x28x28xf32> -> tensor<128x28x28x1xf32>
  %conv2d_kernel_r = gplace.read %conv2d_kernel : !gplace.resource<tensor<5x5x1x32xf32>>
  %conv2d_bias_r = gplace.read %conv2d_bias : !gplace.resource<tensor<32xf32>>
  %conv2d_1_kernel_r = gplace.read %conv2d_1_kernel : !gplace.resource<tensor<3x3x32x64xf32>>
  %conv2d_1_bias_r = gplace.read %conv2d_1_bias : !gplace.resource<tensor<64xf32>>
  %dense_kernel_r = gplace.read %dense_kernel : !gplace.resource<tensor<1600x1024xf32>>
  %dense_bias_r = gplace.read %dense_bias : !gplace.resource<tensor<1024xf32>>
  %dense_1_kernel_r = gplace.read %dense_1_kernel : !gplace.resource<tensor<1024x10xf32>>
  %dense_1_bias_r = gplace.read %dense_1_bias : !gplace.resource<tensor<10xf32>>
  %c1 = gplace.conv2d %x, %conv2d_kernel_r strides = [1, 1, 1, 1] padding = "VALID" : tensor<128x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<128x24x24x32xf32>
  %c1b = gplace.bias_add %c1, %conv2d_bias_r : tensor<128x24x24x32xf32>, tensor<32xf32>
  %h1 = gplace.relu %c1b : tensor<128x24x24x32xf32>
  %p1 = gplace.max_pool %h1 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<128x24x24x32xf32> -> tensor<128x12x12x32xf32>
  %c2 = gplace.conv2d %p1, %conv2d_1_kernel_r strides = [1, 1, 1, 1] padding = "VALID" : tensor<128x12x12x32xf32>, tensor<3x3x32x64xf32> -> tensor<128x10x10x64xf32>
  %c2b = gplace.bias_add %c2, %conv2d_1_bias_r : tensor<128x10x10x64xf32>, tensor<64xf32>
  %h2 = gplace.relu %c2b : tensor<128x10x10x64xf32>
  %p2 = gplace.max_pool %h2 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<128x10x10x64xf32> -> tensor<128x5x5x64xf32>
  %flat = gplace.reshape %p2 : tensor<128x5x5x64xf32> -> tensor<128x1600xf32>
  %d1 = gplace.matmul %flat, %dense_kernel_r : (tensor<128x1600xf32>, tensor<1600x1024xf32>) -> tensor<128x1024xf32>
  %d1b = gplace.bias_add %d1, %dense_bias_r : tensor<128x1024xf32>, tensor<1024xf32>
  %h3 = gplace.relu %d1b : tensor<128x1024xf32>
  %step_r = gplace.read %step : !gplace.resource<tensor<i64>>
  %step_1 = gplace.reshape %step_r : tensor<i64> -> tensor<1xi64>
  %stream = gplace.constant dense<[1000]> : tensor<1xi64>
  %dropout_seed = gplace.concat %step_1, %stream axis = 0 : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  %rate = gplace.constant dense<0.25> : tensor<f32>
  %h3d = gplace.dropout %h3, %rate, %dropout_seed : tensor<128x1024xf32>, tensor<f32>, tensor<2xi64>
  %d2 = gplace.matmul %h3d, %dense_1_kernel_r : (tensor<128x1024xf32>, tensor<1024x10xf32>) -> tensor<128x10xf32>
  %logits = gplace.bias_add %d2, %dense_1_bias_r : tensor<128x10xf32>, tensor<10xf32>
  %labels32 = gplace.cast %labels : tensor<128xui8> to tensor<128xi32>
  %xent, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %logits, %labels32 : tensor<128x10xf32>, tensor<128xi32>
  %loss = gplace.reduce_mean %xent axes = [0] : tensor<128xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7 = gplace.gradients %loss wrt %conv2d_kernel_r, %conv2d_bias_r, %conv2d_1_kernel_r, %conv2d_1_bias_r, %dense_kernel_r, %dense_bias_r, %dense_1_kernel_r, %dense_1_bias_r : tensor<f32> wrt tensor<5x5x1x32xf32>, tensor<32xf32>, tensor<3x3x32x64xf32>, tensor<64xf32>, tensor<1600x1024xf32>, tensor<1024xf32>, tensor<1024x10xf32>, tensor<10xf32>
  %lr = gplace.constant dense<0.001> : tensor<f32>
  %beta1 = gplace.constant dense<0.9> : tensor<f32>
  %beta2 = gplace.constant dense<0.999> : tensor<f32>
  %epsilon = gplace.constant dense<1.0e-7> : tensor<f32>
  %b1p = gplace.read %beta1_power : !gplace.resource<tensor<f32>>
  %b2p = gplace.read %beta2_power : !gplace.resource<tensor<f32>>
  %conv2d_kernel_adam = gplace.apply_adam %conv2d_kernel, %conv2d_kernel_m, %conv2d_kernel_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g0 : !gplace.resource<tensor<5x5x1x32xf32>>, !gplace.resource<tensor<5x5x1x32xf32>>, !gplace.resource<tensor<5x5x1x32xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<5x5x1x32xf32>
  %conv2d_bias_adam = gplace.apply_adam %conv2d_bias, %conv2d_bias_m, %conv2d_bias_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g1 : !gplace.resource<tensor<32xf32>>, !gplace.resource<tensor<32xf32>>, !gplace.resource<tensor<32xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<32xf32>
  %conv2d_1_kernel_adam = gplace.apply_adam %conv2d_1_kernel, %conv2d_1_kernel_m, %conv2d_1_kernel_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g2 : !gplace.resource<tensor<3x3x32x64xf32>>, !gplace.resource<tensor<3x3x32x64xf32>>, !gplace.resource<tensor<3x3x32x64xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<3x3x32x64xf32>
  %conv2d_1_bias_adam = gplace.apply_adam %conv2d_1_bias, %conv2d_1_bias_m, %conv2d_1_bias_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g3 : !gplace.resource<tensor<64xf32>>, !gplace.resource<tensor<64xf32>>, !gplace.resource<tensor<64xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<64xf32>
  %dense_kernel_adam = gplace.apply_adam %dense_kernel, %dense_kernel_m, %dense_kernel_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g4 : !gplace.resource<tensor<1600x1024xf32>>, !gplace.resource<tensor<1600x1024xf32>>, !gplace.resource<tensor<1600x1024xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1600x1024xf32>
  %dense_bias_adam = gplace.apply_adam %dense_bias, %dense_bias_m, %dense_bias_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g5 : !gplace.resource<tensor<1024xf32>>, !gplace.resource<tensor<1024xf32>>, !gplace.resource<tensor<1024xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1024xf32>
  %dense_1_kernel_adam = gplace.apply_adam %dense_1_kernel, %dense_1_kernel_m, %dense_1_kernel_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g6 : !gplace.resource<tensor<1024x10xf32>>, !gplace.resource<tensor<1024x10xf32>>, !gplace.resource<tensor<1024x10xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<1024x10xf32>
  %dense_1_bias_adam = gplace.apply_adam %dense_1_bias, %dense_1_bias_m, %dense_1_bias_v, %b1p, %b2p, %lr, %beta1, %beta2, %epsilon, %g7 : !gplace.resource<tensor<10xf32>>, !gplace.resource<tensor<10xf32>>, !gplace.resource<tensor<10xf32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<10xf32>
  %updated = gplace.group %conv2d_kernel_adam, %conv2d_bias_adam, %conv2d_1_kernel_adam, %conv2d_1_bias_adam, %dense_kernel_adam, %dense_bias_adam, %dense_1_kernel_adam, %dense_1_bias_adam : !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control, !gplace.control
  %b1p_next = gplace.mul %b1p, %beta1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b2p_next = gplace.mul %b2p, %beta2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %step1 = gplace.assign %beta1_power, %b1p_next after(%updated) : !gplace.resource<tensor<f32>>
  %step2 = gplace.assign %beta2_power, %b2p_next after(%updated) : !gplace.resource<tensor<f32>>
  %one = gplace.constant dense<1> : tensor<i64>
  %step3 = gplace.assign_add %step, %one after(%updated) : !gplace.resource<tensor<i64>>
  %done = gplace.group %step1, %step2, %step3 : !gplace.control, !gplace.control, !gplace.control
  %result = gplace.identity %loss after(%done) : tensor<f32>
  return %result : tensor<f32>
}

func.func @evaluate(%images: tensor<10000x28x28xui8>, %labels: tensor<10000xui8>) -> tensor<f32> {
  %conv2d_kernel = gplace.variable dense<0.0> : tensor<5x5x1x32xf32> {name = "conv2d/kernel"}
  %conv2d_bias = gplace.variable dense<0.0> : tensor<32xf32> {name = "conv2d/bias"}
  %conv2d_1_kernel = gplace.variable dense<0.0> : tensor<3x3x32x64xf32> {name = "conv2d_1/kernel"}
  %conv2d_1_bias = gplace.variable dense<0.0> : tensor<64xf32> {name = "conv2d_1/bias"}
  %dense_kernel = gplace.variable dense<0.0> : tensor<1600x1024xf32> {name = "dense/kernel"}
  %dense_bias = gplace.variable dense<0.0> : tensor<1024xf32> {name = "dense/bias"}
  %dense_1_kernel = gplace.variable dense<0.0> : tensor<1024x10xf32> {name = "dense_1/kernel"}
  %dense_1_bias = gplace.variable dense<0.0> : tensor<10xf32> {name = "dense_1/bias"}
  %pixels = gplace.cast %images : tensor<10000x28x28xui8> to tensor<10000x28x28xf32>
  %scale = gplace.constant dense<0.00392156886> : tensor<f32>
  %scaled = gplace.mul %pixels, %scale : (tensor<10000x28x28xf32>, tensor<f32>) -> tensor<10000x28x28xf32>
  %x = gplace.reshape %scaled : tensor<10000x28x28xf32> -> tensor<10000x28x28x1xf32>
  %conv2d_kernel_r = gplace.read %conv2d_kernel : !gplace.resource<tensor<5x5x1x32xf32>>
  %conv2d_bias_r = gplace.read %conv2d_bias : !gplace.resource<tensor<32xf32>>
  %conv2d_1_kernel_r = gplace.read %conv2d_1_kernel : !gplace.resource<tensor<3x3x32x64xf32>>
  %conv2d_1_bias_r = gplace.read %conv2d_1_bias : !gplace.resource<tensor<64xf32>>
  %dense_kernel_r = gplace.read %dense_kernel : !gplace.resource<tensor<1600x1024xf32>>
  %dense_bias_r = gplace.read %dense_bias : !gplace.resource<tensor<1024xf32>>
  %dense_1_kernel_r = gplace.read %dense_1_kernel : !gplace.resource<tensor<1024x10xf32>>
  %dense_1_bias_r = gplace.read %dense_1_bias : !gplace.resource<tensor<10xf32>>
  %c1 = gplace.conv2d %x, %conv2d_kernel_r strides = [1, 1, 1, 1] padding = "VALID" : tensor<10000x28x28x1xf32>, tensor<5x5x1x32xf32> -> tensor<10000x24x24x32xf32>
  %c1b = gplace.bias_add %c1, %conv2d_bias_r : tensor<10000x24x24x32xf32>, tensor<32xf32>
  %h1 = gplace.relu %c1b : tensor<10000x24x24x32xf32>
  %p1 = gplace.max_pool %h1 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<10000x24x24x32xf32> -> tensor<10000x12x12x32xf32>
  %c2 = gplace.conv2d %p1, %conv2d_1_kernel_r strides = [1, 1, 1, 1] padding = "VALID" : tensor<10000x12x12x32xf32>, tensor<3x3x32x64xf32> -> tensor<10000x10x10x64xf32>
  %c2b = gplace.bias_add %c2, %conv2d_1_bias_r : tensor<10000x10x10x64xf32>, tensor<64xf32>
  %h2 = gplace.relu %c2b : tensor<10000x10x10x64xf32>
  %p2 = gplace.max_pool %h2 ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<10000x10x10x64xf32> -> tensor<10000x5x5x64xf32>
  %flat = gplace.reshape %p2 : tensor<10000x5x5x64xf32> -> tensor<10000x1600xf32>
  %d1 = gplace.matmul %flat, %dense_kernel_r : (tensor<10000x1600xf32>, tensor<1600x1024xf32>) -> tensor<10000x1024xf32>
  %d1b = gplace.bias_add %d1, %dense_bias_r : tensor<10000x1024xf32>, tensor<1024xf32>
  %h3 = gplace.relu %d1b : tensor<10000x1024xf32>
  %d2 = gplace.matmul %h3, %dense_1_kernel_r : (tensor<10000x1024xf32>, tensor<1024x10xf32>) -> tensor<10000x10xf32>
  %logits = gplace.bias_add %d2, %dense_1_bias_r : tensor<10000x10xf32>, tensor<10xf32>
  %predicted = gplace.argmax %logits axis = 1 : tensor<10000x10xf32> -> tensor<10000xi64>
  %labels64 = gplace.cast %labels : tensor<10000xui8> to tensor<10000xi64>
  %correct = gplace.equal %predicted, %labels64 : (tensor<10000xi64>, tensor<10000xi64>) -> tensor<10000xi1>
  %hits = gplace.cast %correct : tensor<10000xi1> to tensor<10000xf32>
  %accuracy = gplace.reduce_mean %hits axes = [0] : tensor<10000xf32> -> tensor<f32>
  return %accuracy : tensor<f32>
}
