// RUN: gplace-opt --split-input-file --gplace-differentiate %s | FileCheck %s

// Control dependencies carry no gradient, as in tf.gradients: x reaches y
// only through an assign and the read that runs after it, so x is
// unconnected and its gradient is zeros. The read (ReadVariableOp has no
// gradient) is not differentiated; it was, and failed with "No gradient
// defined for operation".
// CHECK-LABEL: func.func @onlyThroughControl
// CHECK: %[[R:.*]] = gplace.read %{{.*}} after(
// CHECK: %[[Z:.*]] = gplace.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT: return %[[Z]]
func.func @onlyThroughControl(%x: tensor<2xf32>) -> tensor<2xf32> {
  %v = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "v"}
  %t = gplace.assign %v, %x : !gplace.resource<tensor<2xf32>>
  %r = gplace.read %v after(%t) : !gplace.resource<tensor<2xf32>>
  %two = gplace.constant dense<2.0> : tensor<f32>
  %y = gplace.mul %r, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %g = gplace.gradients %y wrt %x : tensor<2xf32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// A data path next to a control edge: the gradient flows through the data
// path only (d(x * x)/dx = 2x), not through the control edge from x's
// square.
// CHECK-LABEL: func.func @dataAndControl
// CHECK: %[[ONES:.*]] = gplace.constant dense<1.000000e+00> : tensor<2xf32> {name = "gradients/Const"}
// CHECK: %[[D:.*]] = gplace.mul %arg0, %{{.*}} {gplace.colocate_with = "Square", name = "gradients/Square_grad/Mul"}
// CHECK: %[[G:.*]] = gplace.mul %[[ONES]], %[[D]]
// CHECK-NEXT: return %[[G]]
func.func @dataAndControl(%x: tensor<2xf32>) -> tensor<2xf32> {
  %v = gplace.variable dense<[1.0, 2.0]> : tensor<2xf32> {name = "v"}
  %s = gplace.square %x : tensor<2xf32>
  %t = gplace.assign %v, %s : !gplace.resource<tensor<2xf32>>
  %r = gplace.read %v after(%t) : !gplace.resource<tensor<2xf32>>
  %y = gplace.add %r, %s : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %g = gplace.gradients %y wrt %x : tensor<2xf32> wrt tensor<2xf32>
  return %g : tensor<2xf32>
}
