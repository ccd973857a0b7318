// Tests --gplace-replicate batch-args' errors: batch arguments whose leading
// dimensions differ, and an argument with no leading dimension.
// RUN: gplace-opt %s --split-input-file --verify-diagnostics --gplace-replicate="replicas=3 variables=host batch-args=0,1"

// expected-error @+1 {{--gplace-replicate batch-args: argument #1 of @mismatch, of type 'tensor<6x2xf32>', has a batch of 6, not 3 as argument #0}}
func.func @mismatch(%x: tensor<3x3xf32>, %y: tensor<6x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// expected-error @+1 {{--gplace-replicate batch-args: argument #1 of @scalar, of type 'tensor<f32>', has no leading dimension to split}}
func.func @scalar(%x: tensor<3x3xf32>, %lr: tensor<f32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

