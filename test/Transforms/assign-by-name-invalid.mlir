// --gplace-assign-by-name's option errors: a rule without '=', a bad device,
// a bad regular expression (also one with an unbalanced parenthesis, which
// MLIR's list options would never return from). Nothing is changed.
// RUN: not gplace-opt %s --gplace-assign-by-name="rules=encoder" 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: <unknown>:0: error: gplace-assign-by-name: rule 'encoder' is not REGEX=DEVICE
// RUN: not gplace-opt %s --gplace-assign-by-name="rules==/gpu:0" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: <unknown>:0: error: gplace-assign-by-name: rule '=/gpu:0' is not REGEX=DEVICE
// RUN: not gplace-opt %s --gplace-assign-by-name="rules=enc.*=/gpu:x" 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: <unknown>:0: error: gplace-assign-by-name: rule 'enc.*=/gpu:x': Malformed device specification '/gpu:x': device id 'x' is not a non-negative integer
// RUN: not gplace-opt %s --gplace-assign-by-name="rules=enc(=/gpu:0" 2>&1 | FileCheck %s --check-prefix=REGEX
// REGEX: <unknown>:0: error: gplace-assign-by-name: rule 'enc(=/gpu:0': invalid regular expression 'enc(': parentheses not balanced
// RUN: not gplace-opt %s --gplace-assign-by-name="rules=a*=/gpu:0,b[=/gpu:1" 2>&1 | FileCheck %s --check-prefix=BRACKET
// BRACKET: <unknown>:0: error: gplace-assign-by-name: rule 'b[=/gpu:1': invalid regular expression 'b[': brackets ([ ]) not balanced
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gplace.relu %x {name = "encoder/Relu"} : tensor<4xf32>
  return %y : tensor<4xf32>
}
