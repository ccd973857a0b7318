// Tests the placement log: TensorFlow's graph-mode format on stderr, only
// when asked, with TensorFlow's default names for unnamed ops.
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 log-device-placement=true allow-soft-placement=true" 2>&1 >/dev/null | FileCheck %s --match-full-lines
// RUN: gplace-opt %s --gplace-place="devices=cpu:1,gpu:2 allow-soft-placement=true" 2>&1 >/dev/null | count 0
// RUN: gplace-opt %s --gplace-place="devices=cpu:1 log-device-placement=true allow-soft-placement=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=NOGPU --match-full-lines

// CHECK:      Device mapping:
// CHECK-NEXT: /job:localhost/replica:0/task:0/device:GPU:0 -> device: 0, name: unknown, pci bus id: unknown, compute capability: unknown
// CHECK-NEXT: /job:localhost/replica:0/task:0/device:GPU:1 -> device: 1, name: unknown, pci bus id: unknown, compute capability: unknown
// CHECK-NEXT: a: (Const): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-NEXT: Const: (Const): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-NEXT: MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-NEXT: MatMul_1: (MatMul): /job:localhost/replica:0/task:0/device:GPU:1
// CHECK-NEXT: mul: (Mul): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-NEXT: Const_2: (Const): /job:localhost/replica:0/task:0/device:CPU:0 (soft placement: requested '/gpu:5', but no devices matching that specification are registered in this process)
// CHECK-NEXT: Cast: (Cast): /job:localhost/replica:0/task:0/device:CPU:0
// CHECK-NEXT: Const_1: (Const): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-NEXT: Variable: (VarHandleOp): /job:localhost/replica:0/task:0/device:CPU:0
// CHECK-NEXT: ReadVariableOp: (ReadVariableOp): /job:localhost/replica:0/task:0/device:CPU:0
// CHECK-NEXT: NoOp: (NoOp): /job:localhost/replica:0/task:0/device:GPU:0
// CHECK-EMPTY:

// NOGPU:      Device mapping: no known devices.
// NOGPU-NEXT: a: (Const): /job:localhost/replica:0/task:0/device:CPU:0
func.func @main() -> tensor<2x2xf32> {
  %a = gplace.constant dense<1.0> : tensor<2x2xf32> {name = "a"}
  %b = gplace.constant dense<2.0> : tensor<2x2xf32>
  %c = gplace.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %d = gplace.matmul %c, %c {device = "/gpu:1"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = gplace.mul %d, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %f = gplace.constant dense<1> : tensor<2xi32> {device = "/gpu:5", name = "Const_2"}
  %g = gplace.cast %e : tensor<2x2xf32> to tensor<2x2xi32>
  %h = gplace.constant dense<3.0> : tensor<f32>
  %v = gplace.variable dense<3> : tensor<i32>
  %r = gplace.read %v : !gplace.resource<tensor<i32>>
  %t = gplace.group %f, %g, %h, %r : tensor<2xi32>, tensor<2x2xi32>, tensor<f32>, tensor<i32>
  return %e : tensor<2x2xf32>
}
