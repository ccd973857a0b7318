// Tests --gplace-differentiate's error for an op on the path from the loss
// to a variable without a gradient, in TensorFlow's words (its
// LookupError): a second derivative through MaxPoolGrad (TensorFlow has
// one, _MaxPoolGradGrad; gplace does not).
// RUN: gplace-opt %s --gplace-differentiate -verify-diagnostics

func.func @second_derivative(%x: tensor<1x4x4x1xf32>, %g: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> {
  %w = gplace.variable dense<0.5> : tensor<1x4x4x1xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<1x4x4x1xf32>>
  %y = gplace.mul %r, %x : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %mp = gplace.max_pool %y ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
  // expected-error @+1 {{No gradient defined for operation 'MaxPoolGrad' (op type: MaxPoolGrad)}}
  %dy = gplace.max_pool_grad %y, %mp, %g ksize = [1, 2, 2, 1] strides = [1, 2, 2, 1] padding = "VALID" : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>
  %loss = gplace.reduce_sum %dy axes = [0, 1, 2, 3] : tensor<1x4x4x1xf32> -> tensor<f32>
  %gr = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<1x4x4x1xf32>
  return %gr : tensor<1x4x4x1xf32>
}

