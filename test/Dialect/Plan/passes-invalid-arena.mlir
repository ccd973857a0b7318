// Tests that a plan with byte counts but no arena table is not taken for a
// memory-planned one: --gplace-print-memory-plan and --gplace-verify-plan
// name the pass to run.
// RUN: not gplace-opt %s --gplace-print-memory-plan 2>&1 | FileCheck %s
// RUN: not gplace-opt %s --gplace-verify-plan 2>&1 | FileCheck %s

gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0" {arena_bytes = 64 : i64, peak_bytes = 64 : i64, persistent_bytes = 0 : i64}
gplan.program @noArena {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // CHECK: [[@LINE+1]]:8: error: 'gplan.launch' op writes a buffer on @gpu0, which has no gplan.arena; run --gplace-plan-memory
  %1 = gplan.launch exp(%0) on @gpu0 stream 0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}
