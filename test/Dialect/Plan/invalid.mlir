// Tests the gplan verifiers: typed kernels and parameters, operand counts,
// tokens, device references, streams, views, arena tables and step names.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @copyTypes {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.copy' op failed to verify that all of {source, result} have same type}}
  %1 = "gplan.copy"(%0) <{device = @cpu0, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!gplan.buffer<2xf32>) -> !gplan.buffer<3xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @copyName {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{expected a string for a step's name, got 3 : i64}}
  %1 = "gplan.copy"(%0) <{device = @cpu0, operandSegmentSizes = array<i32: 1, 0, 0>, step_name = 3 : i64}> : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

// expected-error @+1 {{'gplan.program' op must end with gplan.return}}
"gplan.program"() <{sym_name = "noReturn"}> ({
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
}) : () -> ()

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @constantType {
  // expected-error @+2 {{'gplan.constant' op failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) '!gplan.buffer<2xf32>' are incompatible with return type(s) of operation '!gplan.buffer<3xf32>'}}
  %0 = "gplan.constant"() <{device = @cpu0, value = dense<1.0> : tensor<2xf32>}> : () -> !gplan.buffer<3xf32>
  gplan.return
}

// -----

gplan.program @unknownKernel {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{unknown kernel 'conv3d'}}
  %1 = gplan.launch conv3d(%0) on @cpu0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @unknownParameter {
  %0 = gplan.input 0 : !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op kernel 'matmul' has no parameter 'transpose_c' (parameters: transpose_a, transpose_b)}}
  %1 = gplan.launch matmul(%0, %0) on @cpu0 {transpose_c} : (!gplan.buffer<2x2xf32>, !gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @parameterType {
  %0 = gplan.input 0 : !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op parameter 'axes' of kernel 'reduce_sum' must be an array<i64>, but is 1 : i64}}
  %1 = gplan.launch reduce_sum(%0) on @cpu0 {axes = 1} : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @missingParameter {
  %0 = gplan.input 0 : !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op kernel 'transpose' needs parameter 'perm'}}
  %1 = gplan.launch transpose(%0) on @cpu0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @flagsAreUnit {
  %0 = gplan.input 0 : !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op parameter 'transpose_a' of kernel 'matmul' must be a unit attribute, but is true}}
  %1 = gplan.launch matmul(%0, %0) on @cpu0 {transpose_a = true} : (!gplan.buffer<2x2xf32>, !gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @arity {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.launch' op kernel 'add' takes 2 operands, but the launch has 1}}
  %1 = gplan.launch add(%0) on @cpu0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @inPlaceReturnsAToken {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  %1 = gplan.variable @cpu0 "v" dense<0.0> : tensor<2xf32>
  // expected-error @+1 {{'gplan.launch' op writes buffers in place and must return one token, last}}
  %2 = gplan.launch assign(%0) into(%1) on @cpu0 : (!gplan.buffer<2xf32>) into(!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @noTokenOtherwise {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.launch' op writes nothing in place and must return no token, or only a token}}
  %1:2 = gplan.launch exp(%0) on @cpu0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>, !gplan.token
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @onlyElementwiseFuses {
  %0 = gplan.input 0 : !gplan.buffer<2x2xf32>
  // expected-error @+1 {{'gplan.launch' op kernel 'matmul' is not elementwise and cannot be fused}}
  %1 = gplan.launch matmul(%0, %0) on @cpu0 stream 0 fusion 0 : (!gplan.buffer<2x2xf32>, !gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return
}

// -----

gplan.program @unknownDevice {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.launch' op uses @tpu0, which is not a gplan.device of the module}}
  %1 = gplan.launch exp(%0) on @tpu0 : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @unknownDeviceAfterKnown {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  %1 = gplan.copy %0 to @cpu0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.record' op uses @gpu0, which is not a gplan.device of the module}}
  %e = gplan.record on @gpu0 stream 1
  gplan.return
}

// -----

module @other {
  gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
}
gplan.program @deviceOfAnotherTable {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.copy' op uses @cpu0, which is not a gplan.device of the module}}
  %1 = gplan.copy %0 to @cpu0 : !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @waitsUnscheduled {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  %1 = gplan.copy %0 to @cpu0 stream 1 : !gplan.buffer<2xf32>
  %e = gplan.record on @cpu0 stream 1
  // expected-error @+1 {{'gplan.launch' op waits for events but has no stream}}
  %2 = gplan.launch exp(%1) on @cpu0 wait(%e) : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @noSuchStream {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.copy' op stream 7 does not exist (a device has streams 0 to 2)}}
  %1 = gplan.copy %0 to @cpu0 stream 7 : !gplan.buffer<2xf32>
  gplan.return
}

// -----

gplan.program @viewSize {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.view' op views '!gplan.buffer<2xf32>' as '!gplan.buffer<2xf64>', which has another size}}
  %1 = gplan.view %0 : !gplan.buffer<2xf32> -> !gplan.buffer<2xf64>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @arenaOffsets {
  // expected-error @+1 {{'gplan.arena' op offset #1 (96) must be -1, 0 or a multiple of 64 below 128}}
  gplan.arena @cpu0 bytes 128 offsets [0, 96]
  gplan.return
}

// -----

// expected-error @+1 {{'gplan.device' op byte counts must not be negative, but got -1}}
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0" {memory_limit = -1 : i64}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @workspaceType {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op has a workspace, so its last buffer result must be a !gplan.buffer<Nxui8>}}
  %1:2 = gplan.launch exp(%0) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @workspaceRead {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op has a workspace, which nothing may read}}
  %1:2 = gplan.launch exp(%0) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>, !gplan.buffer<64xui8>
  %2 = gplan.view %1#1 : !gplan.buffer<64xui8> -> !gplan.buffer<16xf32>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @workspaceFused {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op has a workspace and cannot be fused}}
  %1:2 = gplan.launch exp(%0) on @cpu0 stream 0 fusion 0 workspace : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>, !gplan.buffer<64xui8>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @workspaceMissing {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %v = gplan.variable @cpu0 "v" dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{'gplan.launch' op has a workspace, so its last buffer result must be a !gplan.buffer<Nxui8>}}
  %t = gplan.launch assign_add(%0) into(%v) on @cpu0 stream 0 workspace : (!gplan.buffer<4xf32>) into(!gplan.buffer<4xf32>) -> !gplan.token
  gplan.return
}

// -----

// Operand segments are checked from the properties (OpVerifyHooks.h) with
// MLIR's messages.
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @segmentsCount {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.copy' op operand count (1) does not match with the total size (2) specified in attribute 'operandSegmentSizes'}}
  %1 = "gplan.copy"(%0) <{device = @cpu0, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return %1 : !gplan.buffer<2xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @segmentsNegative {
  %0 = gplan.input 0 : !gplan.buffer<2xf32>
  // expected-error @+1 {{'gplan.launch' op 'operandSegmentSizes' attribute cannot have negative elements}}
  %1 = "gplan.launch"(%0) <{device = @cpu0, kernel = #gplan.kernel<tanh>, operandSegmentSizes = array<i32: 2, -1, 0, 0>}> : (!gplan.buffer<2xf32>) -> !gplan.buffer<2xf32>
  gplan.return %1 : !gplan.buffer<2xf32>
}

// -----

// An attribute dictionary entry named as an inherent attribute must have its
// type (the C++ parsers check as a declarative format does).
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @inherentInDict {
  // expected-error @+1 {{'gplan.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = gplan.constant @cpu0 dense<1.0> : tensor<2xf32> {value = 3 : i64}
  gplan.return %0 : !gplan.buffer<2xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @negativeInput {
  // expected-error @+1 {{'gplan.input' op index must not be negative, but is -1}}
  %0 = gplan.input -1 : !gplan.buffer<2xf32>
  gplan.return %0 : !gplan.buffer<2xf32>
}

// -----

// A block argument is no buffer the exporter knows (a view of one crashed
// it, a use read buffer #0).
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
// expected-error @+1 {{'gplan.program' op takes its inputs with gplan.input, not as block arguments}}
gplan.program @blockArgument {
^bb0(%a: !gplan.buffer<4xf32>):
  gplan.return %a : !gplan.buffer<4xf32>
}

// -----

// Element types the runtime has no kernel or byte size for (i16, before
// it was one, was reported as a size beyond 2^63 by the passes).
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @ui64Constant {
  // expected-error @+1 {{expects a value of f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32, not 'ui64'}}
  %k = gplan.constant @cpu0 dense<1> : tensor<4xui64>
  gplan.return
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @ui64Buffer {
  // expected-error @+1 {{invalid buffer element type 'ui64' (expected f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32)}}
  %0 = gplan.input 0 : !gplan.buffer<4xui64>
  gplan.return
}

// -----

// An elementwise kernel run "for its effect" (it wrote through a null
// buffer at run time).
gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.program @elementwiseToken {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // expected-error @+1 {{'gplan.launch' op kernel 'exp' is elementwise and must write a buffer}}
  %t = gplan.launch exp(%0) on @cpu0 : (!gplan.buffer<4xf32>) -> !gplan.token
  gplan.return
}
