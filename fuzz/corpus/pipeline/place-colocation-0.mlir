func.func @requestOnVariable(%x: tensor<f32>) -> tensor<f32> {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/gpu:1"}
  %t = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  %i = gplace.identity %v : !gplace.resource<tensor<f32>>
  %r = gplace.read %i after(%t) : !gplace.resource<tensor<f32>>
  %n = gplace.neg %r : tensor<f32>
  return %n : tensor<f32>
}

func.func @requestOnUser(%x: tensor<f32>) {
  %v = gplace.variable dense<0.0> : tensor<f32>
  %t = gplace.assign_add %v, %x {device = "/cpu:0"} : !gplace.resource<tensor<f32>>
  return
}

func.func @partialRequestsCombine(%x: tensor<f32>) {
  %v = gplace.variable dense<0.0> : tensor<f32> {device = "/job:localhost"}
  %t = gplace.assign_sub %v, %x {device = "/device:*:1"} : !gplace.resource<tensor<f32>>
  %r = gplace.read %v {device = "/device:GPU"} : !gplace.resource<tensor<f32>>
  return
}

func.func @groupDoesNotColocate() {
  %a = gplace.variable dense<0.0> : tensor<f32> {device = "/gpu:1"}
  %b = gplace.variable dense<0.0> : tensor<f32> {device = "/cpu:0"}
  %t = gplace.group %a, %b : !gplace.resource<tensor<f32>>, !gplace.resource<tensor<f32>>
  return
}

func.func @groupKernels(%x: tensor<2xi32>) {
  %v = gplace.variable dense<0> : tensor<2xi32>
  %t = gplace.assign %v, %x : !gplace.resource<tensor<2xi32>>
  return
}
