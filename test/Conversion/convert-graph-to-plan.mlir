// Tests --gplace-convert-graph-to-plan: what each op becomes (by its traits
// and interfaces), typed kernel parameters, after(...) tokens and joins,
// and whether a read of a variable is a view or a copy.
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:1" --gplace-place --gplace-insert-copies --gplace-insert-control-deps --gplace-convert-graph-to-plan | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-assign-devices="devices=cpu:1,gpu:1" --gplace-place --gplace-insert-copies --gplace-insert-control-deps --gplace-convert-graph-to-plan | gplace-opt --split-input-file | FileCheck %s

// Tests every kind of op: an input, a variable and a constant, kernels
// with normalised parameters (axes = [-1] is [1]), a copy, views for the
// reshape and for a constant with after(...), joins for groups. The read
// of `w` is copied by its kernel: its value goes to the GPU on another
// stream, and nothing makes the later assign_add wait for that.
// CHECK-LABEL: gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"{{$}}
// CHECK-NEXT: gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"{{$}}
// CHECK-LABEL: gplan.program @everyKind
// CHECK-NEXT: %[[X:.+]] = gplan.input 0 : !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[W:.+]] = gplan.variable @cpu0 "w" dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[R:.+]] = gplan.launch read(%[[W]]) on @cpu0 name "ReadVariableOp" : (!gplan.buffer<2x3xf32>) -> !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[RG:.+]] = gplan.copy %[[R]] to @gpu0 name "ReadVariableOp" : !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[G:.+]] = gplan.launch exp(%[[RG]]) on @gpu0 name "Exp" : (!gplan.buffer<2x3xf32>) -> !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[S:.+]] = gplan.launch reduce_sum(%[[X]]) on @cpu0 name "Sum" {axes = array<i64: 1>, keep_dims} : (!gplan.buffer<2x3xf32>) -> !gplan.buffer<2x1xf32>
// CHECK-NEXT: %[[J:.+]] = gplan.join %[[R]] : !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[T:.+]] = gplan.launch assign_add(%[[X]]) into(%[[W]]) on @cpu0 after(%[[J]]) name "AssignAddVariableOp" : (!gplan.buffer<2x3xf32>) into(!gplan.buffer<2x3xf32>) -> !gplan.token
// CHECK-NEXT: %[[Y:.+]] = gplan.view %[[G]] : !gplan.buffer<2x3xf32> -> !gplan.buffer<3x2xf32>
// CHECK-NEXT: %[[K:.+]] = gplan.constant @cpu0 dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[KV:.+]] = gplan.view %[[K]] after(%[[T]]) : !gplan.buffer<2x3xf32> -> !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[GRP:.+]] = gplan.join %[[S]], %[[KV]] : !gplan.buffer<2x1xf32>, !gplan.buffer<2x3xf32>
// CHECK-NEXT: %[[Z:.+]] = gplan.launch mul(%[[X]], %[[KV]]) on @cpu0 after(%[[GRP]])
// CHECK-NEXT: gplan.return %[[Y]], %[[Z]] : !gplan.buffer<3x2xf32>, !gplan.buffer<2x3xf32>
// CHECK-NOT: func.func
func.func @everyKind(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %v = gplace.variable dense<1.0> : tensor<2x3xf32> {device = "/cpu:0", name = "w"}
  %r = gplace.read %v : !gplace.resource<tensor<2x3xf32>>
  %g = gplace.exp %r {device = "/gpu:0"} : tensor<2x3xf32>
  %s = gplace.reduce_sum %x axes = [-1] keep_dims {device = "/cpu:0"} : tensor<2x3xf32> -> tensor<2x1xf32>
  %t = gplace.assign_add %v, %x : !gplace.resource<tensor<2x3xf32>>
  %y = gplace.reshape %g : tensor<2x3xf32> -> tensor<3x2xf32>
  %k = gplace.constant dense<2.0> : tensor<2x3xf32> after(%t) {device = "/cpu:0"}
  %grp = gplace.group %s, %k : tensor<2x1xf32>, tensor<2x3xf32>
  %z = gplace.mul %x, %k after(%grp) {device = "/cpu:0"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// Tests that a read whose every use runs on the variable's device before
// the write (one compute stream runs them in order) is a view: no copy.
// CHECK-LABEL: gplan.program @readBeforeWriteOnOneStream
// CHECK: %[[W:.+]] = gplan.variable @cpu0 "w"
// CHECK-NOT: gplan.launch read
// CHECK: gplan.launch neg(%[[W]]) on @cpu0
// CHECK: gplan.launch assign_sub
func.func @readBeforeWriteOnOneStream(%x: tensor<4xf32>) -> tensor<4xf32> {
  %v = gplace.variable dense<1.0> : tensor<4xf32> {device = "/cpu:0", name = "w"}
  %r = gplace.read %v : !gplace.resource<tensor<4xf32>>
  %n = gplace.neg %r {device = "/cpu:0"} : tensor<4xf32>
  %t = gplace.assign_sub %v, %x : !gplace.resource<tensor<4xf32>>
  return %n : tensor<4xf32>
}

// -----

// Tests that a read used on another device is a view when the write waits
// for that use: the GPU's result is what the variable is updated with (an
// SGD step's shape).
// CHECK-LABEL: gplan.program @writeWaitsForTheUse
// CHECK: %[[W:.+]] = gplan.variable @cpu0 "w"
// CHECK-NOT: gplan.launch read
// CHECK: gplan.copy %[[W]] to @gpu0
// CHECK: gplan.launch assign_sub
func.func @writeWaitsForTheUse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %v = gplace.variable dense<1.0> : tensor<4xf32> {device = "/cpu:0", name = "w"}
  %r = gplace.read %v : !gplace.resource<tensor<4xf32>>
  %g = gplace.mul %r, %x {device = "/gpu:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = gplace.assign_sub %v, %g : !gplace.resource<tensor<4xf32>>
  return %g : tensor<4xf32>
}

// -----

// Tests that a read returned by the program is copied when the variable is
// written later in the run: the result must be the value at the read.
// CHECK-LABEL: gplan.program @returnedThenWritten
// CHECK: %[[W:.+]] = gplan.variable @cpu0 "w"
// CHECK: %[[R:.+]] = gplan.launch read(%[[W]])
// CHECK: gplan.return %[[R]]
func.func @returnedThenWritten(%x: tensor<4xf32>) -> tensor<4xf32> {
  %v = gplace.variable dense<1.0> : tensor<4xf32> {device = "/cpu:0", name = "w"}
  %r = gplace.read %v : !gplace.resource<tensor<4xf32>>
  %t = gplace.assign %v, %x : !gplace.resource<tensor<4xf32>>
  return %r : tensor<4xf32>
}
