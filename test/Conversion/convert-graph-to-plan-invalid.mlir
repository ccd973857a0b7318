// Tests that --gplace-convert-graph-to-plan needs a placed graph with copies.
// RUN: gplace-opt %s --split-input-file --gplace-convert-graph-to-plan -verify-diagnostics

func.func @notPlaced(%x: tensor<2xf32>) {
  // expected-error @+1 {{op has no assigned device; run --gplace-place first}}
  %0 = gplace.exp %x : tensor<2xf32>
  return
}

// -----

func.func @notCopied(%x: tensor<2xf32>) {
  // expected-error @+1 {{operand on '/job:localhost/replica:0/task:0/device:CPU:0' used on '/job:localhost/replica:0/task:0/device:GPU:0'; run --gplace-insert-copies first}}
  %0 = gplace.exp %x {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xf32>
  return
}

// -----

func.func @returnsResource() -> !gplace.resource<tensor<f32>> {
  %v = gplace.variable dense<0.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  // expected-error @+1 {{a program can only return tensors, not '!gplace.resource<tensor<f32>>'}}
  return %v : !gplace.resource<tensor<f32>>
}

// -----

// A declaration has no body to convert (it crashed the pass).
// expected-error @+1 {{function @ext is a declaration: only a function with a body becomes a plan}}
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>

// -----

// A dynamic shape has no byte size to plan (it printed a buffer of
// -9223372036854775808 elements that did not parse back).
// expected-error @+1 {{argument #0 must be a tensor of static shape, but is 'tensor<?xf32>'}}
func.func @dynamic(%b: tensor<?xf32>) -> tensor<?xf32> {
  return %b : tensor<?xf32>
}
