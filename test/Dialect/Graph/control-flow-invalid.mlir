// Tests the verifiers of gplace.if, gplace.while and gplace.yield.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

func.func @ifConditionNotScalar(%c: tensor<2xi1>) {
  // expected-error @+1 {{'gplace.if' op operand #0 must be 0D tensor of 1-bit signless integer values}}
  gplace.if %c : tensor<2xi1> then {
    gplace.yield
  } else {
    gplace.yield
  }
  return
}

// -----

func.func @ifBranchYieldsOtherType(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.if' op expects its 'else' region to yield the result types ('tensor<2xf32>'), but it yields ('tensor<f32>')}}
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> then {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    %s = gplace.reduce_sum %a axes = [0] : tensor<2xf32> -> tensor<f32>
    gplace.yield %s : tensor<f32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @ifRegionArguments(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.if' op expects the arguments of its 'then' region to have the inputs' types ('tensor<2xf32>'), but got ()}}
  gplace.if %c (%x) : tensor<i1>, tensor<2xf32> then {
    gplace.yield
  } else {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield
  }
  return
}

// -----

func.func @ifReadsFromAbove(%c: tensor<i1>, %x: tensor<2xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  gplace.if %c : tensor<i1> then {
    // expected-error @+1 {{using value defined outside the region}}
    %n = gplace.neg %x : tensor<2xf32>
    gplace.yield
  } else {
    gplace.yield
  }
  return
}

// -----

func.func @ifHalfOutlined(%c: tensor<i1>) {
  // expected-error @+1 {{'gplace.if' op expects both 'then_branch' and 'else_branch' or neither}}
  gplace.if %c : tensor<i1> {then_branch = @f}
  return
}

// -----

func.func @ifNoRegions(%c: tensor<i1>) {
  // expected-error @+1 {{'gplace.if' op expects two regions, or 'then_branch' and 'else_branch' naming functions}}
  gplace.if %c : tensor<i1>
  return
}

// -----

func.func @whileCondYieldsVector(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.while' op expects its 'cond' region to yield one scalar condition ('tensor<i1>'), but it yields ('tensor<2xi1>')}}
  %r = gplace.while (%x) : tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %z = gplace.constant dense<0.0> : tensor<2xf32>
    %c = gplace.greater %a, %z : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    gplace.yield %c : tensor<2xi1>
  } body {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @whileBodyChangesType(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.while' op expects its 'body' region to yield the next loop-carried values, of the inputs' types ('tensor<2xf32>'), but it yields ('tensor<f32>')}}
  %r = gplace.while (%x) : tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %c = gplace.constant dense<false> : tensor<i1>
    gplace.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<2xf32>):
    %s = gplace.reduce_sum %a axes = [0] : tensor<2xf32> -> tensor<f32>
    gplace.yield %s : tensor<f32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @whileOutlinedWithRegions(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.while' op names functions in 'cond' and 'body', so its regions must be empty}}
  %r = gplace.while (%x) : tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %c = gplace.constant dense<false> : tensor<i1>
    gplace.yield %c : tensor<i1>
  } body {
  ^bb0(%a: tensor<2xf32>):
    gplace.yield %a : tensor<2xf32>
  } {cond = @c, body = @b}
  return %r : tensor<2xf32>
}

// -----

func.func @yieldOutsideControlFlow(%x: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.yield' op expects parent op to be one of 'gplace.if, gplace.while'}}
  gplace.yield %x : tensor<2xf32>
}

// -----

// The functions an outlined If or While names exist, have the op's
// types, and do not recurse (differentiating a recursion never ended).
func.func @ifMissingBranch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.if' op 'then_branch' names no function @nope}}
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> {then_branch = @nope, else_branch = @ifMissingBranch}
  return %r : tensor<2xf32>
}

// -----

func.func private @wrongType(%a: tensor<3xi32>) -> tensor<5xf32> {
  %f = gplace.constant dense<1.0> : tensor<5xf32>
  return %f : tensor<5xf32>
}
func.func @ifBranchOfAnotherType(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.if' op 'then_branch' @wrongType has type '(tensor<3xi32>) -> tensor<5xf32>', but the op needs '(tensor<2xf32>) -> tensor<2xf32>'}}
  %r = gplace.if %c (%x) : tensor<i1>, tensor<2xf32> -> tensor<2xf32> {then_branch = @wrongType, else_branch = @wrongType}
  return %r : tensor<2xf32>
}

// -----

func.func private @wrongType(%a: tensor<3xi32>) -> tensor<5xf32> {
  %f = gplace.constant dense<1.0> : tensor<5xf32>
  return %f : tensor<5xf32>
}
func.func @whileCondOfAnotherType(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.while' op 'cond' @wrongType has type '(tensor<3xi32>) -> tensor<5xf32>', but the op needs '(tensor<2xf32>) -> tensor<i1>'}}
  %r = gplace.while(%x) : tensor<2xf32> {cond = @wrongType, body = @wrongType}
  return %r : tensor<2xf32>
}

// -----

func.func @recursiveIf(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.if' op 'then_branch' @recursiveIf reaches @recursiveIf, the function holding this op, again: control flow cannot recurse}}
  %r = gplace.if %c (%c, %x) : tensor<i1>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {then_branch = @recursiveIf, else_branch = @recursiveIf}
  return %r : tensor<2xf32>
}

// -----

func.func private @cond(%x: tensor<2xf32>) -> tensor<i1> {
  %t = gplace.constant dense<true> : tensor<i1>
  return %t : tensor<i1>
}
func.func private @body(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.while' op 'body' @body reaches @body, the function holding this op, again: control flow cannot recurse}}
  %r = gplace.while(%x) : tensor<2xf32> {cond = @cond, body = @body}
  return %r : tensor<2xf32>
}
