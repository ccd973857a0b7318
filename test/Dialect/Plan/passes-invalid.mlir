// Tests that the plan passes reject a plan of an earlier stage with an
// error naming the pass to run, rather than crash or print nonsense: an
// unscheduled plan (launches without streams), which has no memory plan.
// RUN: not gplace-opt %s --gplace-fuse-elementwise 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not gplace-opt %s --gplace-fuse-elementwise=max-launches=1 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not gplace-opt %s --gplace-plan-memory 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not gplace-opt %s --gplace-verify-plan 2>&1 | FileCheck %s --check-prefix=PLANNED
// RUN: not gplace-opt %s --gplace-print-memory-plan 2>&1 | FileCheck %s --check-prefix=PLANNED
// RUN: not gplace-opt %s --gplace-schedule-plan --gplace-print-memory-plan 2>&1 | FileCheck %s --check-prefix=PLANNED

// PLANNED: [[@LINE+1]]:1: error: 'gplan.device' op has no memory plan; run --gplace-plan-memory
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @unscheduled {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  // STREAM: [[@LINE+1]]:8: error: 'gplan.launch' op has no stream; run --gplace-schedule-plan first
  %1 = gplan.launch exp(%0) on @gpu0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %1 : !gplan.buffer<4xf32>
}

