// One step on an f16 linear model whose gradients (40000 per replica) are
// near f16's largest value: their sum overflows, their mean does not
// (replicas.test).
func.func @train(%x: tensor<4x2xf16>) -> (tensor<f16>, tensor<2xf16>) {
  %h = gplace.variable dense<[0.1, 0.2]> : tensor<2xf16> {name = "h"}
  %hr = gplace.read %h : !gplace.resource<tensor<2xf16>>
  %p = gplace.mul %x, %hr : (tensor<4x2xf16>, tensor<2xf16>) -> tensor<4x2xf16>
  %m = gplace.reduce_mean %p axes = [0] : tensor<4x2xf16> -> tensor<2xf16>
  %loss = gplace.reduce_sum %m axes = [0] : tensor<2xf16> -> tensor<f16>
  %gh = gplace.gradients %loss wrt %hr : tensor<f16> wrt tensor<2xf16>
  %lr = gplace.constant dense<0.00001> : tensor<f16>
  %uh = gplace.apply_gradient_descent %h, %lr, %gh : !gplace.resource<tensor<2xf16>>, tensor<f16>, tensor<2xf16>
  %l = gplace.identity %loss after(%uh) : tensor<f16>
  %nh = gplace.read %h after(%uh) : !gplace.resource<tensor<2xf16>>
  return %l, %nh : tensor<f16>, tensor<2xf16>
}
