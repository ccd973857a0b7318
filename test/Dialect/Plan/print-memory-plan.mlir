// Tests --gplace-print-memory-plan, and the memory limit checked at compile
// time through --gplace-pipeline's gpu-memory-limit.
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1 fuse-elementwise=false" --gplace-print-memory-plan -o /dev/null 2>&1 | FileCheck %s
// RUN: gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1" --gplace-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not gplace-opt %s --gplace-pipeline="devices=cpu:1,gpu:1 gpu-memory-limit=1 fuse-elementwise=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// CHECK: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak 3145728 bytes (persistent 1048576, arena 2097152), liveness lower bound 3145728 bytes (arena 2097152)
// CHECK-NEXT:   @main tensor<512x512xf32>: 1048576 bytes at [0, 1048576), live steps 0..1
// CHECK-NEXT:   @main tensor<512x512xf32>: 1048576 bytes at [1048576, 2097152), live steps 1..end

// Fused, the inner exp stays in registers.
// FUSED: Memory plan for /job:localhost/replica:0/task:0/device:GPU:0: peak 2097152 bytes (persistent 1048576, arena 1048576), liveness lower bound 2097152 bytes (arena 1048576)
// FUSED-NEXT:   @main tensor<512x512xf32>: 1048576 bytes in registers (fused), live steps 0..0
// FUSED-NEXT:   @main tensor<512x512xf32>: 1048576 bytes at [0, 1048576), live steps 0..end

// LIMIT: print-memory-plan.mlir:[[@LINE+1]]:1: error: device /job:localhost/replica:0/task:0/device:GPU:0 needs 3145728 bytes (3 MiB) of memory, 1048576 bytes (1 MiB) for constants and variables and 2097152 bytes (2 MiB) for intermediates, but its memory limit is 1048576 bytes (1 MiB)
func.func @main(%x: tensor<f32>) -> tensor<512x512xf32> {
  %a = gplace.constant dense<1.0> : tensor<512x512xf32>
  %b = gplace.exp %a : tensor<512x512xf32>
  %c = gplace.exp %b : tensor<512x512xf32>
  return %c : tensor<512x512xf32>
}
