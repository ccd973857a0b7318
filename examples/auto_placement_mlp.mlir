// An MLP too large for one GPU, placed automatically (docs/cost-model.md).
//
// Twelve dense layers of 8192x8192 f32 weights: 3 GiB of variables. On four
// emulated GPUs of 1 GiB each nothing fits on one device: the default
// placement puts every op on GPU:0 and the memory plan refuses it
//
//   gplace-run examples/auto_placement_mlp.mlir --emulate-gpus=4 \
//     --gpu-memory-limit=1024
//   error: device /job:localhost/replica:0/task:0/device:GPU:0 needs ...
//
// while the cost model's placement (policy=auto) splits the layers over the
// GPUs, three on each, the way an expert would place them layer-wise:
//
//   gplace-run examples/auto_placement_mlp.mlir --emulate-gpus=4 \
//     --gpu-memory-limit=1024 --policy=auto --log-device-placement
//   ...
//   result[0]: f32=...
//
// The input is a batch of 64 ones; each layer averages its input, so the
// result, the mean of the last layer, is 1.
func.func @main() -> tensor<f32> {
  %x = gplace.constant dense<1.0> : tensor<64x8192xf32> {name = "input"}
  %w0 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_0/kernel"}
  %w1 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_1/kernel"}
  %w2 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_2/kernel"}
  %w3 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_3/kernel"}
  %w4 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_4/kernel"}
  %w5 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_5/kernel"}
  %w6 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_6/kernel"}
  %w7 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_7/kernel"}
  %w8 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_8/kernel"}
  %w9 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_9/kernel"}
  %w10 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_10/kernel"}
  %w11 = gplace.variable dense<1.220703125e-04> : tensor<8192x8192xf32> {name = "dense_11/kernel"}
  %r0 = gplace.read %w0 {name = "dense_0/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m0 = gplace.matmul %x, %r0 {name = "dense_0/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h0 = gplace.relu %m0 {name = "dense_0/Relu"} : tensor<64x8192xf32>
  %r1 = gplace.read %w1 {name = "dense_1/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m1 = gplace.matmul %h0, %r1 {name = "dense_1/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h1 = gplace.relu %m1 {name = "dense_1/Relu"} : tensor<64x8192xf32>
  %r2 = gplace.read %w2 {name = "dense_2/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m2 = gplace.matmul %h1, %r2 {name = "dense_2/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h2 = gplace.relu %m2 {name = "dense_2/Relu"} : tensor<64x8192xf32>
  %r3 = gplace.read %w3 {name = "dense_3/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m3 = gplace.matmul %h2, %r3 {name = "dense_3/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h3 = gplace.relu %m3 {name = "dense_3/Relu"} : tensor<64x8192xf32>
  %r4 = gplace.read %w4 {name = "dense_4/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m4 = gplace.matmul %h3, %r4 {name = "dense_4/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h4 = gplace.relu %m4 {name = "dense_4/Relu"} : tensor<64x8192xf32>
  %r5 = gplace.read %w5 {name = "dense_5/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m5 = gplace.matmul %h4, %r5 {name = "dense_5/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h5 = gplace.relu %m5 {name = "dense_5/Relu"} : tensor<64x8192xf32>
  %r6 = gplace.read %w6 {name = "dense_6/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m6 = gplace.matmul %h5, %r6 {name = "dense_6/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h6 = gplace.relu %m6 {name = "dense_6/Relu"} : tensor<64x8192xf32>
  %r7 = gplace.read %w7 {name = "dense_7/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m7 = gplace.matmul %h6, %r7 {name = "dense_7/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h7 = gplace.relu %m7 {name = "dense_7/Relu"} : tensor<64x8192xf32>
  %r8 = gplace.read %w8 {name = "dense_8/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m8 = gplace.matmul %h7, %r8 {name = "dense_8/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h8 = gplace.relu %m8 {name = "dense_8/Relu"} : tensor<64x8192xf32>
  %r9 = gplace.read %w9 {name = "dense_9/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m9 = gplace.matmul %h8, %r9 {name = "dense_9/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h9 = gplace.relu %m9 {name = "dense_9/Relu"} : tensor<64x8192xf32>
  %r10 = gplace.read %w10 {name = "dense_10/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m10 = gplace.matmul %h9, %r10 {name = "dense_10/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h10 = gplace.relu %m10 {name = "dense_10/Relu"} : tensor<64x8192xf32>
  %r11 = gplace.read %w11 {name = "dense_11/MatMul/ReadVariableOp"} : !gplace.resource<tensor<8192x8192xf32>>
  %m11 = gplace.matmul %h10, %r11 {name = "dense_11/MatMul"} : (tensor<64x8192xf32>, tensor<8192x8192xf32>) -> tensor<64x8192xf32>
  %h11 = gplace.relu %m11 {name = "dense_11/Relu"} : tensor<64x8192xf32>
  %mean = gplace.reduce_mean %h11 axes = [0, 1] {name = "Mean"} : tensor<64x8192xf32> -> tensor<f32>
  return %mean : tensor<f32>
}
