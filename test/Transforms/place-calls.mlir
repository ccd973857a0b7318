// Tests function calls: placement takes graph ops only, so a call is an
// error naming the fix; inlined (MLIR's --inline), the callee's ops are
// placed where it is called, as TensorFlow places a function's body.
// RUN: not gplace-opt %s --gplace-place="devices=cpu:1,gpu:1" 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: gplace-opt %s --inline --symbol-dce --gplace-place="devices=cpu:1,gpu:1" | FileCheck %s

func.func private @scale(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = gplace.mul %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// CHECK-NOT: func.func private @scale
// CHECK-LABEL: func.func @main
// CHECK: gplace.mul {{.*}}assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"
// CHECK-NOT: func.call
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CALL: place-calls.mlir:[[@LINE+1]]:8: error: 'func.call' is not a gplace op and cannot be placed; inline the call first (gplace-opt --inline --symbol-dce)
  %y = func.call @scale(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
