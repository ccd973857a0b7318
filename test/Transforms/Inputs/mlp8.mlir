// An 8-layer MLP for --gplace-pipeline-parallel's split=auto (pipeline-split-auto.test):
// layers of uneven widths, tanh between them, a mean squared error, gradient descent.
func.func @train(%x: tensor<256x512xf32>, %y: tensor<256x16xf32>) -> tensor<f32> {
  %w0 = gplace.variable dense<0.01> : tensor<512x1024xf32> {name = "layer0/w"}
  %r0 = gplace.read %w0 {name = "layer0/read"} : !gplace.resource<tensor<512x1024xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "layer0/matmul"} : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  %h0 = gplace.tanh %m0 {name = "layer0/tanh"} : tensor<256x1024xf32>
  %w1 = gplace.variable dense<0.01> : tensor<1024x1024xf32> {name = "layer1/w"}
  %r1 = gplace.read %w1 {name = "layer1/read"} : !gplace.resource<tensor<1024x1024xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "layer1/matmul"} : (tensor<256x1024xf32>, tensor<1024x1024xf32>) -> tensor<256x1024xf32>
  %h1 = gplace.tanh %m1 {name = "layer1/tanh"} : tensor<256x1024xf32>
  %w2 = gplace.variable dense<0.01> : tensor<1024x2048xf32> {name = "layer2/w"}
  %r2 = gplace.read %w2 {name = "layer2/read"} : !gplace.resource<tensor<1024x2048xf32>>
  %m2 = gplace.matmul %h1, %r2 {name = "layer2/matmul"} : (tensor<256x1024xf32>, tensor<1024x2048xf32>) -> tensor<256x2048xf32>
  %h2 = gplace.tanh %m2 {name = "layer2/tanh"} : tensor<256x2048xf32>
  %w3 = gplace.variable dense<0.01> : tensor<2048x1024xf32> {name = "layer3/w"}
  %r3 = gplace.read %w3 {name = "layer3/read"} : !gplace.resource<tensor<2048x1024xf32>>
  %m3 = gplace.matmul %h2, %r3 {name = "layer3/matmul"} : (tensor<256x2048xf32>, tensor<2048x1024xf32>) -> tensor<256x1024xf32>
  %h3 = gplace.tanh %m3 {name = "layer3/tanh"} : tensor<256x1024xf32>
  %w4 = gplace.variable dense<0.01> : tensor<1024x512xf32> {name = "layer4/w"}
  %r4 = gplace.read %w4 {name = "layer4/read"} : !gplace.resource<tensor<1024x512xf32>>
  %m4 = gplace.matmul %h3, %r4 {name = "layer4/matmul"} : (tensor<256x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
  %h4 = gplace.tanh %m4 {name = "layer4/tanh"} : tensor<256x512xf32>
  %w5 = gplace.variable dense<0.01> : tensor<512x512xf32> {name = "layer5/w"}
  %r5 = gplace.read %w5 {name = "layer5/read"} : !gplace.resource<tensor<512x512xf32>>
  %m5 = gplace.matmul %h4, %r5 {name = "layer5/matmul"} : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
  %h5 = gplace.tanh %m5 {name = "layer5/tanh"} : tensor<256x512xf32>
  %w6 = gplace.variable dense<0.01> : tensor<512x256xf32> {name = "layer6/w"}
  %r6 = gplace.read %w6 {name = "layer6/read"} : !gplace.resource<tensor<512x256xf32>>
  %m6 = gplace.matmul %h5, %r6 {name = "layer6/matmul"} : (tensor<256x512xf32>, tensor<512x256xf32>) -> tensor<256x256xf32>
  %h6 = gplace.tanh %m6 {name = "layer6/tanh"} : tensor<256x256xf32>
  %w7 = gplace.variable dense<0.01> : tensor<256x16xf32> {name = "layer7/w"}
  %r7 = gplace.read %w7 {name = "layer7/read"} : !gplace.resource<tensor<256x16xf32>>
  %m7 = gplace.matmul %h6, %r7 {name = "layer7/matmul"} : (tensor<256x256xf32>, tensor<256x16xf32>) -> tensor<256x16xf32>
  %d = gplace.sub %m7, %y {name = "layer7/sub"} : (tensor<256x16xf32>, tensor<256x16xf32>) -> tensor<256x16xf32>
  %sq = gplace.square %d {name = "layer7/square"} : tensor<256x16xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] {name = "layer7/loss"} : tensor<256x16xf32> -> tensor<f32>
  %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7 = gplace.gradients %loss wrt %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<f32> wrt tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024x2048xf32>, tensor<2048x1024xf32>, tensor<1024x512xf32>, tensor<512x512xf32>, tensor<512x256xf32>, tensor<256x16xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u0 = gplace.apply_gradient_descent %w0, %lr, %g0 {name = "layer0/update"} : !gplace.resource<tensor<512x1024xf32>>, tensor<f32>, tensor<512x1024xf32>
  %u1 = gplace.apply_gradient_descent %w1, %lr, %g1 {name = "layer1/update"} : !gplace.resource<tensor<1024x1024xf32>>, tensor<f32>, tensor<1024x1024xf32>
  %u2 = gplace.apply_gradient_descent %w2, %lr, %g2 {name = "layer2/update"} : !gplace.resource<tensor<1024x2048xf32>>, tensor<f32>, tensor<1024x2048xf32>
  %u3 = gplace.apply_gradient_descent %w3, %lr, %g3 {name = "layer3/update"} : !gplace.resource<tensor<2048x1024xf32>>, tensor<f32>, tensor<2048x1024xf32>
  %u4 = gplace.apply_gradient_descent %w4, %lr, %g4 {name = "layer4/update"} : !gplace.resource<tensor<1024x512xf32>>, tensor<f32>, tensor<1024x512xf32>
  %u5 = gplace.apply_gradient_descent %w5, %lr, %g5 {name = "layer5/update"} : !gplace.resource<tensor<512x512xf32>>, tensor<f32>, tensor<512x512xf32>
  %u6 = gplace.apply_gradient_descent %w6, %lr, %g6 {name = "layer6/update"} : !gplace.resource<tensor<512x256xf32>>, tensor<f32>, tensor<512x256xf32>
  %u7 = gplace.apply_gradient_descent %w7, %lr, %g7 {name = "layer7/update"} : !gplace.resource<tensor<256x16xf32>>, tensor<f32>, tensor<256x16xf32>
  return %loss : tensor<f32>
}
