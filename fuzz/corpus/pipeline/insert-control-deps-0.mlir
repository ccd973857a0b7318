func.func @statefulOrder(%x: tensor<f32>) -> tensor<f32> {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0"}
  %r0 = gplace.read %v : !gplace.resource<tensor<f32>>
  %r1 = gplace.read %v : !gplace.resource<tensor<f32>>
  %w0 = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  %w1 = gplace.assign_add %v, %x : !gplace.resource<tensor<f32>>
  %r2 = gplace.read %v : !gplace.resource<tensor<f32>>
  %i = gplace.identity %v : !gplace.resource<tensor<f32>>
  %w2 = gplace.assign_sub %i, %x : !gplace.resource<tensor<f32>>
  return %r2 : tensor<f32>
}
