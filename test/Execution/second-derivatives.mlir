// Second derivatives: gplace.gradients of a gradient, through the
// activations' backward ops (TensorFlow's _TanhGradGrad, _SigmoidGradGrad,
// _ReluGradGrad; they had no gradient: "No gradient defined"). At x = 0.5,
// -1, 2: tanh'' = -2 tanh (1 - tanh^2), sigmoid'' = s (1 - s) (1 - 2s),
// relu'' = 0.
// RUN: gplace-run %s --input=3xf64=0.5,-1,2 | FileCheck %s
// RUN: gplace-run %s --input=3xf64=0.5,-1,2 --emulate-gpus=1 | FileCheck %s
// CHECK: result[0]: 3xf64=[-0.726861981383587{{[0-9]*}}, 0.639700008449224{{[0-9]*}}, -0.1362186874271129{{[0-9]*}}]
// CHECK: result[1]: 3xf64=[-0.0575567948523207{{[0-9]*}}, 0.0908577476729484{{[0-9]*}}, -0.0799625010561531{{[0-9]*}}]
// CHECK: result[2]: 3xf64=[0, 0, 0]
func.func @main(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %t = gplace.tanh %x : tensor<3xf64>
  %tl = gplace.reduce_sum %t axes = [0] : tensor<3xf64> -> tensor<f64>
  %tg = gplace.gradients %tl wrt %x : tensor<f64> wrt tensor<3xf64>
  %tl2 = gplace.reduce_sum %tg axes = [0] : tensor<3xf64> -> tensor<f64>
  %th = gplace.gradients %tl2 wrt %x : tensor<f64> wrt tensor<3xf64>
  %s = gplace.sigmoid %x : tensor<3xf64>
  %sl = gplace.reduce_sum %s axes = [0] : tensor<3xf64> -> tensor<f64>
  %sg = gplace.gradients %sl wrt %x : tensor<f64> wrt tensor<3xf64>
  %sl2 = gplace.reduce_sum %sg axes = [0] : tensor<3xf64> -> tensor<f64>
  %sh = gplace.gradients %sl2 wrt %x : tensor<f64> wrt tensor<3xf64>
  %r = gplace.relu %x : tensor<3xf64>
  %rl = gplace.reduce_sum %r axes = [0] : tensor<3xf64> -> tensor<f64>
  %rg = gplace.gradients %rl wrt %x : tensor<f64> wrt tensor<3xf64>
  %rl2 = gplace.reduce_sum %rg axes = [0] : tensor<3xf64> -> tensor<f64>
  %rh = gplace.gradients %rl2 wrt %x : tensor<f64> wrt tensor<3xf64>
  return %th, %sh, %rh : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}
