// Two layers on two GPUs, for --trace (docs/runtime.md, "Timelines"): a
// matmul on GPU:0 whose result GPU:1 copies, adds to itself and applies
// tanh to; the input comes from the host.
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %h = gplace.matmul %x, %x {device = "/gpu:0", name = "layer1/MatMul"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = gplace.add %h, %h {device = "/gpu:1", name = "layer2/Add"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = gplace.tanh %s {device = "/gpu:1", name = "layer2/Tanh"} : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
