// RUN: gplace-opt -split-input-file --canonicalize %s | FileCheck %s
// The graph ops' fold hooks (lib/Dialect/Graph/GraphFolds.cpp) through
// MLIR's canonicalizer, which also takes a fold that forwards a value the
// op does not read: logical_not of a logical_not is its operand, as
// arith's xori(xori(x, true), true) is x (--gplace-fold-constants forwards
// only an op's own operands: docs/passes/fold-constants.md). The
// canonicalizer does not read gplace.constant's values (not ConstantLike):
// the folds of constants are --gplace-fold-constants's
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
