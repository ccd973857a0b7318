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

// -----

// hard_sigmoid: min(max(alpha * x + beta, 0), 1), the minimum as
// -max(-a, -1).
// CHECK-LABEL: func.func @hard_sigmoid
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<2.500000e-01> : tensor<f32> {device = "/cpu:0", name = "hs/alpha"}
// CHECK-NEXT: %[[MUL:.*]] = gplace.mul %arg0, %[[ALPHA]] {device = "/cpu:0", name = "hs/mul"}
// CHECK-NEXT: %[[BETA:.*]] = gplace.constant dense<5.000000e-01> : tensor<f32> {device = "/cpu:0", name = "hs/beta"}
// CHECK-NEXT: %[[ADD:.*]] = gplace.add %[[MUL]], %[[BETA]] {device = "/cpu:0", name = "hs/add"}
// CHECK-NEXT: %[[ZERO:.*]] = gplace.constant dense<0.000000e+00> : tensor<f32> {device = "/cpu:0", name = "hs/zero"}
// CHECK-NEXT: %[[LOWER:.*]] = gplace.maximum %[[ADD]], %[[ZERO]] {device = "/cpu:0", name = "hs/lower"}
// CHECK-NEXT: %[[ONE:.*]] = gplace.constant dense<1.000000e+00> : tensor<f32> {device = "/cpu:0", name = "hs/one"}
// CHECK-NEXT: %[[NA:.*]] = gplace.neg %[[LOWER]] {device = "/cpu:0", name = "hs/neg_a"} : tensor<4xf32>
// CHECK-NEXT: %[[NB:.*]] = gplace.neg %[[ONE]] {device = "/cpu:0", name = "hs/neg_b"} : tensor<f32>
// CHECK-NEXT: %[[MAX:.*]] = gplace.maximum %[[NA]], %[[NB]] {device = "/cpu:0", name = "hs/max"}
// CHECK-NEXT: %[[Y:.*]] = gplace.neg %[[MAX]] {device = "/cpu:0", name = "hs"} : tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @hard_sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.hard_sigmoid %x {alpha = 0.25 : f32, device = "/cpu:0", name = "hs"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// gemm: the product, alpha and beta where they are not 1, c added; with
// alpha 1 and no c, one matmul named after the gemm.
// CHECK-LABEL: func.func @gemm
// CHECK-NEXT: %[[P:.*]] = gplace.matmul %arg0, %arg1 transpose_a transpose_b {name = "fc/MatMul"} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<5.000000e-01> : tensor<f32> {name = "fc/alpha"}
// CHECK-NEXT: %[[SCALED:.*]] = gplace.mul %[[P]], %[[ALPHA]] {name = "fc/mul_alpha"}
// CHECK-NEXT: %[[BETA:.*]] = gplace.constant dense<2.000000e+00> : tensor<f32> {name = "fc/beta"}
// CHECK-NEXT: %[[C:.*]] = gplace.mul %arg2, %[[BETA]] {name = "fc/mul_beta"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = gplace.add %[[SCALED]], %[[C]] {name = "fc"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[Z:.*]] = gplace.matmul %arg1, %arg0 {name = "plain"} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[Y]], %[[Z]]
func.func @gemm(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>) {
  %y = gplace.gemm %a, %b, %c transpose_a transpose_b {alpha = 0.5 : f32, beta = 2.0 : f32, name = "fc"} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %z = gplace.gemm %b, %a {name = "plain"} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y, %z : tensor<2x4xf32>, tensor<4x2xf32>
}

// -----

// layer_norm over the dimensions from axis 1 on, with a scale and a bias;
// the mean and the inverse standard deviation are results too.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: %[[MEAN:.*]] = gplace.reduce_mean %arg0 axes = [1, 2] keep_dims {name = "ln/mean"} : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[CENTERED:.*]] = gplace.sub %arg0, %[[MEAN]] {name = "ln/centered"}
// CHECK-NEXT: %[[SQUARE:.*]] = gplace.square %[[CENTERED]] {name = "ln/square"}
// CHECK-NEXT: %[[VAR:.*]] = gplace.reduce_mean %[[SQUARE]] axes = [1, 2] keep_dims {name = "ln/variance"}
// CHECK-NEXT: %[[EPS:.*]] = gplace.constant dense<1.000000e-03> : tensor<f32> {name = "ln/epsilon"}
// CHECK-NEXT: %[[SHIFTED:.*]] = gplace.add %[[VAR]], %[[EPS]] {name = "ln/shifted"}
// CHECK-NEXT: %[[STDDEV:.*]] = gplace.sqrt %[[SHIFTED]] {name = "ln/stddev"}
// CHECK-NEXT: %[[ONE:.*]] = gplace.constant dense<1.000000e+00> : tensor<f32> {name = "ln/one"}
// CHECK-NEXT: %[[INV:.*]] = gplace.div %[[ONE]], %[[STDDEV]] {name = "ln/inv_stddev"} : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %[[NORM:.*]] = gplace.mul %[[CENTERED]], %[[INV]] {name = "ln/normalized"}
// CHECK-NEXT: %[[SCALED:.*]] = gplace.mul %[[NORM]], %arg1 {name = "ln/scaled"} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[Y:.*]] = gplace.add %[[SCALED]], %arg2 {name = "ln"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[Y]], %[[MEAN]], %[[INV]]
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %y, %mean, %inv = gplace.layer_norm %x scale(%s : tensor<3x4xf32>) bias(%b : tensor<4xf32>) {axis = 1 : i64, epsilon = 1.0e-3 : f32, name = "ln"} : tensor<2x3x4xf32>
  return %y, %mean, %inv : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

// An f16 layer_norm is normalized in f32, and its last op is the cast back.
// CHECK-LABEL: func.func @layer_norm_f16
// CHECK-NEXT: %[[X:.*]] = gplace.cast %arg0 {name = "LayerNorm/cast"} : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK-NEXT: gplace.reduce_mean %[[X]] axes = [1] keep_dims {name = "LayerNorm/mean"} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK: %[[NORM:.*]] = gplace.mul %{{.*}}, %{{.*}} {name = "LayerNorm/normalized"} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gplace.cast %[[NORM]] {name = "LayerNorm"} : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm_f16(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %y, %mean, %inv = gplace.layer_norm %x : tensor<2x3xf16>
  return %y : tensor<2x3xf16>
}

// -----

// softmax_2d: reshaped to [rows, columns] at the axis and back;
// log_softmax_2d of a rank-2 input at axis 1 is log_softmax's parts.
// CHECK-LABEL: func.func @coerced
// CHECK-NEXT: %[[FLAT:.*]] = gplace.reshape %arg0 {name = "sm/coerced"} : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK-NEXT: %[[S:.*]] = gplace.softmax %[[FLAT]] {name = "sm/Softmax"} : tensor<2x12xf32>
// CHECK-NEXT: %[[Y:.*]] = gplace.reshape %[[S]] {name = "sm"} : tensor<2x12xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[MAX:.*]] = gplace.reduce_max %arg1 axes = [1] keep_dims {name = "lsm/max"}
// CHECK: %[[Z:.*]] = gplace.sub %{{.*}}, %{{.*}} {name = "lsm"}
// CHECK-NEXT: %[[F:.*]] = gplace.reshape %arg0 {name = "lsm3/coerced"} : tensor<2x3x4xf32> -> tensor<1x24xf32>
// CHECK-NEXT: gplace.reduce_max %[[F]] axes = [1] keep_dims {name = "lsm3/LogSoftmax/max"}
// CHECK: %[[L:.*]] = gplace.sub %{{.*}}, %{{.*}} {name = "lsm3/LogSoftmax"}
// CHECK-NEXT: %[[W:.*]] = gplace.reshape %[[L]] {name = "lsm3"} : tensor<1x24xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[Y]], %[[Z]], %[[W]]
func.func @coerced(%x: tensor<2x3x4xf32>, %m: tensor<2x5xf32>) -> (tensor<2x3x4xf32>, tensor<2x5xf32>, tensor<2x3x4xf32>) {
  %y = gplace.softmax_2d %x {name = "sm"} : tensor<2x3x4xf32>
  %z = gplace.log_softmax_2d %m {axis = -1 : i64, name = "lsm"} : tensor<2x5xf32>
  %w = gplace.log_softmax_2d %x {axis = 0 : i64, name = "lsm3"} : tensor<2x3x4xf32>
  return %y, %z, %w : tensor<2x3x4xf32>, tensor<2x5xf32>, tensor<2x3x4xf32>
}

// -----

// celu: elu's parts with the negative part divided by alpha and the
// exponential's difference multiplied by it.
// CHECK-LABEL: func.func @celu
// CHECK-NEXT: %[[POS:.*]] = gplace.relu %arg0 {device = "/cpu:0", name = "c/positive"}
// CHECK-NEXT: %[[NEG:.*]] = gplace.neg %arg0 {device = "/cpu:0", name = "c/negative_neg"}
// CHECK-NEXT: %[[RELU:.*]] = gplace.relu %[[NEG]] {device = "/cpu:0", name = "c/negative"}
// CHECK-NEXT: %[[MIN:.*]] = gplace.neg %[[RELU]] {device = "/cpu:0", name = "c/minimum"}
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<2.000000e+00> : tensor<f32> {device = "/cpu:0", name = "c/alpha"}
// CHECK-NEXT: %[[IN:.*]] = gplace.div %[[MIN]], %[[ALPHA]] {device = "/cpu:0", name = "c/scaled_in"}
// CHECK-NEXT: %[[EXP:.*]] = gplace.exp %[[IN]] {device = "/cpu:0", name = "c/exp"}
// CHECK-NEXT: %[[ONE:.*]] = gplace.constant dense<1.000000e+00> : tensor<f32> {device = "/cpu:0", name = "c/one"}
// CHECK-NEXT: %[[EXPM1:.*]] = gplace.sub %[[EXP]], %[[ONE]] {device = "/cpu:0", name = "c/expm1"}
// CHECK-NEXT: %[[ALPHA2:.*]] = gplace.constant dense<2.000000e+00> : tensor<f32> {device = "/cpu:0", name = "c/alpha_out"}
// CHECK-NEXT: %[[SCALED:.*]] = gplace.mul %[[EXPM1]], %[[ALPHA2]] {device = "/cpu:0", name = "c/scaled"}
// CHECK-NEXT: %[[Y:.*]] = gplace.add %[[POS]], %[[SCALED]] {device = "/cpu:0", name = "c"}
// CHECK-NEXT: return %[[Y]]
func.func @celu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.celu %x {alpha = 2.0 : f32, device = "/cpu:0", name = "c"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// hard_swish: x * hard_sigmoid(x) with alpha 1/6 and beta 0.5.
// CHECK-LABEL: func.func @hard_swish
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<0.166666672> : tensor<f32> {name = "hs/alpha"}
// CHECK-NEXT: %[[MUL:.*]] = gplace.mul %arg0, %[[ALPHA]] {name = "hs/mul"}
// CHECK-NEXT: %[[BETA:.*]] = gplace.constant dense<5.000000e-01> : tensor<f32> {name = "hs/beta"}
// CHECK-NEXT: %[[ADD:.*]] = gplace.add %[[MUL]], %[[BETA]] {name = "hs/add"}
// CHECK-NEXT: %[[ZERO:.*]] = gplace.constant dense<0.000000e+00> : tensor<f32> {name = "hs/zero"}
// CHECK-NEXT: %[[LOWER:.*]] = gplace.maximum %[[ADD]], %[[ZERO]] {name = "hs/lower"}
// CHECK-NEXT: %[[NA:.*]] = gplace.neg %[[LOWER]] {name = "hs/gate_neg_a"}
// CHECK-NEXT: %[[ONE:.*]] = gplace.constant dense<1.000000e+00> : tensor<f32> {name = "hs/one"}
// CHECK-NEXT: %[[NB:.*]] = gplace.neg %[[ONE]] {name = "hs/gate_neg_b"}
// CHECK-NEXT: %[[MAX:.*]] = gplace.maximum %[[NA]], %[[NB]] {name = "hs/gate_max"}
// CHECK-NEXT: %[[GATE:.*]] = gplace.neg %[[MAX]] {name = "hs/gate"}
// CHECK-NEXT: %[[Y:.*]] = gplace.mul %arg0, %[[GATE]] {name = "hs"}
// CHECK-NEXT: return %[[Y]]
func.func @hard_swish(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.hard_swish %x {name = "hs"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// thresholded_relu: select(x > alpha, x, 0).
// CHECK-LABEL: func.func @thresholded_relu
// CHECK-NEXT: %[[ALPHA:.*]] = gplace.constant dense<5.000000e-01> : tensor<f32> {name = "t/alpha"}
// CHECK-NEXT: %[[ABOVE:.*]] = gplace.greater %arg0, %[[ALPHA]] {name = "t/above"}
// CHECK-NEXT: %[[ZERO:.*]] = gplace.constant dense<0.000000e+00> : tensor<f32> {name = "t/zero"}
// CHECK-NEXT: %[[Y:.*]] = gplace.select %[[ABOVE]], %arg0, %[[ZERO]] {name = "t"}
// CHECK-NEXT: return %[[Y]]
func.func @thresholded_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.thresholded_relu %x {alpha = 0.5 : f32, name = "t"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// shrink: x + bias below -lambd, x - bias above lambd, else 0.
// CHECK-LABEL: func.func @shrink
// CHECK-NEXT: %[[NL:.*]] = gplace.constant dense<-1.500000e+00> : tensor<f32> {name = "s/neg_lambd"}
// CHECK-NEXT: %[[BELOW:.*]] = gplace.greater %[[NL]], %arg0 {name = "s/below"}
// CHECK-NEXT: %[[L:.*]] = gplace.constant dense<1.500000e+00> : tensor<f32> {name = "s/lambd"}
// CHECK-NEXT: %[[ABOVE:.*]] = gplace.greater %arg0, %[[L]] {name = "s/above"}
// CHECK-NEXT: %[[BIAS:.*]] = gplace.constant dense<1.500000e+00> : tensor<f32> {name = "s/bias"}
// CHECK-NEXT: %[[PLUS:.*]] = gplace.add %arg0, %[[BIAS]] {name = "s/plus_bias"}
// CHECK-NEXT: %[[MINUS:.*]] = gplace.sub %arg0, %[[BIAS]] {name = "s/minus_bias"}
// CHECK-NEXT: %[[ZERO:.*]] = gplace.constant dense<0.000000e+00> : tensor<f32> {name = "s/zero"}
// CHECK-NEXT: %[[UPPER:.*]] = gplace.select %[[ABOVE]], %[[MINUS]], %[[ZERO]] {name = "s/upper"}
// CHECK-NEXT: %[[Y:.*]] = gplace.select %[[BELOW]], %[[PLUS]], %[[UPPER]] {name = "s"}
// CHECK-NEXT: return %[[Y]]
func.func @shrink(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.shrink %x {bias = 1.5 : f32, lambd = 1.5 : f32, name = "s"} : tensor<4xf32>
  return %y : tensor<4xf32>
}
