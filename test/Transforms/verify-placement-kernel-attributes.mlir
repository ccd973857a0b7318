// Tests that --gplace-verify-placement asks for kernels that depend on an
// op's attributes per op (place-kernel-attributes.mlir): a GRU without
// linear_before_reset assigned to a GPU by hand has no kernel there, while
// the same op with it, or on the CPU, passes.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics --gplace-verify-placement

func.func @gruOnGpu(%x: tensor<5x2x3xf32>, %h0: tensor<1x2x4xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>) {
  // expected-error @+1 {{op is assigned to '/job:localhost/replica:0/task:0/device:GPU:0', but GPU has no kernel for gplace.cudnn_rnn with element type f32 and these attributes}}
  %y0, %h1, %c1 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return
}

// -----

func.func @accepted(%x: tensor<5x2x3xf32>, %h0: tensor<1x2x4xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>) {
  %y0, %h1, %c1 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" linear_before_reset {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  %y1, %h2, %c2 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return
}
