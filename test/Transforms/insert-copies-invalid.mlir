// Tests that --gplace-insert-copies needs a placed graph.
// RUN: gplace-opt %s --split-input-file --gplace-insert-copies -verify-diagnostics

func.func @notPlaced(%x: tensor<2xf32>) {
  // expected-error @+1 {{op has no assigned device; run --gplace-place first}}
  %0 = gplace.exp %x : tensor<2xf32>
  return
}

// -----

func.func @producerNotPlaced(%x: tensor<2xf32>) {
  // expected-error @+1 {{op has no assigned device}}
  %0 = gplace.exp %x : tensor<2xf32>
  // expected-error @+1 {{operand #0 comes from an op without an assigned device; run --gplace-place first}}
  %1 = gplace.exp %0 {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32>
  return
}

// -----

func.func @resourceElsewhere() {
  %v = gplace.variable dense<1.0> : tensor<f32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"}
  // expected-error @+1 {{op on '/job:localhost/replica:0/task:0/device:CPU:0' uses a resource on '/job:localhost/replica:0/task:0/device:GPU:0'; resources are not copied (run --gplace-place to colocate them)}}
  %r = gplace.read %v {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : !gplace.resource<tensor<f32>>
  return
}
