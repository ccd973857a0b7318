// RUN: gplace-opt -split-input-file --canonicalize %s | FileCheck %s
// The graph ops' fold hooks (lib/Dialect/Graph/GraphFolds.cpp) through
// MLIR's canonicalizer, which also takes a fold that forwards a value the
// op does not read: logical_not of a logical_not is its operand, as
// arith's xori(xori(x, true), true) is x (--gplace-fold-constants forwards
// only an op's own operands: docs/passes/fold-constants.md). The
// canonicalizer does not read gplace.constant's values: it is not
// ConstantLike, which MLIR allows only for ops without operands, and a
// constant takes control dependencies (@constants below). The folds of
// constants are --gplace-fold-constants's
// (test/Transforms/fold-constants-predicates.mlir).

// CHECK-LABEL: func.func @notNot
// CHECK-SAME: (%[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT: %[[N:.*]] = gplace.logical_not %[[B]]
// CHECK-NEXT: return %[[B]], %[[N]]
func.func @notNot(%b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %n = gplace.logical_not %b : tensor<4xi1>
  %nn = gplace.logical_not %n : tensor<4xi1>
  %nnn = gplace.logical_not %nn : tensor<4xi1>
  return %nn, %nnn : tensor<4xi1>, tensor<4xi1>
}

// -----

// The identities that need no constant operand: and and or of a value
// with itself, a select of one value, an integer compared with itself
// (the constant a fold makes is a gplace.constant: materializeConstant).
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[B:.*]]: tensor<4xi1>, %[[I:.*]]: tensor<4xi64>)
// CHECK-NEXT: %[[T:.*]] = gplace.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: return %[[B]], %[[B]], %[[I]], %[[T]]
func.func @identities(%b: tensor<4xi1>, %i: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi1>) {
  %and = gplace.logical_and %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %or = gplace.logical_or %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %s = gplace.select %b, %i, %i : (tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %ge = gplace.greater_equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %and, %or, %s, %ge : tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xi1>
}

// -----

// The canonicalizer leaves ops that read constants (a test that fails if
// gplace.constant becomes ConstantLike without the rules of
// --gplace-fold-constants: a placed or ordered constant never folds).
// CHECK-LABEL: func.func @constants
// CHECK: %[[TWO:.*]] = gplace.constant dense<2.000000e+00> : tensor<2xf32> {device = "/gpu:0"}
// CHECK: %[[THREE:.*]] = gplace.constant dense<3.000000e+00> : tensor<2xf32> after(%{{.*}})
// CHECK: %[[SUM:.*]] = gplace.add %[[TWO]], %[[THREE]]
// CHECK: return %[[SUM]]
func.func @constants(%v: !gplace.resource<tensor<f32>>, %x: tensor<f32>) -> tensor<2xf32> {
  %t = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  %two = gplace.constant dense<2.0> : tensor<2xf32> {device = "/gpu:0"}
  %three = gplace.constant dense<3.0> : tensor<2xf32> after(%t)
  %sum = gplace.add %two, %three : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %sum : tensor<2xf32>
}

// -----

// logical_not takes control dependencies like every graph op (its result
// type is inferred from its operand alone).
// CHECK-LABEL: func.func @notAfter
// CHECK: %[[T:.*]] = gplace.assign
// CHECK: gplace.logical_not %{{.*}} after(%[[T]]) : tensor<4xi1>
func.func @notAfter(%v: !gplace.resource<tensor<f32>>, %x: tensor<f32>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %t = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  %n = gplace.logical_not %b after(%t) : tensor<4xi1>
  return %n : tensor<4xi1>
}
