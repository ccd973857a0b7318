// Tests every verifier message of the gplace dialect, one case per split.
// RUN: gplace-opt %s -split-input-file -verify-diagnostics

// Tests that matmul names both contraction dimensions.
func.func @matmulContraction(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{'gplace.matmul' op contraction dimensions differ: lhs dimension 1 is 3 but rhs dimension 0 is 4}}
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that transposes pick the contraction dimensions.
func.func @matmulTransposedContraction(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{contraction dimensions differ: lhs dimension 0 is 2 but rhs dimension 1 is 4}}
  %0 = gplace.matmul %a, %b transpose_a transpose_b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmulRankLhs(%a: tensor<2x3x4xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{expects a rank-2 lhs, but got 'tensor<2x3x4xf32>'}}
  %0 = gplace.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @matmulRankRhs(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects a rank-2 rhs, but got 'tensor<3xf32>'}}
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @matmulElementTypes(%a: tensor<2x3xf32>, %b: tensor<3x2xf16>) {
  // expected-error @+1 {{lhs element type 'f32' differs from rhs element type 'f16'}}
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf16>) -> tensor<2x2xf32>
  return
}

// -----

func.func @matmulResult(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{result type 'tensor<3x3xf32>' does not match the expected type 'tensor<2x2xf32>'}}
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Tests that matmul has no kernel for booleans (type constraint).
func.func @matmulBool(%a: tensor<2x2xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = gplace.matmul %a, %a : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}

// -----

// Tests that broadcasting errors name both dimensions.
func.func @broadcastIncompatible(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'gplace.add' op operands are not broadcast-compatible: dimension 1 of lhs 'tensor<2x3xf32>' is 3 but dimension 0 of rhs 'tensor<4xf32>' is 4}}
  %0 = gplace.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcastResult(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x1xf32>' does not match the broadcast shape 2x3 of the operands}}
  %0 = gplace.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @elementwiseElementType(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'gplace.sub' op rhs has element type 'f64' but the result has element type 'f32'}}
  %0 = gplace.sub %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}

// -----

// Tests that transcendental ops take floats only.
func.func @expOnIntegers(%a: tensor<2xi32>) {
  // expected-error @+1 {{'gplace.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<2xi32>'}}
  %0 = gplace.exp %a : tensor<2xi32>
  return
}

// -----

// Tests that dynamic shapes are rejected.
func.func @dynamicShape(%a: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = gplace.relu %a : tensor<?xf32>
  return
}

// -----

// Tests the result type of unary ops in generic form.
func.func @unaryResult(%a: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.tanh' op result type 'tensor<3xf32>' does not match the broadcast shape 2 of the operands}}
  %0 = "gplace.tanh"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @addNTypes(%a: tensor<2x2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.add_n' op operand #1 has type 'tensor<2xf32>' but operand #0 has type 'tensor<2x2xf32>' (add_n does not broadcast)}}
  %0 = "gplace.add_n"(%a, %b) <{operandSegmentSizes = array<i32: 2, 0>}> : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @addNSegments(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'gplace.add_n' op operand count (1) does not match with the total size (2) specified in attribute 'operandSegmentSizes'}}
  %0 = "gplace.add_n"(%a) <{operandSegmentSizes = array<i32: 2, 0>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @addNEmpty() {
  // expected-error @+2 {{'gplace.add_n' expects at least one operand}}
  // expected-error @+1 {{'gplace.add_n' op failed to infer returned types}}
  %0 = "gplace.add_n"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> tensor<2x2xf32>
  return
}

// -----

func.func @biasAddRank(%x: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects a value of rank at least 2, but got 'tensor<3xf32>'}}
  %0 = gplace.bias_add %x, %b : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @biasAddBiasRank(%x: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+1 {{expects a rank-1 bias, but got 'tensor<1x3xf32>'}}
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<1x3xf32>
  return
}

// -----

func.func @biasAddSize(%x: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias size 4 does not match the last dimension of the value (1, of size 3)}}
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @biasAddElementType(%x: tensor<2x3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{bias element type 'f64' differs from value element type 'f32'}}
  %0 = gplace.bias_add %x, %b : tensor<2x3xf32>, tensor<3xf64>
  return
}

// -----

// Tests that reduce axes must be in range.
func.func @reduceAxisRange(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'gplace.reduce_sum' op axis 2 is out of range for an operand of rank 2 (expected -2 <= axis < 2)}}
  %0 = gplace.reduce_sum %x axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduceAxisNegativeRange(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for an operand of rank 2}}
  %0 = gplace.reduce_max %x axes = [-3] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduceAxisTwice(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'gplace.reduce_mean' op axis -1 appears more than once (as dimension 1)}}
  %0 = gplace.reduce_mean %x axes = [1, -1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduceResult(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2xf32>' does not match the expected type 'tensor<2x1xf32>'}}
  %0 = gplace.reduce_sum %x axes = [1] keep_dims : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @softmaxScalar(%x: tensor<f32>) {
  // expected-error @+1 {{'gplace.softmax' op expects an operand of rank at least 1, but got 'tensor<f32>'}}
  %0 = gplace.softmax %x : tensor<f32>
  return
}

// -----

func.func @castShape(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'gplace.cast' op operand shape 2x3 differs from result shape 6 (cast changes only the element type)}}
  %0 = gplace.cast %x : tensor<2x3xi32> to tensor<6xf32>
  return
}

// -----

func.func @transposePermSize(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm has 3 entries but the operand 'tensor<2x3xf32>' has rank 2}}
  %0 = gplace.transpose %x perm = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transposePermRange(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm[1] = 2 is out of range for rank 2}}
  %0 = gplace.transpose %x perm = [1, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transposePermRepeat(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm[1] = 0 repeats a dimension; perm must be a permutation of 0..1}}
  %0 = gplace.transpose %x perm = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transposeResult(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected type 'tensor<3x2xf32>'}}
  %0 = gplace.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// Tests that reshape names both element counts.
func.func @reshapeCount(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'gplace.reshape' op cannot reshape 6 elements ('tensor<2x3xf32>') into 8 elements ('tensor<2x4xf32>')}}
  %0 = gplace.reshape %x : tensor<2x3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reshapeElementType(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{operand element type 'f32' differs from result element type 'i32'}}
  %0 = gplace.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @sliceArity(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{begin has 1 and size has 2 entries, but both need one per dimension of 'tensor<2x3xf32>'}}
  %0 = gplace.slice %x begin = [0] size = [1, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @sliceBegin(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{begin[1] = 4 is out of range for dimension 1 of size 3}}
  %0 = gplace.slice %x begin = [0, 4] size = [1, 1] : tensor<2x3xf32> -> tensor<1x1xf32>
  return
}

// -----

func.func @sliceSize(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{size[1] = 3 does not fit dimension 1 of size 3 from begin 1 (expected -1 or 0..2)}}
  %0 = gplace.slice %x begin = [0, 1] size = [1, 3] : tensor<2x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @sliceResult(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' does not match the expected type 'tensor<2x2xf32>'}}
  %0 = gplace.slice %x begin = [0, 1] size = [-1, -1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// Tests that concat names the dimension that may not differ.
func.func @concatShapes(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'gplace.concat' op dimension 0 of operand #1 is 3 but dimension 0 of operand #0 is 2 (only the concatenation axis 1 may differ)}}
  %0 = gplace.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x7xf32>
  return
}

// -----

func.func @concatAxis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for an operand of rank 2 (expected -2 <= axis < 2)}}
  %0 = gplace.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concatRank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 has rank 1 but operand #0 has rank 2}}
  %0 = gplace.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concatElementType(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{operand #1 has element type 'i32' but operand #0 has element type 'f32'}}
  %0 = gplace.concat %a, %b axis = 0 : tensor<2xf32>, tensor<2xi32> -> tensor<4xf32>
  return
}

// -----

func.func @concatScalars(%a: tensor<f32>) {
  // expected-error @+1 {{cannot concatenate rank-0 tensors}}
  %0 = gplace.concat %a, %a axis = 0 : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @concatResult(%a: tensor<2xf32>) {
  // expected-error @+1 {{result type 'tensor<5xf32>' does not match the expected type 'tensor<4xf32>'}}
  %0 = gplace.concat %a, %a axis = 0 : tensor<2xf32>, tensor<2xf32> -> tensor<5xf32>
  return
}

// -----

func.func @concatEmpty() {
  // expected-error @+1 {{'gplace.concat' op expects at least one operand}}
  %0 = "gplace.concat"() <{axis = 0 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> tensor<2xf32>
  return
}

// -----

// Tests that an assign's value type matches the resource (generic form; the
// custom form infers the value type from the resource).
func.func @assignType(%x: tensor<i32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  // expected-error @+1 {{'gplace.assign' op value type 'tensor<i32>' does not match the resource's value type 'tensor<f32>'}}
  %0 = "gplace.assign"(%v, %x) : (!gplace.resource<tensor<f32>>, tensor<i32>) -> !gplace.control
  return
}

// -----

func.func @assignAddType(%x: tensor<2xf32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  // expected-error @+1 {{'gplace.assign_add' op value type 'tensor<2xf32>' does not match the resource's value type 'tensor<f32>'}}
  %0 = "gplace.assign_add"(%v, %x) : (!gplace.resource<tensor<f32>>, tensor<2xf32>) -> !gplace.control
  return
}

// -----

// Tests that in custom form a mismatching value is a use-type error.
// expected-note @+1 {{prior use here}}
func.func @assignSubType(%x: tensor<i32>) {
  %v = gplace.variable dense<3.0> : tensor<f32>
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'tensor<f32>' vs 'tensor<i32>'}}
  %0 = gplace.assign_sub %v, %x : !gplace.resource<tensor<f32>>
  return
}

// -----

func.func @assignNotResource(%x: tensor<f32>) {
  // expected-error @+1 {{expected a !gplace.resource type, but got 'tensor<f32>'}}
  %0 = gplace.assign %x, %x : tensor<f32>
  return
}

// -----

// Tests that a read's result is the resource's value type.
func.func @readType() {
  %v = gplace.variable dense<3.0> : tensor<f32>
  // expected-error @+2 {{'gplace.read' op failed to infer returned types}}
  // expected-error @+1 {{'gplace.read' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<i32>'}}
  %0 = "gplace.read"(%v) : (!gplace.resource<tensor<f32>>) -> tensor<i32>
  return
}

// -----

func.func @readNotResource(%x: tensor<f32>) {
  // expected-error @+1 {{'gplace.read' op operand #0 must be resource, but got 'tensor<f32>'}}
  %0 = "gplace.read"(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @variableType() {
  // expected-error @+2 {{'gplace.variable' op failed to infer returned types}}
  // expected-error @+1 {{'gplace.variable' op inferred type(s) '!gplace.resource<tensor<f32>>' are incompatible with return type(s) of operation '!gplace.resource<tensor<2xf32>>'}}
  %v = "gplace.variable"() <{initial_value = dense<3.0> : tensor<f32>}> : () -> !gplace.resource<tensor<2xf32>>
  return
}

// -----

func.func @variableElementType() {
  // expected-error @+1 {{'gplace.variable' initial value must be a statically shaped tensor of f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32, but got 'tensor<ui64>'}}
  %v = gplace.variable dense<3> : tensor<ui64>
  return
}

// -----

func.func @resourceValueType(
  // expected-error @+1 {{resource value type must be a statically shaped tensor of f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32, but got 'tensor<?xf32>'}}
  %r: !gplace.resource<tensor<?xf32>>) {
  return
}

// -----

func.func @constantType() {
  // expected-error @+2 {{'gplace.constant' op failed to infer returned types}}
  // expected-error @+1 {{'gplace.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = "gplace.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @constantElementType() {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: elements attribute of a statically shaped tensor of f32, f16, bf16, f64, i32, i64, i1, ui8, i8, i16, ui16 or ui32}}
  %0 = gplace.constant dense<1> : tensor<2xui64>
  return
}

// -----

func.func @constantWithoutValue() {
  // expected-error @+1 {{'gplace.constant' op requires attribute 'value'}}
  %0 = "gplace.constant"() : () -> tensor<2xf32>
  return
}

// -----

func.func @emptyGroup() {
  // expected-error @+1 {{'gplace.group' op expects at least one value or token to wait for}}
  %0 = "gplace.group"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> !gplace.control
  return
}

// -----

// Tests that after(...) takes tokens only.
func.func @afterTakesTokens(%a: tensor<f32>) {
  // expected-error @+1 {{'gplace.constant' op operand #0 must be variadic of control token, but got 'tensor<f32>'}}
  %0 = "gplace.constant"(%a) <{value = dense<1.0> : tensor<f32>}> : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// Tests that the placement attributes are strings.
func.func @deviceNotString() {
  // expected-error @+1 {{'gplace.constant' op attribute 'device' failed to satisfy constraint: string attribute}}
  %0 = gplace.constant dense<1.0> : tensor<f32> {device = 3}
  return
}

// -----

// expected-error @+1 {{'gplace.default_device' must be a string, but got 0 : i64}}
func.func @defaultDeviceNotString() attributes {gplace.default_device = 0} {
  return
}

// -----

// expected-error @+1 {{'gplace.device_policy' must be a string, but got unit}}
func.func @policyNotString() attributes {gplace.device_policy} {
  return
}

// -----

// expected-error @+1 {{'gplace.allow_soft_placement' must be a unit attribute on a function}}
func.func @softNotUnit() attributes {gplace.allow_soft_placement = "yes"} {
  return
}

// -----

// expected-error @+1 {{unknown gplace attribute 'gplace.default_devices' (known: 'gplace.default_device', 'gplace.device_policy', 'gplace.allow_soft_placement', 'gplace.devices', 'gplace.colocate_with', 'gplace.micro_batch', 'gplace.pipeline', 'gplace.rematerialized', 'gplace.gradient_stack_bytes')}}
func.func @unknownDialectAttribute() attributes {gplace.default_devices = "/cpu:0"} {
  return
}

// -----

// expected-error @+1 {{'gplace.gradient_stack_bytes' must be a non-negative integer on a gplace.while or a module}}
func.func @stackBytesOnFunction() attributes {gplace.gradient_stack_bytes = 16} {
  return
}

// -----

func.func @negativeStackBytes(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gplace.gradient_stack_bytes' must be a non-negative integer on a gplace.while or a module}}
  %w = gplace.while (%x) : tensor<2xf32> cond {
  ^bb0(%y: tensor<2xf32>):
    %c = gplace.constant dense<false> : tensor<i1>
    gplace.yield %c : tensor<i1>
  } body {
  ^bb0(%y: tensor<2xf32>):
    gplace.yield %y : tensor<2xf32>
  } {gplace.gradient_stack_bytes = -1}
  return %w : tensor<2xf32>
}

// -----

func.func @copyWithoutDestination(%x: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.copy' op requires attribute 'destination'}}
  %0 = gplace.copy %x {source = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32>
  return
}

// -----

func.func @copyOfResource() {
  %v = gplace.variable dense<1.0> : tensor<f32>
  // expected-error @+1 {{'gplace.copy' op operand #0 must be statically shaped tensor of}}
  %0 = "gplace.copy"(%v) <{source = "a", destination = "b"}> : (!gplace.resource<tensor<f32>>) -> !gplace.resource<tensor<f32>>
  return
}

// -----

// Tests that a result whose size does not fit in int64_t bytes is an error
// (2^64 elements wrapped to a 0-byte plan before).
func.func @hugeConstant() {
  // expected-error @+1 {{'gplace.constant' op result #0 of type 'tensor<4294967296x4294967296xf32>' needs more than 2^63 bytes}}
  %0 = gplace.constant dense<1.0> : tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @hugeVariable() {
  // expected-error @+1 {{'gplace.variable' op result #0 of type 'tensor<2147483648x2147483648x2xf16>' needs more than 2^63 bytes}}
  %0 = gplace.variable dense<1.0> : tensor<2147483648x2147483648x2xf16>
  return
}

// -----

func.func @hugeMatMul(%a: tensor<3037000500x1xf32>, %b: tensor<1x3037000500xf32>) {
  // expected-error @+1 {{'gplace.matmul' op result #0 of type 'tensor<3037000500x3037000500xf32>' needs more than 2^63 bytes}}
  %0 = gplace.matmul %a, %b : (tensor<3037000500x1xf32>, tensor<1x3037000500xf32>) -> tensor<3037000500x3037000500xf32>
  return
}

// -----

func.func @selectElementTypes(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{'gplace.select' op then element type 'f32' differs from else element type 'f64'}}
  %0 = gplace.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @selectBroadcast(%c: tensor<4xi1>, %a: tensor<3xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'gplace.select' op operands 'tensor<4xi1>', 'tensor<3xf32>' and 'tensor<f32>' are not broadcast-compatible}}
  %0 = gplace.select %c, %a, %b : (tensor<4xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @selectResult(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'gplace.select' op result type 'tensor<3xf32>' does not match the expected type 'tensor<2x3xf32>'}}
  %0 = gplace.select %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @selectCondition(%c: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = gplace.select %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @greaterEqualTypes(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'gplace.greater_equal' op lhs element type 'f32' differs from rhs element type 'i32'}}
  %0 = gplace.greater_equal %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  return
}

// -----

func.func @greaterEqualResult(%a: tensor<3xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+1 {{'gplace.greater_equal' op result type 'tensor<3xi1>' does not match the expected type 'tensor<2x3xi1>'}}
  %0 = gplace.greater_equal %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @logicalAndOfFloats(%a: tensor<3xf32>) {
  // expected-error @+1 {{'gplace.logical_and' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = gplace.logical_and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @gatherShape(%t: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.gather' op result type 'tensor<2x5xf32>' does not match the expected type 'tensor<5x2xf32>'}}
  %0 = gplace.gather %t[%i] axis = 1 : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @gatherAxis(%t: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.gather' op axis 2 is out of range for an operand of rank 2 (expected -2 <= axis < 2)}}
  %0 = gplace.gather %t[%i] axis = 2 : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gatherFloatIndices(%t: tensor<5x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = gplace.gather %t[%i] axis = 0 : (tensor<5x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceRank(%t: tensor<5x3xf32>, %u: tensor<3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.dynamic_update_slice' op update of rank 1 must have the input's rank (2)}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceTooLarge(%t: tensor<5x3xf32>, %u: tensor<1x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.dynamic_update_slice' op update shape 1x4 does not fit in input shape 5x3 (dimension 1)}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<1x4xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceElementType(%t: tensor<5x3xf32>, %u: tensor<1x3xf64>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.dynamic_update_slice' op update element type 'f64' differs from input element type 'f32'}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<1x3xf64>, tensor<2xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceIndexCount(%t: tensor<5x3xf32>, %u: tensor<1x3xf32>, %i: tensor<1xi64>) {
  // expected-error @+1 {{'gplace.dynamic_update_slice' op expects one index per input dimension (a tensor<2xi32> or tensor<2xi64>), but got 'tensor<1xi64>'}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<1xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceFloatIndices(%t: tensor<5x3xf32>, %u: tensor<1x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.dynamic_update_slice' op operand #2 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<2xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @dynamicUpdateSliceResult(%t: tensor<5x3xf32>, %u: tensor<1x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'gplace.dynamic_update_slice' op inferred type(s) 'tensor<5x3xf32>' are incompatible with return type(s) of operation 'tensor<5x4xf32>'}}
  // expected-error @+1 {{'gplace.dynamic_update_slice' op failed to infer returned types}}
  %0 = gplace.dynamic_update_slice %t, %u, %i : (tensor<5x3xf32>, tensor<1x3xf32>, tensor<2xi64>) -> tensor<5x4xf32>
  return
}

// -----

func.func @segmentIdsPrefix(%d: tensor<2x3xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'gplace.unsorted_segment_sum' op segment_ids' shape 3 must be a prefix of data's 2x3}}
  %0 = gplace.unsorted_segment_sum %d, %i : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @segmentResult(%d: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.unsorted_segment_sum' op result 'tensor<4x2xf32>' must be the number of segments followed by data's dimensions after segment_ids', of data's element type}}
  %0 = gplace.unsorted_segment_sum %d, %i : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

// The transcendental functions take floating-point tensors (sign any
// numeric one).
func.func @sinInteger(%x: tensor<4xi32>) {
  // expected-error @+1 {{'gplace.sin' op operand #0 must be}}
  %0 = gplace.sin %x : tensor<4xi32>
  return
}

// -----

func.func @isInfShape(%x: tensor<4xf32>) {
  // expected-error @+2 {{'gplace.is_inf' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'gplace.is_inf' op failed to infer returned types}}
  %0 = gplace.is_inf %x : tensor<4xf32> -> tensor<3xi1>
  return
}

// -----

func.func @checkRangeBounds(%x: tensor<2xi64>) {
  // expected-error @+1 {{'gplace.check_range' op low (3) must be at most high (-1)}}
  %0 = gplace.check_range %x low = 3 high = -1 : tensor<2xi64>
  return
}

// -----

func.func @checkRangeFloat(%x: tensor<2xf32>) {
  // expected-error @+1 {{'gplace.check_range' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = gplace.check_range %x low = 0 high = 1 : tensor<2xf32>
  return
}
