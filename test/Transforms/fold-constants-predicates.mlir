// RUN: gplace-opt -split-input-file --gplace-fold-constants %s | FileCheck %s
// The folds of the comparisons, logical ops, float predicates and select
// (lib/Dialect/Graph/GraphFolds.cpp) through --gplace-fold-constants
// (docs/passes/fold-constants.md): i1 results, splat and not, with numpy
// broadcasting; a NaN compares false, as IEEE 754 and the kernels say.

// Integers: a row broadcast against a matrix, a scalar against a matrix,
// and a result whose elements are all one value (a splat constant).
// CHECK-LABEL: func.func @integers
// CHECK-DAG: gplace.constant dense<{{\[\[}}false, true, false], [false, false, false]]> : tensor<2x3xi1> {name = "Equal"}
// CHECK-DAG: gplace.constant dense<{{\[\[}}false, true, true], [true, true, true]]> : tensor<2x3xi1> {name = "GreaterEqual"}
// CHECK-DAG: gplace.constant dense<{{\[\[}}false, false, false], [true, true, true]]> : tensor<2x3xi1> {name = "Greater"}
// CHECK-DAG: gplace.constant dense<true> : tensor<3xi1> {name = "Greater_1"}
// CHECK-DAG: gplace.constant dense<[true, false, true]> : tensor<3xi1> {name = "Equal_1"}
// CHECK-NOT: gplace.equal
// CHECK-NOT: gplace.greater
func.func @integers() -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = gplace.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %b = gplace.constant dense<[3, 2, 1]> : tensor<3xi64>
  %three = gplace.constant dense<3> : tensor<i64>
  %eq = gplace.equal %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %ge = gplace.greater_equal %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  %gt = gplace.greater %a, %three : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi1>
  %i = gplace.constant dense<[5, 6, 7]> : tensor<3xi32>
  %four = gplace.constant dense<4> : tensor<i32>
  %all = gplace.greater %i, %four : (tensor<3xi32>, tensor<i32>) -> tensor<3xi1>
  // Equality reads ui8 and i1 too.
  %u = gplace.constant dense<[200, 1, 255]> : tensor<3xui8>
  %v = gplace.constant dense<[200, 2, 255]> : tensor<3xui8>
  %ueq = gplace.equal %u, %v : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  return %eq, %ge, %gt, %all, %ueq : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Floats: NaN is unordered (NaN == NaN is false, and so are NaN >= x and
// NaN > x), -0 == 0, a denormal reads as zero (the host's DAZ), infinities
// compare as numbers; f16 and f64 as f32. is_nan and is_inf.
// CHECK-LABEL: func.func @floats
// CHECK-DAG: gplace.constant dense<[false, true, true, true, false]> : tensor<5xi1> {name = "Equal"}
// CHECK-DAG: gplace.constant dense<[false, true, true, true, true]> : tensor<5xi1> {name = "GreaterEqual"}
// CHECK-DAG: gplace.constant dense<[false, false, false, false, true]> : tensor<5xi1> {name = "Greater"}
// CHECK-DAG: gplace.constant dense<[false, true, true, true, true]> : tensor<5xi1> {name = "Equal_1"}
// CHECK-DAG: gplace.constant dense<[true, false, false]> : tensor<3xi1> {name = "Greater_1"}
// CHECK-DAG: gplace.constant dense<[false, true]> : tensor<2xi1> {name = "GreaterEqual_1"}
// CHECK-DAG: gplace.constant dense<[true, false, false, false, false]> : tensor<5xi1> {name = "IsNan"}
// CHECK-DAG: gplace.constant dense<[false, false, false, false, true]> : tensor<5xi1> {name = "IsInf"}
// CHECK-NOT: gplace.equal
// CHECK-NOT: gplace.greater
// CHECK-NOT: gplace.is_
func.func @floats() -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3xi1>, tensor<2xi1>, tensor<5xi1>, tensor<5xi1>) {
  %x = gplace.constant dense<[0x7FC00000, 1.0, -0.0, 1.0e-40, 0x7F800000]> : tensor<5xf32>
  %y = gplace.constant dense<[0x7FC00000, 1.0, 0.0, 0.0, 3.0]> : tensor<5xf32>
  %eq = gplace.equal %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %ge = gplace.greater_equal %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %gt = gplace.greater %x, %y : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  // A constant compared with itself: all but the NaN.
  %self = gplace.equal %x, %x : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  // f16 keeps its denormals (they are normal floats): 6.0e-8 > 0.
  %h = gplace.constant dense<[6.0e-8, 0.0, 0x7E00]> : tensor<3xf16>
  %hz = gplace.constant dense<0.0> : tensor<f16>
  %hgt = gplace.greater %h, %hz : (tensor<3xf16>, tensor<f16>) -> tensor<3xi1>
  %d = gplace.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %dt = gplace.constant dense<1.5> : tensor<f64>
  %dge = gplace.greater_equal %d, %dt : (tensor<2xf64>, tensor<f64>) -> tensor<2xi1>
  %nan = gplace.is_nan %x : tensor<5xf32> -> tensor<5xi1>
  %inf = gplace.is_inf %x : tensor<5xf32> -> tensor<5xi1>
  return %eq, %ge, %gt, %self, %hgt, %dge, %nan, %inf : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3xi1>, tensor<2xi1>, tensor<5xi1>, tensor<5xi1>
}

// -----

// Logical ops of constants, broadcast; a logical_not of a folded result.
// CHECK-LABEL: func.func @logical
// CHECK-DAG: gplace.constant dense<{{\[\[}}true, false, true, false], [false, false, false, false]]> : tensor<2x4xi1> {name = "LogicalAnd"}
// CHECK-DAG: gplace.constant dense<{{\[\[}}true, true, true, true], [true, true, true, false]]> : tensor<2x4xi1> {name = "LogicalOr"}
// CHECK-DAG: gplace.constant dense<{{\[\[}}false, true, false, true], [true, true, true, true]]> : tensor<2x4xi1> {name = "LogicalNot"}
// CHECK-NOT: gplace.logical
func.func @logical() -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %mask = gplace.constant dense<[[true, false, true, false], [true, true, true, false]]> : tensor<2x4xi1>
  %rows = gplace.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %and = gplace.logical_and %mask, %rows : (tensor<2x4xi1>, tensor<2x1xi1>) -> tensor<2x4xi1>
  %or = gplace.logical_or %mask, %rows : (tensor<2x4xi1>, tensor<2x1xi1>) -> tensor<2x4xi1>
  %not = gplace.logical_not %and : tensor<2x4xi1>
  return %and, %or, %not : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// The identities, with one operand not a constant: and with true and or
// with false forward it, and with false and or with true are constants;
// an integer compared with itself is a constant, a float is not (a NaN
// equals nothing).
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[B:.*]]: tensor<4xi1>, %[[I:.*]]: tensor<4xi64>, %[[F:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[FALSE:.*]] = gplace.constant dense<false> : tensor<4xi1> {name = "LogicalAnd_1"}
// CHECK-DAG: %[[TRUE:.*]] = gplace.constant dense<true> : tensor<4xi1> {name = "LogicalOr_1"}
// CHECK-DAG: %[[EQ:.*]] = gplace.constant dense<true> : tensor<4xi1> {name = "Equal"}
// CHECK-DAG: %[[GE:.*]] = gplace.constant dense<true> : tensor<4xi1> {name = "GreaterEqual"}
// CHECK-DAG: %[[GT:.*]] = gplace.constant dense<false> : tensor<4xi1> {name = "Greater"}
// CHECK-DAG: %[[FEQ:.*]] = gplace.equal %[[F]], %[[F]]
// CHECK: return %[[B]], %[[FALSE]], %[[B]], %[[TRUE]], %[[EQ]], %[[GE]], %[[GT]], %[[FEQ]]
func.func @identities(%b: tensor<4xi1>, %i: tensor<4xi64>, %f: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %true = gplace.constant dense<true> : tensor<i1>
  %false = gplace.constant dense<false> : tensor<i1>
  %and_true = gplace.logical_and %b, %true : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  %and_false = gplace.logical_and %false, %b : (tensor<i1>, tensor<4xi1>) -> tensor<4xi1>
  %or_false = gplace.logical_or %false, %b : (tensor<i1>, tensor<4xi1>) -> tensor<4xi1>
  %or_true = gplace.logical_or %b, %true : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  %eq = gplace.equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %ge = gplace.greater_equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %gt = gplace.greater %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %feq = gplace.equal %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %and_true, %and_false, %or_false, %or_true, %eq, %ge, %gt, %feq : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// An identity that would broadcast the operand does not forward it (the
// types differ); one whose constant would be over 64 KiB bigger than what
// it reads does not fold (docs/passes/fold-constants.md).
// CHECK-LABEL: func.func @identitiesThatStay
// CHECK: gplace.logical_and
// CHECK: gplace.logical_and
// CHECK: gplace.equal
func.func @identitiesThatStay(%b: tensor<4xi1>, %big: tensor<256x512xi1>, %i: tensor<256x512xi32>) -> (tensor<2x4xi1>, tensor<256x512xi1>, tensor<256x512xi1>) {
  %true = gplace.constant dense<true> : tensor<2x4xi1>
  %false = gplace.constant dense<false> : tensor<i1>
  %and = gplace.logical_and %b, %true : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %zero = gplace.logical_and %big, %false : (tensor<256x512xi1>, tensor<i1>) -> tensor<256x512xi1>
  %eq = gplace.equal %i, %i : (tensor<256x512xi32>, tensor<256x512xi32>) -> tensor<256x512xi1>
  return %and, %zero, %eq : tensor<2x4xi1>, tensor<256x512xi1>, tensor<256x512xi1>
}

// -----

// select: a splat condition chooses an operand (forwarded, or a constant
// broadcast); constant operands fold element by element, broadcast, and a
// NaN not chosen stays out; the same value on both sides is that value.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xi1>)
// CHECK-DAG: %[[BC:.*]] = gplace.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32> {name = "SelectV2_2"}
// CHECK-DAG: %[[ALL:.*]] = gplace.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+01, 3.000000e+01]]> : tensor<2x2xf32> {name = "SelectV2_3"}
// CHECK-DAG: %[[INT:.*]] = gplace.constant dense<{{\[\[}}7, -1, 7], [8, -1, 8]]> : tensor<2x3xi64> {name = "SelectV2_4"}
// CHECK-DAG: %[[BOOL:.*]] = gplace.constant dense<[true, false, false]> : tensor<3xi1> {name = "SelectV2_5"}
// CHECK-NOT: gplace.select
// CHECK: return %[[X]], %[[X]], %[[BC]], %[[ALL]], %[[INT]], %[[BOOL]], %[[X]]
func.func @select(%x: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x3xi64>, tensor<3xi1>, tensor<4xf32>) {
  %true = gplace.constant dense<true> : tensor<i1>
  %false = gplace.constant dense<false> : tensor<4xi1>
  %y = gplace.constant dense<0x7FC00000> : tensor<f32>
  %then = gplace.select %true, %x, %y : (tensor<i1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %else = gplace.select %false, %y, %x : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %row = gplace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t2 = gplace.constant dense<true> : tensor<2x2xi1>
  %bc = gplace.select %t2, %row, %y : (tensor<2x2xi1>, tensor<2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %rows = gplace.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %nanrow = gplace.constant dense<[[0x7FC00000, 0x7FC00000], [30.0, 30.0]]> : tensor<2x2xf32>
  %all = gplace.select %rows, %row, %nanrow : (tensor<2x1xi1>, tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %cols = gplace.constant dense<[true, false, true]> : tensor<3xi1>
  %seven = gplace.constant dense<[[7], [8]]> : tensor<2x1xi64>
  %minus = gplace.constant dense<-1> : tensor<i64>
  %ints = gplace.select %cols, %seven, %minus : (tensor<3xi1>, tensor<2x1xi64>, tensor<i64>) -> tensor<2x3xi64>
  %bt = gplace.constant dense<[true, true, false]> : tensor<3xi1>
  %bools = gplace.select %cols, %bt, %cols : (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %same = gplace.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %then, %else, %bc, %all, %ints, %bools, %same : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x3xi64>, tensor<3xi1>, tensor<4xf32>
}

// -----

// What does not fold: a select whose condition is not a constant, or a
// constant that is not a splat with an operand that is not; a comparison
// with a device request.
// CHECK-LABEL: func.func @stays
// CHECK: gplace.select %arg1
// CHECK: gplace.select
// CHECK: gplace.equal {{.*}}device = "/gpu:0"
func.func @stays(%x: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %y = gplace.constant dense<1.0> : tensor<4xf32>
  %s = gplace.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %mixed = gplace.constant dense<[true, false, true, false]> : tensor<4xi1>
  %t = gplace.select %mixed, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = gplace.equal %y, %y {device = "/gpu:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %s, %t, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}
