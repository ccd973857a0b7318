// Errors of --gplace-accumulate-gradients.
// RUN: not gplace-opt %s --split-input-file --gplace-accumulate-gradients="steps=3" 2>&1 | FileCheck %s
// RUN: not gplace-opt %s --gplace-accumulate-gradients="steps=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not gplace-opt %s --gplace-accumulate-gradients="steps=2 functions=nope" 2>&1 | FileCheck %s --check-prefix=NOPE
// ZERO: error: --gplace-accumulate-gradients needs steps >= 1
// NOPE: error: --gplace-accumulate-gradients functions: no function @nope

// CHECK: error: argument #0 of @train, of type 'tensor<4x3xf32>': its batch of 4 does not divide into 3 micro-batches
func.func @train(%x: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// CHECK: error: --gplace-accumulate-gradients: @two has 2 gplace.gradients ops that depend on the batch; gradient accumulation needs exactly one
func.func @two(%x: tensor<3x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  %h = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// CHECK: error: op 'AssignAddVariableOp' (gplace.assign_add) writes state and depends on the batch: it cannot be replicated
func.func @stateful(%x: tensor<3x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %s = gplace.assign_add %w, %x : !gplace.resource<tensor<3x2xf32>>
  %loss = gplace.reduce_mean %r axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

// CHECK: error: gplace.gradients takes the gradient with respect to argument #0 (wrt #0), which depends on the batch: --gplace-accumulate-gradients combines the gradients of values the batch does not depend on (variables' reads, constants); name the batch arguments with batch-args= if argument #0 is not one
func.func @wrt_input(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %y = gplace.tanh %x : tensor<3x3xf32>
  %loss = gplace.reduce_mean %y axes = [0, 1] : tensor<3x3xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %x : tensor<f32> wrt tensor<3x3xf32>
  return %g : tensor<3x3xf32>
}
