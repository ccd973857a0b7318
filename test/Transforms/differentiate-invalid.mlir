// Tests --gplace-differentiate's error for an op on the path from the loss
// to a variable without a gradient, in TensorFlow's words (its
// LookupError): a second derivative through TanhGrad.
// RUN: gplace-opt %s --gplace-differentiate -verify-diagnostics

func.func @second_derivative(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = gplace.variable dense<0.5> : tensor<4xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<4xf32>>
  %y = gplace.tanh %r : tensor<4xf32>
  // expected-error @+1 {{No gradient defined for operation 'TanhGrad' (op type: TanhGrad)}}
  %dy = gplace.tanh_grad %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %loss = gplace.reduce_sum %dy axes = [0] : tensor<4xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<4xf32>
  return %g : tensor<4xf32>
}
