// Tests the note of a colocation conflict with a policy's answer: it says
// the policy gave the device (it said the variable requested it, though it
// has no device attribute).
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 policy=variables-on-cpu" -verify-diagnostics -o /dev/null

func.func @main() -> tensor<2xf32> {
  // expected-note @+1 {{'v1' is given '/cpu:0' by placement policy 'variables-on-cpu' here}}
  %v1 = gplace.variable dense<1.0> : tensor<2xf32> {name = "v1"}
  // expected-error @+1 {{Cannot colocate nodes 'ReadVariableOp' and 'v1': Cannot merge devices with incompatible types: '/device:CPU:0' and '/device:GPU:0'}}
  %r1 = gplace.read %v1 {device = "/gpu:0"} : !gplace.resource<tensor<2xf32>>
  return %r1 : tensor<2xf32>
}
