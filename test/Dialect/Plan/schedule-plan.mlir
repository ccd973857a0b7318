// Tests --gplace-schedule-plan: streams, events only where a step needs
// another stream's work and its stream does not know it is done, and the
// tokens gone.
// RUN: gplace-opt %s --split-input-file --gplace-schedule-plan | FileCheck %s
// RUN: gplace-opt %s --split-input-file --gplace-schedule-plan --gplace-schedule-plan | FileCheck %s

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that launches run on the compute stream (0), copies on their
// destination's copy stream (1), and a launch waits once for the copies it
// reads, after the later of them.
// CHECK-LABEL: gplan.program @copiesThenLaunch
// CHECK: %[[A:.+]] = gplan.copy %{{.*}} to @gpu0 stream 1
// CHECK-NEXT: %[[B:.+]] = gplan.copy %{{.*}} to @gpu0 stream 1
// CHECK-NEXT: %[[E:.+]] = gplan.record on @gpu0 stream 1
// CHECK-NEXT: gplan.launch add(%[[A]], %[[B]]) on @gpu0 stream 0 wait(%[[E]])
// CHECK-NEXT: gplan.launch exp(%[[A]]) on @gpu0 stream 0 :
// CHECK-NOT: wait(
gplan.program @copiesThenLaunch {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 : !gplan.buffer<4xf32>
  %2 = gplan.copy %0 to @gpu0 : !gplan.buffer<4xf32>
  %3 = gplan.launch add(%1, %2) on @gpu0 : (!gplan.buffer<4xf32>, !gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %4 = gplan.launch exp(%1) on @gpu0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  gplan.return %3, %4 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that knowledge is transitive: the CPU waits for the GPU's compute
// stream, which had waited for its copy stream, so the CPU needs no wait
// for the copy stream when it later reads the copy's result.
// CHECK-LABEL: gplan.program @transitive
// CHECK: %[[G:.+]] = gplan.copy %{{.*}} to @gpu0 stream 1
// CHECK-NEXT: %[[E1:.+]] = gplan.record on @gpu0 stream 1
// CHECK-NEXT: %[[X:.+]] = gplan.launch exp(%[[G]]) on @gpu0 stream 0 wait(%[[E1]])
// CHECK-NEXT: %[[E2:.+]] = gplan.record on @gpu0 stream 0
// CHECK-NEXT: %[[B:.+]] = gplan.copy %[[X]] to @cpu0 stream 1 wait(%[[E2]])
// CHECK-NEXT: %[[E3:.+]] = gplan.record on @cpu0 stream 1
// CHECK-NEXT: gplan.launch neg(%[[B]]) on @cpu0 stream 0 wait(%[[E3]])
// CHECK-NEXT: gplan.copy %[[G]] to @cpu0 stream 1 :
// CHECK-NEXT: gplan.return
gplan.program @transitive {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %1 = gplan.copy %0 to @gpu0 : !gplan.buffer<4xf32>
  %2 = gplan.launch exp(%1) on @gpu0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %3 = gplan.copy %2 to @cpu0 : !gplan.buffer<4xf32>
  %4 = gplan.launch neg(%3) on @cpu0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %5 = gplan.copy %1 to @cpu0 : !gplan.buffer<4xf32>
  gplan.return %4, %5 : !gplan.buffer<4xf32>, !gplan.buffer<4xf32>
}

// -----

gplan.device @cpu0 "/job:localhost/replica:0/task:0/device:CPU:0"
gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"

// Tests that tokens order: the launch after a join of a GPU result and of
// an assign's token waits for the GPU (the assign runs on its own stream
// before it), and views, joins and after(...) are gone.
// CHECK-LABEL: gplan.program @tokens
// CHECK: gplan.launch assign_add({{.*}}) into({{.*}}) on @cpu0 stream 0
// CHECK: %[[G:.+]] = gplan.launch exp({{.*}}) on @gpu0 stream 0
// CHECK-NEXT: %[[E:.+]] = gplan.record on @gpu0 stream 0
// CHECK-NEXT: %[[V:.+]] = gplan.view %{{.*}} : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
// CHECK-NEXT: gplan.launch neg(%[[V]]) on @cpu0 stream 0 wait(%[[E]])
// CHECK-NOT: join
// CHECK-NOT: after
gplan.program @tokens {
  %0 = gplan.input 0 : !gplan.buffer<4xf32>
  %v = gplan.variable @cpu0 "v" dense<0.0> : tensor<4xf32>
  %t = gplan.launch assign_add(%0) into(%v) on @cpu0 : (!gplan.buffer<4xf32>) into(!gplan.buffer<4xf32>) -> !gplan.token
  %1 = gplan.copy %0 to @gpu0 : !gplan.buffer<4xf32>
  %2 = gplan.launch exp(%1) on @gpu0 : (!gplan.buffer<4xf32>) -> !gplan.buffer<4xf32>
  %j = gplan.join %2, %t : !gplan.buffer<4xf32>, !gplan.token
  %3 = gplan.view %v after(%j) : !gplan.buffer<4xf32> -> !gplan.buffer<2x2xf32>
  %4 = gplan.launch neg(%3) on @cpu0 : (!gplan.buffer<2x2xf32>) -> !gplan.buffer<2x2xf32>
  gplan.return %4 : !gplan.buffer<2x2xf32>
}
