// Tests what a resource edge does not relieve (TensorFlow's
// EnsureCompatibilityAcrossResourceEdge; placer_test:
// TestResourceHandlesOnDifferentDevicesFails): two resources used by one op
// that request different devices, with or without soft placement.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics --gplace-place="devices=cpu:1,gpu:1"
// RUN: gplace-opt %s -split-input-file -verify-diagnostics --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true"

func.func @resourceDevicesOfOneOp(%lr: tensor<f32>, %g: tensor<2xf32>, %m: tensor<f32>) {
  // expected-note @+1 {{'w' requests '/gpu:0' here}}
  %w = gplace.variable dense<1.0> : tensor<2xf32> {device = "/gpu:0", name = "w"}
  // expected-error @+1 {{Cannot place the graph because a reference or resource edge connects colocation groups with incompatible resource devices: /device:CPU:0 vs /device:GPU:0 ('w/Momentum' and 'w' are in one colocation group)}}
  %a = gplace.variable dense<0.0> : tensor<2xf32> {device = "/cpu:0", name = "w/Momentum"}
  %u = gplace.apply_momentum %w, %a, %lr, %g, %m : !gplace.resource<tensor<2xf32>>, !gplace.resource<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>
  return
}
