// Run-time control flow (docs/runtime.md#control-flow): a gplace.if whose
// condition is an input, both branches; a gplace.while whose trip count is
// an input (0, 1 and 5 iterations), its body doubling a vector. On the CPU
// and on two emulated GPUs, where the regions' ops are placed as any ops
// (on GPU:0) and the control flow on the CPU.
// RUN: gplace-run %s --input=i1=true --input=2xf32=1,-2 --input=i64=5 | FileCheck %s --check-prefix=THEN
// RUN: gplace-run %s --emulate-gpus=2 --input=i1=true --input=2xf32=1,-2 --input=i64=5 | FileCheck %s --check-prefix=THEN
// One kernel at a time (--inter-op-parallelism-threads=1): the branches'
// and the body's kernels take the plan's one slot, which the control-flow
// step does not hold while they run.
// RUN: gplace-run %s --emulate-gpus=2 --inter-op-parallelism-threads=1 --input=i1=true --input=2xf32=1,-2 --input=i64=5 | FileCheck %s --check-prefix=THEN
// THEN: result[0]: 2xf32=[2, 0]
// THEN-NEXT: result[1]: 2xf32=[32, -64]
// THEN-NEXT: result[2]: i64=5
// RUN: gplace-run %s --input=i1=false --input=2xf32=1,-2 --input=i64=1 | FileCheck %s --check-prefix=ELSE
// RUN: gplace-run %s --emulate-gpus=2 --input=i1=false --input=2xf32=1,-2 --input=i64=1 | FileCheck %s --check-prefix=ELSE
// ELSE: result[0]: 2xf32=[-1, 2]
// ELSE-NEXT: result[1]: 2xf32=[2, -4]
// ELSE-NEXT: result[2]: i64=1
// RUN: gplace-run %s --input=i1=false --input=2xf32=1,-2 --input=i64=0 | FileCheck %s --check-prefix=NONE
// NONE: result[1]: 2xf32=[1, -2]
// NONE-NEXT: result[2]: i64=0
// Several runs of one plan: each takes its own branch and trip count.
// RUN: gplace-run %s --emulate-gpus=2 --iterations=3 --input=i1=true --input=2xf32=1,-2 --input=i64=2 | FileCheck %s --check-prefix=RUNS
// RUNS: result[1]: 2xf32=[4, -8]
// RUN: gplace-run %s --emulate-gpus=2 --log-device-placement --input=i1=true --input=2xf32=1,-2 --input=i64=2 2>&1 >/dev/null | FileCheck %s --check-prefix=PLACED
// PLACED-DAG: choose: (If): /job:localhost/replica:0/task:0/device:CPU:0
// PLACED-DAG: loop: (While): /job:localhost/replica:0/task:0/device:CPU:0
// PLACED-DAG: twice: (AddV2): /job:localhost/replica:0/task:0/device:GPU:0
// PLACED-DAG: negate: (Neg): /job:localhost/replica:0/task:0/device:GPU:0

func.func @main(%c: tensor<i1>, %x: tensor<2xf32>, %n: tensor<i64>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i64>) {
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    %p = gplace.relu %a {name = "rectify"} : tensor<2xf32>
    %d = gplace.add %p, %p {name = "double"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %d : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    %m = gplace.neg %a {name = "negate"} : tensor<2xf32>
    gplace.yield %m : tensor<2xf32>
  } {name = "choose"}
  %zero = gplace.constant dense<0> : tensor<i64> {name = "zero"}
  %w:3 = gplace.while (%zero, %x, %n) : tensor<i64>, tensor<2xf32>, tensor<i64> cond {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %m: tensor<i64>):
    %more = gplace.greater %m, %i {name = "more"} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    gplace.yield %more : tensor<i1>
  } body {
  ^bb0(%i: tensor<i64>, %y: tensor<2xf32>, %m: tensor<i64>):
    %one = gplace.constant dense<1> : tensor<i64> {name = "one"}
    %next = gplace.add %i, %one {name = "next"} : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %y2 = gplace.add %y, %y {name = "twice"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    gplace.yield %next, %y2, %m : tensor<i64>, tensor<2xf32>, tensor<i64>
  } {name = "loop"}
  return %r, %w#1, %w#0 : tensor<2xf32>, tensor<2xf32>, tensor<i64>
}
