// Tests kernels that depend on an op's attributes (a backend's row with a
// condition, BackendKernel::unless): cuDNN's GRU runs only with
// linear_before_reset (CudaKernels.def), so a GRU without it has no GPU
// kernel. Placement asks per op: by default and under soft placement such
// a GRU lands on the CPU while an LSTM or a linear-before-reset GRU of the
// same types goes to the GPU; an explicit GPU request without soft
// placement fails as for any op without a GPU kernel, and
// --gplace-verify-placement rejects a GPU assigned by hand
// (verify-placement-kernel-attributes.mlir).
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true" | FileCheck %s
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:1 allow-soft-placement=true" --gplace-verify-placement | FileCheck %s
// RUN: not gplace-opt %s --gplace-place="devices=cpu:1,gpu:1" 2>&1 | FileCheck %s --check-prefix=HARD
// HARD: error: Cannot assign a device for operation 'gru_reset_before': Could not satisfy explicit device specification '/gpu:0' because no supported kernel for GPU devices is available (CudnnRNNV3 'gru_reset_before' with element type f32 has kernels for CPU only)
// HARD-NOT: error:

// CHECK-LABEL: func.func @recurrent
func.func @recurrent(%x: tensor<5x2x3xf32>, %h0: tensor<1x2x4xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %b: tensor<1x24xf32>, %lw: tensor<1x16x3xf32>, %lr: tensor<1x16x4xf32>, %lb: tensor<1x32xf32>) {
  // CHECK: rnn_mode = "gru" direction = "forward" {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", device = "/gpu:0", name = "gru_reset_before"}
  %y0, %h1, %c1 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" {device = "/gpu:0", name = "gru_reset_before"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  // CHECK: rnn_mode = "gru" direction = "forward" {assigned_device = "/job:localhost/replica:0/task:0/device:CPU:0", name = "gru_default"}
  %y1, %h2, %c2 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" {name = "gru_default"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  // CHECK: linear_before_reset {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", device = "/gpu:0", name = "gru_linear_before_reset"}
  %y2, %h3, %c3 = gplace.cudnn_rnn %x, %h0, %h0, %w, %r, %b rnn_mode = "gru" direction = "forward" linear_before_reset {device = "/gpu:0", name = "gru_linear_before_reset"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  // CHECK: rnn_mode = "lstm" direction = "forward" {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", name = "lstm"}
  %y3, %h4, %c4 = gplace.cudnn_rnn %x, %h0, %h0, %lw, %lr, %lb rnn_mode = "lstm" direction = "forward" {name = "lstm"} : tensor<5x2x3xf32>, tensor<1x2x4xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32> -> tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return
}
