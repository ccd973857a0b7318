// Two independent towers, placed automatically (docs/cost-model.md): with
// policy=auto each tower goes to its own GPU, where the default placement
// puts both on GPU:0 and runs them one after the other.
//
//   gplace-run examples/auto_placement_towers.mlir --emulate-gpus=2 \
//     --policy=auto --log-device-placement
//
// Each tower is three dense layers of 2048x2048 on a batch of 256 ones,
// each averaging its input; the result, the sum of the two towers' means,
// is 2.
func.func @main() -> tensor<f32> {
  %x = gplace.constant dense<1.0> : tensor<256x2048xf32> {name = "input"}
  %aw0 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_a/dense_0/kernel"}
  %aw1 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_a/dense_1/kernel"}
  %aw2 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_a/dense_2/kernel"}
  %bw0 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_b/dense_0/kernel"}
  %bw1 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_b/dense_1/kernel"}
  %bw2 = gplace.variable dense<4.8828125e-04> : tensor<2048x2048xf32> {name = "tower_b/dense_2/kernel"}
  %ar0 = gplace.read %aw0 {name = "tower_a/dense_0/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %am0 = gplace.matmul %x, %ar0 {name = "tower_a/dense_0/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %ah0 = gplace.relu %am0 {name = "tower_a/dense_0/Relu"} : tensor<256x2048xf32>
  %ar1 = gplace.read %aw1 {name = "tower_a/dense_1/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %am1 = gplace.matmul %ah0, %ar1 {name = "tower_a/dense_1/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %ah1 = gplace.relu %am1 {name = "tower_a/dense_1/Relu"} : tensor<256x2048xf32>
  %ar2 = gplace.read %aw2 {name = "tower_a/dense_2/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %am2 = gplace.matmul %ah1, %ar2 {name = "tower_a/dense_2/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %ah2 = gplace.relu %am2 {name = "tower_a/dense_2/Relu"} : tensor<256x2048xf32>
  %amean = gplace.reduce_mean %ah2 axes = [0, 1] {name = "tower_a/Mean"} : tensor<256x2048xf32> -> tensor<f32>
  %br0 = gplace.read %bw0 {name = "tower_b/dense_0/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %bm0 = gplace.matmul %x, %br0 {name = "tower_b/dense_0/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %bh0 = gplace.relu %bm0 {name = "tower_b/dense_0/Relu"} : tensor<256x2048xf32>
  %br1 = gplace.read %bw1 {name = "tower_b/dense_1/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %bm1 = gplace.matmul %bh0, %br1 {name = "tower_b/dense_1/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %bh1 = gplace.relu %bm1 {name = "tower_b/dense_1/Relu"} : tensor<256x2048xf32>
  %br2 = gplace.read %bw2 {name = "tower_b/dense_2/MatMul/ReadVariableOp"} : !gplace.resource<tensor<2048x2048xf32>>
  %bm2 = gplace.matmul %bh1, %br2 {name = "tower_b/dense_2/MatMul"} : (tensor<256x2048xf32>, tensor<2048x2048xf32>) -> tensor<256x2048xf32>
  %bh2 = gplace.relu %bm2 {name = "tower_b/dense_2/Relu"} : tensor<256x2048xf32>
  %bmean = gplace.reduce_mean %bh2 axes = [0, 1] {name = "tower_b/Mean"} : tensor<256x2048xf32> -> tensor<f32>
  %sum = gplace.add %amean, %bmean {name = "sum"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %sum : tensor<f32>
}
