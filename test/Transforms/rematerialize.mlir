// --gplace-rematerialize="scopes=REGEX" (gplace-run --rematerialize):
// gradient checkpointing of named scopes, tf.recompute_grad's. Two blocks of
// two tanh layers: each block's activations are recomputed from its input
// right before the backward pass reaches the block, instead of being kept.
// RUN: gplace-opt %s --gplace-differentiate --gplace-rematerialize="scopes=(block[0-9]+)/.*" | FileCheck %s
// CHECK-LABEL: func.func @train
// Block 1 starts from block 0's output (a checkpoint, kept).
// CHECK: %[[IN1:.*]] = gplace.tanh %{{.*}} {name = "block0/layer1/tanh"}
// CHECK: %[[M2:.*]] = gplace.matmul %[[IN1]], %{{.*}} {name = "block1/layer2/matmul/recompute"}
// CHECK-NEXT: %[[T2:.*]] = gplace.tanh %[[M2]] {name = "block1/layer2/tanh/recompute"}
// CHECK: gplace.tanh_grad %[[T2]], %{{.*}} name = "gradients/block1/layer2/tanh_grad/TanhGrad"
// Block 0 starts from the argument.
// CHECK: gplace.matmul %arg0, %{{.*}} {name = "block0/layer0/matmul/recompute"}
//
// The same weights and loss, bit for bit; and the plan's arena for @big (a
// batch of 1024 through 256-wide layers, 1 MiB per activation) from
// 7,340,096 bytes to 5,505,088.
// DEFINE: %{inputs} = --input=4x4xf32=0.1,0.2,0.3,0.4,-0.5,0.6,-0.7,0.8,0.9,-1.0,0.1,0.2,0.3,-0.4,0.5,0.6 --input=4x4xf32=0.5,-0.5,0.25,0.75,-0.25,0.1,-0.9,0.6,0.3,0.2,0.1,0.0,-0.1,-0.2,-0.3,0.4
// RUN: gplace-run %s --entry=train --iterations=5 %{inputs} > %t.kept
// RUN: gplace-run %s --entry=train --iterations=5 %{inputs} --rematerialize='(block[0-9]+)/.*' > %t.remat
// RUN: diff %t.kept %t.remat
// RUN: FileCheck %s --check-prefix=RESULT < %t.remat
// RESULT: result[0]: f32=0.169432{{[0-9]*}}
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 print-memory-plan=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1 print-memory-plan=true rematerialize=(block[0-9]+)/.*" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMAT
// KEPT: arena 7340096)
// REMAT: arena 5505088)
//
// A bad regular expression.
// RUN: not gplace-opt %s --gplace-rematerialize="scopes=block[" 2>&1 | FileCheck %s --check-prefix=REGEX
// REGEX: error: --gplace-rematerialize scopes 'block[': brackets ([ ]) not balanced

func.func @train(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<f32>, tensor<4x4xf32>) {
  %w0 = gplace.variable dense<0.1> : tensor<4x4xf32> {name = "block0/layer0/w"}
  %r0 = gplace.read %w0 {name = "block0/layer0/read"} : !gplace.resource<tensor<4x4xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "block0/layer0/matmul"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h0 = gplace.tanh %m0 {name = "block0/layer0/tanh"} : tensor<4x4xf32>
  %w1 = gplace.variable dense<0.15000000000000002> : tensor<4x4xf32> {name = "block0/layer1/w"}
  %r1 = gplace.read %w1 {name = "block0/layer1/read"} : !gplace.resource<tensor<4x4xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "block0/layer1/matmul"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h1 = gplace.tanh %m1 {name = "block0/layer1/tanh"} : tensor<4x4xf32>
  %w2 = gplace.variable dense<0.2> : tensor<4x4xf32> {name = "block1/layer2/w"}
  %r2 = gplace.read %w2 {name = "block1/layer2/read"} : !gplace.resource<tensor<4x4xf32>>
  %m2 = gplace.matmul %h1, %r2 {name = "block1/layer2/matmul"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h2 = gplace.tanh %m2 {name = "block1/layer2/tanh"} : tensor<4x4xf32>
  %w3 = gplace.variable dense<0.25> : tensor<4x4xf32> {name = "block1/layer3/w"}
  %r3 = gplace.read %w3 {name = "block1/layer3/read"} : !gplace.resource<tensor<4x4xf32>>
  %m3 = gplace.matmul %h2, %r3 {name = "block1/layer3/matmul"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %h3 = gplace.tanh %m3 {name = "block1/layer3/tanh"} : tensor<4x4xf32>
  %d = gplace.sub %h3, %y {name = "loss/sub"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %sq = gplace.square %d {name = "loss/square"} : tensor<4x4xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "loss/mean"} : tensor<4x4xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<4x4xf32>>, tensor<f32>, tensor<4x4xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<4x4xf32>>, tensor<f32>, tensor<4x4xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<4x4xf32>>, tensor<f32>, tensor<4x4xf32>
  %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 : !gplace.resource<tensor<4x4xf32>>, tensor<f32>, tensor<4x4xf32>
  %a0 = gplace.read %w0 after(%u0) : !gplace.resource<tensor<4x4xf32>>
  return %loss, %a0 : tensor<f32>, tensor<4x4xf32>
}

func.func @big(%x: tensor<1024x256xf32>, %y: tensor<1024x256xf32>) -> (tensor<f32>, tensor<256x256xf32>) {
  %w0 = gplace.variable dense<0.1> : tensor<256x256xf32> {name = "block0/layer0/w"}
  %r0 = gplace.read %w0 {name = "block0/layer0/read"} : !gplace.resource<tensor<256x256xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "block0/layer0/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
  %h0 = gplace.tanh %m0 {name = "block0/layer0/tanh"} : tensor<1024x256xf32>
  %w1 = gplace.variable dense<0.15000000000000002> : tensor<256x256xf32> {name = "block0/layer1/w"}
  %r1 = gplace.read %w1 {name = "block0/layer1/read"} : !gplace.resource<tensor<256x256xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "block0/layer1/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
  %h1 = gplace.tanh %m1 {name = "block0/layer1/tanh"} : tensor<1024x256xf32>
  %w2 = gplace.variable dense<0.2> : tensor<256x256xf32> {name = "block1/layer2/w"}
  %r2 = gplace.read %w2 {name = "block1/layer2/read"} : !gplace.resource<tensor<256x256xf32>>
  %m2 = gplace.matmul %h1, %r2 {name = "block1/layer2/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
  %h2 = gplace.tanh %m2 {name = "block1/layer2/tanh"} : tensor<1024x256xf32>
  %w3 = gplace.variable dense<0.25> : tensor<256x256xf32> {name = "block1/layer3/w"}
  %r3 = gplace.read %w3 {name = "block1/layer3/read"} : !gplace.resource<tensor<256x256xf32>>
  %m3 = gplace.matmul %h2, %r3 {name = "block1/layer3/matmul"} : (tensor<1024x256xf32>, tensor<256x256xf32>) -> tensor<1024x256xf32>
  %h3 = gplace.tanh %m3 {name = "block1/layer3/tanh"} : tensor<1024x256xf32>
  %d = gplace.sub %h3, %y {name = "loss/sub"} : (tensor<1024x256xf32>, tensor<1024x256xf32>) -> tensor<1024x256xf32>
  %sq = gplace.square %d {name = "loss/square"} : tensor<1024x256xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "loss/mean"} : tensor<1024x256xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3 : tensor<f32> wrt tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>
  %lr = gplace.constant dense<0.5> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
  %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 : !gplace.resource<tensor<256x256xf32>>, tensor<f32>, tensor<256x256xf32>
  %a0 = gplace.read %w0 after(%u0) : !gplace.resource<tensor<256x256xf32>>
  return %loss, %a0 : tensor<f32>, tensor<256x256xf32>
}
