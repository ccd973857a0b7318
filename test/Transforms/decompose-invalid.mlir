// RUN: gplace-opt -split-input-file -verify-diagnostics --gplace-decompose %s
// The composites' shape rules: their verifiers refuse what they cannot
// decompose (docs/passes/decompose.md).

func.func @gemm_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'gplace.gemm' op c of type 'tensor<3xf32>' does not broadcast to the product's type 'tensor<2x4xf32>'}}
  %y = gplace.gemm %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'gplace.gemm' op contraction dimensions differ: lhs dimension 1 is 3 but rhs dimension 0 is 4}}
  %y = gplace.gemm %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @gemm_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'gplace.gemm' op result #0 has type 'tensor<4x2xf32>' but the expected type is 'tensor<2x4xf32>'}}
  %y = gplace.gemm %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gplace.layer_norm' op axis 2 is out of range for an operand of rank 2 (expected -2 <= axis < 2)}}
  %y, %m, %i = gplace.layer_norm %x {axis = 2 : i64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @layer_norm_scale(%x: tensor<2x3xf32>, %s: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gplace.layer_norm' op scale of type 'tensor<2xf32>' does not broadcast to the input's type 'tensor<2x3xf32>'}}
  %y, %m, %i = gplace.layer_norm %x scale(%s : tensor<2xf32>) : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @layer_norm_bias_type(%x: tensor<2x3xf32>, %b: tensor<3xf64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gplace.layer_norm' op bias has element type 'f64' but the input has element type 'f32'}}
  %y, %m, %i = gplace.layer_norm %x bias(%b : tensor<3xf64>) : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @softmax_2d_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gplace.softmax_2d' op axis -3 is out of range for an operand of rank 2 (expected -2 <= axis < 2)}}
  %y = gplace.softmax_2d %x {axis = -3 : i64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @log_softmax_2d_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'gplace.log_softmax_2d' op expects an operand of rank at least 1, but got 'tensor<f32>'}}
  %y = gplace.log_softmax_2d %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @hard_sigmoid_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'gplace.hard_sigmoid' op operand #0 must be statically shaped tensor of}}
  %y = gplace.hard_sigmoid %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @celu_alpha(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'gplace.celu' op expects a nonzero alpha}}
  %y = gplace.celu %x {alpha = 0.0 : f32} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
