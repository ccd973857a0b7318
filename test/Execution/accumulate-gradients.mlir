// --accumulate-steps=K (--gplace-accumulate-gradients) computes the step on
// the whole batch: after 10 gradient-descent steps of a batch of 8, the
// weights and the loss with 4 micro-batches of 2 (or 2 of 4, on emulated
// GPUs) equal those of one batch of 8 (within float reassociation: the
// CHECKs keep 6 digits; without accumulation they read 0.115532055 and
// [[0.7262322], [-0.2684789], [0.10225543]], with 4 micro-batches
// 0.11553206 and [[0.7262322], [-0.26847896], [0.10225539]]).
// DEFINE: %{inputs} = --input=8x3xf32=0.1,0.2,0.3,-0.4,0.5,-0.6,0.7,0.8,-0.9,1.0,-1.1,1.2,0.3,-0.2,0.1,0.9,0.8,-0.7,-0.6,0.5,0.4,0.3,0.2,-0.1 --input=8x1xf32=0.5,-0.5,0.25,0.75,-0.25,0.1,-0.9,0.6
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --accumulate-steps=4 | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --accumulate-steps=2 --emulate-gpus=2 | FileCheck %s
// With replicas (each replica accumulates over its own slice: 2 replicas
// of 2 micro-batches of 2), mirrored or on the host, with policy=auto, and
// across a checkpoint written with accumulation and restored without it
// (and with replicas): the same step.
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --accumulate-steps=2 --replicas=2 --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --accumulate-steps=2 --replicas=2 --replica-variables=host --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=10 %{inputs} --accumulate-steps=4 --policy=auto --emulate-gpus=2 | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=5 %{inputs} --accumulate-steps=4 --save=%t.npz > /dev/null
// RUN: gplace-run %s --entry=train --iterations=5 %{inputs} --restore=%t.npz | FileCheck %s
// RUN: gplace-run %s --entry=train --iterations=5 %{inputs} --restore=%t.npz --accumulate-steps=2 --replicas=2 --emulate-gpus=2 | FileCheck %s
// RUN: not gplace-run %s --entry=train %{inputs} --accumulate-steps=8 --replicas=2 --emulate-gpus=2 2>&1 | FileCheck %s --check-prefix=REPLICAS
// REPLICAS: error: op 'micro_batch_0/split/arg0' takes 1 of the batch of 8 (from 0), which does not divide into 2 replicas: the batch must divide into the replicas times the micro-batches
// Integer labels: their slices run on the CPU without waiting for the
// previous micro-batch, so the emulated GPU's step stays one CUDA graph.
// RUN: gplace-run %s --entry=labels --iterations=2 --input=8x3xf32=1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6 --input=8xi32=0,1,1,0,1,0,0,1 --accumulate-steps=2 --emulate-gpus=1 --log-device-placement 2>&1 | FileCheck %s --check-prefix=LABELS
// LABELS: micro_batch_1/split/arg1: (Slice): /job:localhost/replica:0/task:0/device:CPU:0
// LABELS: CUDA graphs: on: /job:localhost/replica:0/task:0/device:GPU:0 replays its {{[0-9]+}} steps as one graph per run
// LABELS: result[0]: f32=
// CHECK: result[0]: f32=0.1155320{{[0-9]*}}
// CHECK: result[1]: 3x1xf32={{\[\[}}0.726232{{[0-9]*}}], [-0.268478{{[0-9]*}}], [0.102255{{[0-9]*}}]]
//
// The memory: a batch of 1024 through a 64-wide layer needs a 786,752-byte
// arena in one step, 295,616 bytes in 4 micro-batches, 164,800 in 8 (the
// weight gradients' running sums take each product by GEMM with beta = 1,
// matmul_accumulate: 312,320 and 181,504 with a buffer and an add for
// each).
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1" | FileCheck %s --check-prefix=MEM1
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 accumulate-steps=4" | FileCheck %s --check-prefix=MEM4
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 accumulate-steps=8" | FileCheck %s --check-prefix=MEM8
// MEM1: arena_bytes = 786752
// MEM4: arena_bytes = 295616
// MEM4-COUNT-3: gplan.launch matmul_accumulate(
// MEM8: arena_bytes = 164800
//
// A batch that does not divide is an error.
// RUN: not gplace-run %s --entry=train %{inputs} --accumulate-steps=3 2>&1 | FileCheck %s --check-prefix=DIVIDE
// DIVIDE: error: argument #0 of @train, of type 'tensor<8x3xf32>': its batch of 8 does not divide into 3 micro-batches

// bf16 gradients are summed in f32: the gradient of a mean is the mean of
// the inputs, 256 and seven 1s (263 / 8 = 32.875, -33 in bf16 after one
// step at learning rate 1, as without accumulation); summed in bf16, each
// 1 would vanish into 256 (spacing 2 there) and give -32.
// RUN: gplace-run %s --entry=bf16 --input=8x1xbf16=256,1,1,1,1,1,1,1 | FileCheck %s --check-prefix=BF16
// RUN: gplace-run %s --entry=bf16 --input=8x1xbf16=256,1,1,1,1,1,1,1 --accumulate-steps=8 | FileCheck %s --check-prefix=BF16
// BF16: result[0]: 1x1xbf16={{\[\[}}-33]]
// RUN: gplace-opt %s --gplace-accumulate-gradients="steps=2 functions=bf16" | FileCheck %s --check-prefix=WIDEN
// WIDEN: gplace.cast %{{.*}} {name = "accumulate_gradients/0/Cast"} : tensor<1x1xbf16> to tensor<1x1xf32>
// WIDEN: gplace.add {{.*}}name = "accumulate_gradients/0/add"} : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
// WIDEN: gplace.mul {{.*}}name = "accumulate_gradients/0/mul"} : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
// WIDEN: gplace.cast {{.*}} : tensor<1x1xf32> to tensor<1x1xbf16>

func.func @train(%x: tensor<8x3xf32>, %y: tensor<8x1xf32>) -> (tensor<f32>, tensor<3x1xf32>) {
  %w = gplace.variable dense<[[0.5], [-0.25], [0.125]]> : tensor<3x1xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x1xf32>>
  %p = gplace.matmul %x, %wr : (tensor<8x3xf32>, tensor<3x1xf32>) -> tensor<8x1xf32>
  %t = gplace.tanh %p : tensor<8x1xf32>
  %d = gplace.sub %t, %y : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %sq = gplace.square %d : tensor<8x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<8x1xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x1xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x1xf32>>, tensor<f32>, tensor<3x1xf32>
  %after = gplace.read %w after(%u) : !gplace.resource<tensor<3x1xf32>>
  return %loss, %after : tensor<f32>, tensor<3x1xf32>
}

func.func @labels(%x: tensor<8x3xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %w = gplace.variable dense<0.25> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  %loss, %backprop = gplace.sparse_softmax_cross_entropy_with_logits %p, %labels : tensor<8x2xf32>, tensor<8xi32>
  %mean = gplace.reduce_mean %loss axes = [0] : tensor<8xf32> -> tensor<f32>
  %g = gplace.gradients %mean wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  return %mean : tensor<f32>
}

func.func @wide(%x: tensor<1024x64xf32>, %y: tensor<1024x1xf32>) -> tensor<f32> {
  %w1 = gplace.variable dense<0.01> : tensor<64x64xf32> {name = "w1"}
  %w2 = gplace.variable dense<0.02> : tensor<64x1xf32> {name = "w2"}
  %r1 = gplace.read %w1 : !gplace.resource<tensor<64x64xf32>>
  %r2 = gplace.read %w2 : !gplace.resource<tensor<64x1xf32>>
  %a = gplace.matmul %x, %r1 : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
  %h = gplace.relu %a : tensor<1024x64xf32>
  %b = gplace.matmul %h, %r2 : (tensor<1024x64xf32>, tensor<64x1xf32>) -> tensor<1024x1xf32>
  %d = gplace.sub %b, %y : (tensor<1024x1xf32>, tensor<1024x1xf32>) -> tensor<1024x1xf32>
  %sq = gplace.square %d : tensor<1024x1xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<1024x1xf32> -> tensor<f32>
  %g1, %g2 = gplace.gradients %loss wrt %r1, %r2 : tensor<f32> wrt tensor<64x64xf32>, tensor<64x1xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<64x64xf32>>, tensor<f32>, tensor<64x64xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<64x1xf32>>, tensor<f32>, tensor<64x1xf32>
  return %loss : tensor<f32>
}

func.func @bf16(%x: tensor<8x1xbf16>) -> tensor<1x1xbf16> {
  %w = gplace.variable dense<0.0> : tensor<1x1xbf16> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<1x1xbf16>>
  %p = gplace.matmul %x, %r : (tensor<8x1xbf16>, tensor<1x1xbf16>) -> tensor<8x1xbf16>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<8x1xbf16> -> tensor<bf16>
  %g = gplace.gradients %loss wrt %r : tensor<bf16> wrt tensor<1x1xbf16>
  %lr = gplace.constant dense<1.0> : tensor<bf16>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<1x1xbf16>>, tensor<bf16>, tensor<1x1xbf16>
  %a = gplace.read %w after(%u) : !gplace.resource<tensor<1x1xbf16>>
  return %a : tensor<1x1xbf16>
}
