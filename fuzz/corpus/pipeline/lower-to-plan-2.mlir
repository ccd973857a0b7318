func.func @state(%x: tensor<f32>) -> tensor<f32> {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0", name = "v"}
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  %r = gplace.read %v : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}
