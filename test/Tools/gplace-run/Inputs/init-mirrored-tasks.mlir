// A variable mirrored across tasks 0 and 1 of three, with --init: each
// task's run of @init reads other tasks' devices as its own, so task 2 sees
// both copies ask for its /device:CPU:0, and task 0 its own copy and task
// 1's; one copy stands for both (cluster.test).
func.func @init() {
  %a = gplace.variable dense<1.0> : tensor<2xf32> {device = "/job:worker/task:0/device:CPU:0", name = "w"}
  %b = gplace.variable dense<1.0> : tensor<2xf32> {device = "/job:worker/task:1/device:CPU:0", name = "w"}
  return
}
func.func @main() -> tensor<2xf32> {
  %a = gplace.variable dense<0.0> : tensor<2xf32> {device = "/job:worker/task:0/device:CPU:0", name = "w"}
  %b = gplace.variable dense<0.0> : tensor<2xf32> {device = "/job:worker/task:1/device:CPU:0", name = "w"}
  %r = gplace.read %a : !gplace.resource<tensor<2xf32>>
  %s = gplace.read %b : !gplace.resource<tensor<2xf32>>
  %t = gplace.add %r, %s : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %t : tensor<2xf32>
}
