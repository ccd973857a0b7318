// RUN: gplace-opt -split-input-file --gplace-decompose %s | FileCheck %s
// The composite ops (docs/passes/decompose.md) become the ops with kernels
// that compute them, named after the composite, with its request.

// CHECK-LABEL: func.func @elu
// CHECK-NEXT: %[[POS:.*]] = gplace.relu %arg0 {device = "/gpu:0", name = "act/positive"}
// CHECK-NEXT: %[[NEG:.*]] = gplace.neg %arg0 {device = "/gpu:0", name = "act/negative_neg"}
// CHECK-NEXT: %[[RELU:.*]] = gplace.relu %[[NEG]] {device = "/gpu:0", name = "act/negative"}
// CHECK-NEXT: %[[MIN:.*]] = gplace.neg %[[RELU]] {device = "/gpu:0", name = "act/minimum"}
// CHECK-NEXT: %[[EXP:.*]] = gplace.exp %[[MIN]] {device = "/gpu:0", name = "act/exp"}
// CHECK-NEXT: %[[ONE:.*]] = gplace.constant dense<1.000000e+00> : tensor<f16> {device = "/gpu:0", name = "act/one"}
// CHECK-NEXT: %[[EXPM1:.*]] = gplace.sub %[[EXP]], %[[ONE]] {device = "/gpu:0", name = "act/expm1"}
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<2.500000e-01> : tensor<f16> {device = "/gpu:0", name = "act/alpha"}
// CHECK-NEXT: %[[SCALED:.*]] = gplace.mul %[[EXPM1]], %[[ALPHA]] {device = "/gpu:0", name = "act/scaled"}
// CHECK-NEXT: %[[Y:.*]] = gplace.add %[[POS]], %[[SCALED]] {device = "/gpu:0", name = "act"} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK-NEXT: return %[[Y]]
func.func @elu(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = gplace.elu %x {alpha = 0.25 : f32, device = "/gpu:0", name = "act"} : tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// Selu's defaults are TensorFlow's constants; the unnamed composites take
// their default names (Selu, LogSoftmax), and the other unnamed ops keep
// theirs.
// CHECK-LABEL: func.func @defaults
// CHECK: gplace.constant dense<1.67326319> : tensor<f32> {name = "Selu/alpha"}
// CHECK: gplace.add %{{.*}}, %{{.*}} {name = "Selu/elu"}
// CHECK: gplace.constant dense<1.05070102> : tensor<f32> {name = "Selu/gamma"}
// CHECK: %[[SELU:.*]] = gplace.mul %{{.*}}, %{{.*}} {name = "Selu"}
// CHECK: gplace.reduce_max %arg0 axes = [1] keep_dims {name = "LogSoftmax/max"} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK: %[[SHIFTED:.*]] = gplace.sub %arg0, %{{.*}} {name = "LogSoftmax/shifted"}
// CHECK: gplace.reduce_sum %{{.*}} axes = [1] keep_dims {name = "LogSoftmax/sum"}
// CHECK: %[[LOG:.*]] = gplace.log %{{.*}} {name = "LogSoftmax/log"} : tensor<2x1xf32>
// CHECK: %[[LSM:.*]] = gplace.sub %[[SHIFTED]], %[[LOG]] {name = "LogSoftmax"}
// CHECK: gplace.relu %arg0 : tensor<2x3xf32>
// CHECK-NOT: gplace.selu
// CHECK-NOT: gplace.log_softmax
func.func @defaults(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = gplace.selu %x : tensor<2x3xf32>
  %l = gplace.log_softmax %x : tensor<2x3xf32>
  %r = gplace.relu %x : tensor<2x3xf32>
  return %s, %l, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Nothing to decompose: untouched.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: gplace.relu %arg0 : tensor<2xf32>
func.func @none(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = gplace.relu %x : tensor<2xf32>
  return %r : tensor<2xf32>
}
