// Tests --gplace-replicate's errors: a batch that does not divide (naming
// the argument), an explicit device, a stateful op that depends on the
// batch, and the options.
// RUN: gplace-opt %s --split-input-file --verify-diagnostics --gplace-replicate="replicas=3"
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 variables=somewhere" 2>&1 | FileCheck %s --check-prefix=VARIABLES
// VARIABLES: error: --gplace-replicate variables must be host or mirrored, not 'somewhere'
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 device-type=TPU" 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: --gplace-replicate device-type must be GPU or CPU, not 'TPU'
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 reduce=max" 2>&1 | FileCheck %s --check-prefix=REDUCE
// REDUCE: error: --gplace-replicate reduce must be mean or sum, not 'max'
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=3 devices=/gpu:0,/gpu:1" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: --gplace-replicate: replicas=3 but 2 devices
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="devices=/gpu:0,/gpu:x" 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: --gplace-replicate devices: Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="devices=/gpu:*" 2>&1 | FileCheck %s --check-prefix=WILD
// WILD: error: --gplace-replicate devices: '/gpu:*' names no one device, and the module does not say which devices there are (run --gplace-assign-devices first)
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 functions=nosuch" 2>&1 | FileCheck %s --check-prefix=FUNCTION
// FUNCTION: error: --gplace-replicate functions: no function @nosuch
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 batch-args=4" 2>&1 | FileCheck %s --check-prefix=ARGNUM
// ARGNUM: error: --gplace-replicate batch-args: @train has no argument #4 (it has 1)
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:2" --gplace-replicate="devices=/gpu:1,/gpu:2" 2>&1 | FileCheck %s --check-prefix=MISSING
// An empty entry matched every device (a replica on the CPU), a device
// listed twice failed late, a negative bucket size was taken.
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:2" --gplace-replicate="devices=/gpu:0,,/gpu:1" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: --gplace-replicate devices: an empty entry in the list
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:2" --gplace-replicate="devices=/gpu:0,/device:GPU:0" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: --gplace-replicate devices: '/device:GPU:0' is listed twice (as '/gpu:0'); each replica needs its own device
// Two spellings of one device: `/gpu:*` expanded to full names, then
// `/gpu:0` (host variables put two towers on GPU:0).
// RUN: not gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:2" --gplace-replicate="devices=/gpu:*,/gpu:0 variables=host" 2>&1 | FileCheck %s --check-prefix=TWICE-WILD
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 reduce=sum" 2>&1 | FileCheck %s --check-prefix=RESOURCE
// RESOURCE: error: result #1, of type '!gplace.resource<tensor<3x2xf32>>', is not a tensor to add across replicas
// TWICE-WILD: error: --gplace-replicate devices: '/gpu:0' is listed twice (as '/job:localhost/replica:0/task:0/device:GPU:0'); each replica needs its own device
// RUN: not gplace-opt %s --split-input-file --gplace-replicate="replicas=2 bucket-bytes=-5" 2>&1 | FileCheck %s --check-prefix=BUCKET
// BUCKET: error: --gplace-replicate bucket-bytes must not be negative, not -5
// MISSING: error: --gplace-replicate: Could not satisfy explicit device specification '/gpu:2' because no devices matching that specification are registered in this process; available devices: /job:localhost/replica:0/task:0/device:GPU:0, /job:localhost/replica:0/task:0/device:GPU:1, /job:localhost/replica:0/task:0/device:CPU:0

// expected-error @+1 {{argument #0 of @train, of type 'tensor<4x3xf32>': its batch of 4 does not divide into 3 replicas}}
func.func @train(%x: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

func.func @pinned(%x: tensor<3x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  // expected-error @+1 {{op 'MatMul' requests device '/gpu:1': --gplace-replicate places every op itself; remove the request or do not replicate}}
  %p = gplace.matmul %x, %wr {device = "/gpu:1"} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

func.func @stateful(%x: tensor<3x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  // expected-error @+1 {{op 'AssignAddVariableOp' (gplace.assign_add) writes state and depends on the batch: it cannot be replicated}}
  %u = gplace.assign_add %w, %x : !gplace.resource<tensor<3x2xf32>>
  %loss = gplace.reduce_mean %wr axes = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}


// -----

// A dynamic batch was read as a negative size (a slice the verifier
// refused); a resource result was cast to a tensor to add.
// expected-error @+1 {{argument #0 of @dynamic, of type 'tensor<?x3xf32>', has a dynamic shape: --gplace-replicate splits a static batch}}
func.func @dynamic(%x: tensor<?x3xf32>, %y: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %y, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss : tensor<f32>
}

// -----

func.func @resource(%x: tensor<6x3xf32>) -> (tensor<f32>, !gplace.resource<tensor<3x2xf32>>) {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %wr : (tensor<6x3xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<6x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  return %loss, %w : tensor<f32>, !gplace.resource<tensor<3x2xf32>>
}

// -----

// A gradient with respect to a value of the batch is per example: it is
// neither averaged nor all-reduced. Before, the per-replica gradients kept
// the whole batch's type and failed their verifier ("op ''").
func.func @wrt_input(%x: tensor<6x3xf32>) -> tensor<6x3xf32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %h = gplace.tanh %x {name = "act"} : tensor<6x3xf32>
  %p = gplace.matmul %h, %wr : (tensor<6x3xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<6x2xf32> -> tensor<f32>
  // expected-error @+1 {{gplace.gradients takes the gradient with respect to 'act' (wrt #1), which depends on the batch: --gplace-replicate combines the gradients of values the batch does not depend on (variables' reads, constants); name the batch arguments with batch-args= if 'act' is not one}}
  %gw, %gh = gplace.gradients %loss wrt %wr, %h : tensor<f32> wrt tensor<3x2xf32>, tensor<6x3xf32>
  return %gh : tensor<6x3xf32>
}
