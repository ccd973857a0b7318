// A chain of 256x256 tanh and add, a variable read before and after an
// update, and reductions, on four emulated GPUs of 1 MiB with policy=auto
// (auto-placement.test): the lowered budgets move the excess from GPU to
// GPU; the fifth placement fits.
func.func @main() -> (tensor<256xf32>, tensor<1x256xf32>, tensor<f32>, tensor<256xf32>, tensor<256xf32>) {
  %c0 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %c1 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %c2 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %c3 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %c4 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %c5 = gplace.constant dense<0.5> : tensor<256x256xf32>
  %var = gplace.variable dense<0.5> : tensor<256x256xf32>
  %t1 = gplace.tanh %c0 : tensor<256x256xf32>
  %a1 = gplace.add %t1, %c1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %t2 = gplace.tanh %a1 : tensor<256x256xf32>
  %a2 = gplace.add %t2, %c2 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %t3 = gplace.tanh %a2 : tensor<256x256xf32>
  %a3 = gplace.add %t3, %c3 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %t4 = gplace.tanh %a3 : tensor<256x256xf32>
  %a4 = gplace.add %t4, %c4 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %t5 = gplace.tanh %a4 : tensor<256x256xf32>
  %a5 = gplace.add %t5, %c5 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %r0 = gplace.read %var : !gplace.resource<tensor<256x256xf32>>
  %tok = gplace.assign_add %var, %t3 : !gplace.resource<tensor<256x256xf32>>
  %r1 = gplace.read %var : !gplace.resource<tensor<256x256xf32>>
  %s = gplace.reduce_sum %a5 axes = [1] : tensor<256x256xf32> -> tensor<256xf32>
  %m = gplace.reduce_max %a2 axes = [0] keep_dims : tensor<256x256xf32> -> tensor<1x256xf32>
  %sm = gplace.softmax %a4 : tensor<256x256xf32>
  %ss = gplace.reduce_mean %sm axes = [0, 1] : tensor<256x256xf32> -> tensor<f32>
  %rs = gplace.reduce_sum %r1 axes = [0] : tensor<256x256xf32> -> tensor<256xf32>
  %r0s = gplace.reduce_sum %r0 axes = [0] : tensor<256x256xf32> -> tensor<256xf32>
  return %s, %m, %ss, %rs, %r0s : tensor<256xf32>, tensor<1x256xf32>, tensor<f32>, tensor<256xf32>, tensor<256xf32>
}
