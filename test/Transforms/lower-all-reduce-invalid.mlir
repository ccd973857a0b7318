// Tests gplace.all_reduce's verifier.
// RUN: gplace-opt %s --split-input-file --verify-diagnostics

func.func @types(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.all_reduce' op expects inputs of one type, got 'tensor<2xf32>' and 'tensor<3xf32>'}}
  %r:2 = gplace.all_reduce %a, %b reduction = "sum" devices = ["/device:GPU:0", "/device:GPU:1"] : tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @devices(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.all_reduce' op has 1 devices for 2 inputs (expected one per input)}}
  %r:2 = gplace.all_reduce %a, %b reduction = "sum" devices = ["/device:GPU:0"] : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @reduction(%a: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.all_reduce' op reduction must be "sum" or "mean", not "max"}}
  %r = gplace.all_reduce %a reduction = "max" devices = ["/device:GPU:0"] : tensor<2xf32>
  return
}
