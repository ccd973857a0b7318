// RUN: gplace-opt -split-input-file --gplace-fold-constants %s | FileCheck %s
// The folds of lib/Dialect/Graph/GraphFolds.cpp through
// --gplace-fold-constants (docs/passes/fold-constants.md): what folds
// becomes a constant named as the op was; what must not fold stays.

// The shape subgraph torch.onnx writes for x.view(x.size(0), -1), on a
// 3x144 value: Gather of a scalar index, Reshape (Unsqueeze), Concat.
// CHECK-LABEL: func.func @shapeChain
// CHECK-NEXT: %[[S:.*]] = gplace.constant dense<[3, -1]> : tensor<2xi64> {name = "Concat_6"}
// CHECK-NEXT: return %[[S]]
func.func @shapeChain() -> tensor<2xi64> {
  %shape = gplace.constant dense<[3, 4, 6, 6]> : tensor<4xi64> {name = "Shape_2"}
  %zero = gplace.constant dense<0> : tensor<i64> {name = "Constant_3"}
  %b = gplace.gather %shape[%zero] axis = 0 {name = "Gather_4"} : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %bu = gplace.reshape %b {name = "Unsqueeze_5"} : tensor<i64> -> tensor<1xi64>
  %m1 = gplace.constant dense<-1> : tensor<1xi64> {name = "minus_one"}
  %c = gplace.concat %bu, %m1 axis = 0 {name = "Concat_6"} : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

// Slices, transposes, casts and broadcasts of constants; gather along a
// negative axis; a concat along the last axis.
// CHECK-LABEL: func.func @dataMovement
// CHECK-DAG: dense<{{\[\[}}2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32> {name = "Slice"}
// CHECK-DAG: dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32> {name = "transpose"}
// CHECK-DAG: dense<[1, -1, 0, 3]> : tensor<4xi32> {name = "Cast"}
// CHECK-DAG: dense<[true, true, false, true]> : tensor<4xi1> {name = "Cast_1"}
// CHECK-DAG: dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32> {name = "BroadcastTo"}
// CHECK-DAG: dense<{{\[\[}}3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00]]> : tensor<2x2xf32> {name = "GatherV2"}
// CHECK-DAG: dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x6xf32> {name = "concat"}
// CHECK-NOT: gplace.slice
// CHECK-NOT: gplace.transpose
// CHECK-NOT: gplace.cast
func.func @dataMovement() -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x6xf32>) {
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = gplace.slice %a begin = [0, 1] size = [2, -1] : tensor<2x3xf32> -> tensor<2x2xf32>
  %t = gplace.transpose %a perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %f = gplace.constant dense<[1.7, -1.7, 0.0, 3.0]> : tensor<4xf32>
  %i = gplace.cast %f : tensor<4xf32> to tensor<4xi32>
  %bools = gplace.cast %f : tensor<4xf32> to tensor<4xi1>
  %row = gplace.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %bc = gplace.broadcast_to %row : tensor<3xf32> -> tensor<2x3xf32>
  %idx = gplace.constant dense<[2, 0]> : tensor<2xi32>
  %g = gplace.gather %a[%idx] axis = -1 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %cc = gplace.concat %a, %a axis = -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %s, %t, %i, %bools, %bc, %g, %cc : tensor<2x2xf32>, tensor<3x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x6xf32>
}

// -----

// Arithmetic as the host kernels compute it: f16 rounds to nearest even,
// denormals flush to zero, integers wrap; maximum of a NaN is NaN.
// CHECK-LABEL: func.func @arithmetic
// CHECK-DAG: dense<[1.599610e+00, 1.000980e+00]> : tensor<2xf16> {name = "add"}
// CHECK-DAG: dense<0.000000e+00> : tensor<2xf32> {name = "mul"}
// CHECK-DAG: dense<[-2147483648, 6]> : tensor<2xi32> {name = "add_1"}
// CHECK-DAG: dense<[0x7FC00000, 2.000000e+00]> : tensor<2xf32> {name = "Maximum"}
// CHECK-DAG: dense<[2.000000e+00, 0.000000e+00, 1.500000e+00]> : tensor<3xf32> {name = "ReluGrad"}
// CHECK-DAG: dense<[3.000000e+00, 0xFFC00000]> : tensor<2xf32> {name = "Sqrt"}
func.func @arithmetic() -> (tensor<2xf16>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) {
  %h1 = gplace.constant dense<[1.5, 1.0]> : tensor<2xf16>
  %h2 = gplace.constant dense<[0.1, 0.001]> : tensor<2xf16>
  %h = gplace.add %h1, %h2 : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %tiny = gplace.constant dense<[1.0e-20, -1.0e-20]> : tensor<2xf32>
  %d = gplace.mul %tiny, %tiny : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %big = gplace.constant dense<[2147483647, 5]> : tensor<2xi32>
  %one = gplace.constant dense<1> : tensor<i32>
  %w = gplace.add %big, %one : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %n = gplace.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %two = gplace.constant dense<2.0> : tensor<f32>
  %m = gplace.maximum %n, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %dy = gplace.constant dense<[2.0, 3.0, 1.5]> : tensor<3xf32>
  %x = gplace.constant dense<[1.0, -1.0, 0.5]> : tensor<3xf32>
  %r = gplace.relu_grad %dy, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %sq = gplace.constant dense<[9.0, -1.0]> : tensor<2xf32>
  %s = gplace.sqrt %sq : tensor<2xf32>
  return %h, %d, %w, %m, %r, %s : tensor<2xf16>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>
}

// -----

// What stays: a device request, control dependencies, a read of a
// variable, an integer division by zero, an out-of-range gather index, a
// cast out of range, exp (a vectorized library call on the host).
// CHECK-LABEL: func.func @kept
// CHECK: gplace.add {{.*}}device = "/cpu:0"
// CHECK: gplace.add {{.*}}after(
// CHECK: gplace.mul %{{.*}}, %{{.*}} {name = "mul"}
// CHECK: gplace.div
// CHECK: gplace.gather
// CHECK: gplace.cast
// CHECK: gplace.exp
func.func @kept() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1xf32>, tensor<i32>, tensor<2xf32>) {
  %a = gplace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %placed = gplace.add %a, %a {device = "/cpu:0"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %token = gplace.group %a : tensor<2xf32>
  %ordered = gplace.add %a, %a after(%token) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v = gplace.variable dense<[3.0, 4.0]> : tensor<2xf32>
  %read = gplace.read %v : !gplace.resource<tensor<2xf32>>
  %m = gplace.mul %read, %a {name = "mul"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %n = gplace.constant dense<[6, 7]> : tensor<2xi32>
  %z = gplace.constant dense<[2, 0]> : tensor<2xi32>
  %q = gplace.div %n, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %bad = gplace.constant dense<[5]> : tensor<1xi64>
  %g = gplace.gather %a[%bad] axis = 0 : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32>
  %huge = gplace.constant dense<3.0e10> : tensor<f32>
  %c = gplace.cast %huge : tensor<f32> to tensor<i32>
  %e = gplace.exp %a : tensor<2xf32>
  return %placed, %ordered, %m, %q, %g, %c, %e : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1xf32>, tensor<i32>, tensor<2xf32>
}

// -----

// Rounding, sign and the remainders are exact and fold (round halves to
// even; floor_mod has the divisor's sign); an integer remainder by zero
// stays the kernel's error, and sin (libm) does not fold.
// CHECK-LABEL: func.func @roundingAndRemainders
// CHECK-DAG: dense<[-2.000000e+00, -0.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32> {name = "Round"}
// CHECK-DAG: dense<[-2.000000e+00, -0.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32> {name = "Ceil"}
// CHECK-DAG: dense<[-3.000000e+00, -1.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<4xf32> {name = "Floor"}
// CHECK-DAG: dense<[-1, 0, 1]> : tensor<3xi32> {name = "Sign"}
// CHECK-DAG: dense<[2, 1, -1, -2]> : tensor<4xi32> {name = "floormod"}
// CHECK-DAG: dense<[-1, 1, -1, 1]> : tensor<4xi32> {name = "truncatemod"}
// CHECK-DAG: gplace.floor_mod {{.*}} {name = "floormod_1"}
// CHECK-DAG: gplace.sin
func.func @roundingAndRemainders() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) {
  %r = gplace.constant dense<[-2.5, -0.5, 1.5, 2.5]> : tensor<4xf32>
  %round = gplace.round %r : tensor<4xf32>
  %ceil = gplace.ceil %r : tensor<4xf32>
  %floor = gplace.floor %r : tensor<4xf32>
  %i = gplace.constant dense<[-5, 0, 7]> : tensor<3xi32>
  %sign = gplace.sign %i : tensor<3xi32>
  %a = gplace.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = gplace.constant dense<[3, 3, -3, -3]> : tensor<4xi32>
  %fm = gplace.floor_mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %tm = gplace.truncate_mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %z = gplace.constant dense<[1, 0, 1, 1]> : tensor<4xi32>
  %zm = gplace.floor_mod %a, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %sin = gplace.sin %r : tensor<4xf32>
  return %round, %ceil, %floor, %sign, %fm, %tm, %zm, %sin : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// A broadcast folds while its constant stays small (the 64x256 one: 64
// KiB); one that would make a larger constant than that (1024x256 f32, 1
// MiB, as a mean's gradient broadcast to the batch) stays an op, whether
// a broadcast_to or an elementwise op whose operands broadcast. An
// elementwise op that does not grow its largest operand still folds.
// CHECK-LABEL: func.func @largeBroadcasts
// CHECK-DAG: gplace.constant dense<2.500000e-01> : tensor<64x256xf32> {name = "small"}
// CHECK-DAG: gplace.broadcast_to {{.*}} {name = "large"}
// CHECK-DAG: gplace.mul {{.*}} {name = "large_mul"}
// CHECK-DAG: gplace.constant dense<5.000000e-01> : tensor<1024x256xf32> {name = "same_size"}
func.func @largeBroadcasts() -> (tensor<64x256xf32>, tensor<1024x256xf32>, tensor<1024x256xf32>, tensor<1024x256xf32>) {
  %q = gplace.constant dense<0.25> : tensor<1x1xf32>
  %small = gplace.broadcast_to %q {name = "small"} : tensor<1x1xf32> -> tensor<64x256xf32>
  %large = gplace.broadcast_to %q {name = "large"} : tensor<1x1xf32> -> tensor<1024x256xf32>
  %col = gplace.constant dense<2.0> : tensor<1024x1xf32>
  %row = gplace.constant dense<3.0> : tensor<1x256xf32>
  %outer = gplace.mul %col, %row {name = "large_mul"} : (tensor<1024x1xf32>, tensor<1x256xf32>) -> tensor<1024x256xf32>
  %full = gplace.constant dense<2.0> : tensor<1024x256xf32>
  %same = gplace.mul %full, %q {name = "same_size"} : (tensor<1024x256xf32>, tensor<1x1xf32>) -> tensor<1024x256xf32>
  return %small, %large, %outer, %same : tensor<64x256xf32>, tensor<1024x256xf32>, tensor<1024x256xf32>, tensor<1024x256xf32>
}

// -----

// check_range of a constant in its range folds to the constant; one
// outside stays, so that the run fails there.
// CHECK-LABEL: func.func @checkRange
// CHECK-NEXT: %[[IN:.*]] = gplace.constant dense<[0, 3]> : tensor<2xi64> {name = "in_range"}
// CHECK-NEXT: %[[OUT:.*]] = gplace.constant dense<[0, 4]> : tensor<2xi64>
// CHECK-NEXT: %[[KEPT:.*]] = gplace.check_range %[[OUT]] low = 0 high = 3 {name = "out_of_range"}
// CHECK-NEXT: return %[[IN]], %[[KEPT]]
func.func @checkRange() -> (tensor<2xi64>, tensor<2xi64>) {
  %a = gplace.constant dense<[0, 3]> : tensor<2xi64>
  %in = gplace.check_range %a low = 0 high = 3 {name = "in_range"} : tensor<2xi64>
  %b = gplace.constant dense<[0, 4]> : tensor<2xi64>
  %out = gplace.check_range %b low = 0 high = 3 {name = "out_of_range"} : tensor<2xi64>
  return %in, %out : tensor<2xi64>, tensor<2xi64>
}
