// Tests --gplace-plan-memory="in-place=true": an elementwise launch that is
// a step of its own writes its result over an operand of the result's type
// whose last use it is, every use of that operand being on the launch's
// stream; --gplace-verify-plan accepts the shared memory. Without the
// option nothing is shared.
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory="in-place=true" --gplace-verify-plan | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory | FileCheck %s --check-prefix=OFF
// The liveness lower bound of an in-place plan counts a shared pair once.
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory="in-place=true" --gplace-print-memory-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=BOUND
// RUN: gplace-opt %s --split-input-file --gplace-plan-memory --gplace-print-memory-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=BOUND-OFF
// BOUND: GPU:0: peak 2048 bytes (persistent 0, arena 2048), liveness lower bound 2048 bytes (arena 2048)
// BOUND-OFF: GPU:0: peak 3072 bytes (persistent 0, arena 3072), liveness lower bound 3072 bytes (arena 3072)

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests the backward of a ReLU: %r takes %g's memory (its first operand
// read for the last time), and %s takes %r's. Without in-place the three
// buffers %a, %g and %r are live at once.
// CHECK: gplan.device @gpu0 {{.*}} {arena_bytes = 2048 : i64, peak_bytes = 2048 : i64, persistent_bytes = 0 : i64}
// CHECK-LABEL: gplan.program @reluGrad
// CHECK-NEXT: gplan.arena @gpu0 bytes 2048 offsets [0, 1024, 1024, 1024]
// OFF: gplan.device @gpu0 {{.*}} {arena_bytes = 3072 : i64, peak_bytes = 3072 : i64, persistent_bytes = 0 : i64}
// OFF-LABEL: gplan.program @reluGrad
// OFF-NEXT: gplan.arena @gpu0 bytes 3072 offsets [0, 1024, 2048, 0]
gplan.program @reluGrad {
  %x = gplan.input 0 : !gplan.buffer<256xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<256xf32>
  %g = gplan.launch neg(%a) on @gpu0 stream 0 : (!gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %r = gplan.launch relu_grad(%g, %a) on @gpu0 stream 0 : (!gplan.buffer<256xf32>, !gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %s = gplan.launch exp(%r) on @gpu0 stream 0 : (!gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  gplan.return %s : !gplan.buffer<256xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests the operands that cannot be shared: %g is read again after %r, so
// %r takes %a's memory (its second operand); %b takes %r's and keeps it
// to the end, a result of the program, which %t therefore cannot take
// (it takes %g's, freed after the add); %u reads %a2 through a view, and
// %a2 is not shared through it.
// CHECK-LABEL: gplan.program @notShared
// CHECK-NEXT: gplan.arena @gpu0 bytes 4096 offsets [0, 1024, 0, 0, 1024, 2048, 3072]
gplan.program @notShared {
  %x = gplan.input 0 : !gplan.buffer<256xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<256xf32>
  %g = gplan.launch neg(%a) on @gpu0 stream 0 : (!gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %r = gplan.launch relu_grad(%g, %a) on @gpu0 stream 0 : (!gplan.buffer<256xf32>, !gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %b = gplan.launch add(%r, %g) on @gpu0 stream 0 : (!gplan.buffer<256xf32>, !gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %t = gplan.launch exp(%b) on @gpu0 stream 0 : (!gplan.buffer<256xf32>) -> !gplan.buffer<256xf32>
  %a2 = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<256xf32>
  %v = gplan.view %a2 : !gplan.buffer<256xf32> -> !gplan.buffer<16x16xf32>
  %u = gplan.launch exp(%v) on @gpu0 stream 0 : (!gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  gplan.return %b, %t, %u : !gplan.buffer<256xf32>, !gplan.buffer<256xf32>, !gplan.buffer<16x16xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests types and streams: bias_add's result takes %a's memory, not the
// bias's (of another type); %c, written on the copy stream, is not shared
// with the compute stream's exp although exp reads it last.
// CHECK-LABEL: gplan.program @typesAndStreams
// CHECK-NEXT: gplan.arena @gpu0 bytes 192 offsets [0, 64, 0, 64, 128]
gplan.program @typesAndStreams {
  %x = gplan.input 0 : !gplan.buffer<4x4xf32>
  %b = gplan.input 1 : !gplan.buffer<4xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<4x4xf32>
  %bg = gplan.copy %b to @gpu0 stream 0 : !gplan.buffer<4xf32>
  %y = gplan.launch bias_add(%a, %bg) on @gpu0 stream 0 : (!gplan.buffer<4x4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4x4xf32>
  %c = gplan.copy %x to @gpu0 stream 1 : !gplan.buffer<4x4xf32>
  %e = gplan.record on @gpu0 stream 1
  %z = gplan.launch exp(%c) on @gpu0 stream 0 wait(%e) : (!gplan.buffer<4x4xf32>) -> !gplan.buffer<4x4xf32>
  gplan.return %y, %z : !gplan.buffer<4x4xf32>, !gplan.buffer<4x4xf32>
}

// -----

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests GEMM with beta = 1 (matmul_accumulate, AccumulatesIntoFirstOperand):
// %t takes the memory of its first operand, the accumulator %s, read there
// for the last time (a running sum of weight gradients); %w cannot take
// %t's, which it also reads as a factor of the product, nor %a's, a
// factor read last there: it takes %b's, free since %t.
// CHECK-LABEL: gplan.program @accumulate
// CHECK-NEXT: gplan.arena @gpu0 bytes 3072 offsets [0, 1024, 2048, 1024, 2048]
gplan.program @accumulate {
  %x = gplan.input 0 : !gplan.buffer<16x16xf32>
  %a = gplan.copy %x to @gpu0 stream 0 : !gplan.buffer<16x16xf32>
  %s = gplan.launch neg(%a) on @gpu0 stream 0 : (!gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  %b = gplan.launch exp(%a) on @gpu0 stream 0 : (!gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  %t = gplan.launch matmul_accumulate(%s, %a, %b) on @gpu0 stream 0 {transpose_a} : (!gplan.buffer<16x16xf32>, !gplan.buffer<16x16xf32>, !gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  %w = gplan.launch matmul_accumulate(%t, %t, %a) on @gpu0 stream 0 : (!gplan.buffer<16x16xf32>, !gplan.buffer<16x16xf32>, !gplan.buffer<16x16xf32>) -> !gplan.buffer<16x16xf32>
  gplan.return %w : !gplan.buffer<16x16xf32>
}
