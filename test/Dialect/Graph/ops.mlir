// Tests that every gplace op round-trips: custom form, custom form re-parsed,
// and generic form re-parsed.
// RUN: gplace-opt %s | FileCheck %s
// RUN: gplace-opt %s | gplace-opt | FileCheck %s
// RUN: gplace-opt %s -mlir-print-op-generic | gplace-opt | FileCheck %s
// RUN: gplace-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @constantAndPlacementAttributes
func.func @constantAndPlacementAttributes() -> tensor<2x3xf32> {
  // CHECK: gplace.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32> {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2", device = "/device:GPU:2", name = "a"}
  // GENERIC: "gplace.constant"() <{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2", device = "/device:GPU:2", name = "a", value = dense<
  %a = gplace.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> {device = "/device:GPU:2", name = "a", assigned_device = "/job:localhost/replica:0/task:0/device:GPU:2"}
  return %a : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @everyElementType
func.func @everyElementType() {
  // CHECK: gplace.constant dense<1.000000e+00> : tensor<f32>
  %0 = gplace.constant dense<1.0> : tensor<f32>
  // CHECK: gplace.constant dense<1.000000e+00> : tensor<2xf16>
  %1 = gplace.constant dense<1.0> : tensor<2xf16>
  // CHECK: gplace.constant dense<1.000000e+00> : tensor<2xbf16>
  %2 = gplace.constant dense<1.0> : tensor<2xbf16>
  // CHECK: gplace.constant dense<1.000000e+00> : tensor<2xf64>
  %3 = gplace.constant dense<1.0> : tensor<2xf64>
  // CHECK: gplace.constant dense<[1, 2]> : tensor<2xi32>
  %4 = gplace.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: gplace.constant dense<7> : tensor<1x1xi64>
  %5 = gplace.constant dense<7> : tensor<1x1xi64>
  // CHECK: gplace.constant dense<[true, false]> : tensor<2xi1>
  %6 = gplace.constant dense<[true, false]> : tensor<2xi1>
  return
}

// CHECK-LABEL: func.func @state
func.func @state(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: %[[V:.+]] = gplace.variable dense<3.000000e+00> : tensor<f32> {device = "/cpu:0", name = "a"}
  // GENERIC: "gplace.variable"() <{device = "/cpu:0", initial_value = dense<3.000000e+00> : tensor<f32>, name = "a"}> : () -> !gplace.resource<tensor<f32>>
  %v = gplace.variable dense<3.0> : tensor<f32> {device = "/cpu:0", name = "a"}
  // CHECK: %[[R:.+]] = gplace.read %[[V]] {name = "a/read"} : !gplace.resource<tensor<f32>>
  // GENERIC: "gplace.read"(%{{.*}}) <{name = "a/read"}> : (!gplace.resource<tensor<f32>>) -> tensor<f32>
  %r = gplace.read %v {name = "a/read"} : !gplace.resource<tensor<f32>>
  // CHECK: %[[T0:.+]] = gplace.assign %[[V]], %{{.*}} : !gplace.resource<tensor<f32>>
  // GENERIC: "gplace.assign"(%{{.*}}, %{{.*}}) : (!gplace.resource<tensor<f32>>, tensor<f32>) -> !gplace.control
  %t0 = gplace.assign %v, %x : !gplace.resource<tensor<f32>>
  // CHECK: %[[T1:.+]] = gplace.assign_add %[[V]], %{{.*}} after(%[[T0]]) : !gplace.resource<tensor<f32>>
  %t1 = gplace.assign_add %v, %x after(%t0) : !gplace.resource<tensor<f32>>
  // CHECK: gplace.assign_sub %[[V]], %{{.*}} after(%[[T0]], %[[T1]]) {device = "/cpu:0"} : !gplace.resource<tensor<f32>>
  %t2 = gplace.assign_sub %v, %x after(%t0, %t1) {device = "/cpu:0"} : !gplace.resource<tensor<f32>>
  // CHECK: gplace.identity %[[V]] : !gplace.resource<tensor<f32>>
  %w = gplace.identity %v : !gplace.resource<tensor<f32>>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x3xf32>) {
  // CHECK: gplace.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  // GENERIC: "gplace.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %0 = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  // CHECK: gplace.matmul %{{.*}}, %{{.*}} transpose_b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // GENERIC: "gplace.matmul"(%{{.*}}, %{{.*}}) <{transpose_b}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  %1 = gplace.matmul %a, %c transpose_b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK: gplace.matmul %{{.*}}, %{{.*}} transpose_a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %2 = gplace.matmul %a, %c transpose_a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  // CHECK: gplace.matmul %{{.*}}, %{{.*}} transpose_a transpose_b {device = "/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  %3 = gplace.matmul %a, %b transpose_a transpose_b {device = "/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return
}

// CHECK-LABEL: func.func @binaryElementwise
func.func @binaryElementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>, %i: tensor<2x1xi32>, %j: tensor<1x4xi32>) {
  // CHECK: gplace.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = gplace.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: gplace.sub %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = gplace.sub %s, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: gplace.mul %{{.*}}, %{{.*}} : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  %2 = gplace.mul %i, %j : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  // CHECK: gplace.div %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = gplace.div %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: gplace.maximum %{{.*}}, %{{.*}} {name = "max"} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %4 = gplace.maximum %b, %s {name = "max"} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  // CHECK: gplace.pow %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %pow = gplace.pow %b, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  // CHECK: %[[GE:.*]] = gplace.greater_equal %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %ge = gplace.greater_equal %b, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  // CHECK: gplace.select %[[GE]], %{{.*}}, %{{.*}} : (tensor<3xi1>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sel = gplace.select %ge, %s, %a : (tensor<3xi1>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: gplace.select {{.*}} : (tensor<i1>, tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  %c = gplace.constant dense<true> : tensor<i1>
  %isel = gplace.select %c, %i, %j : (tensor<i1>, tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
  // CHECK: %[[GT:.*]] = gplace.greater %{{.*}}, %{{.*}} : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi1>
  %gt = gplace.greater %i, %j : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi1>
  // CHECK: %[[AND:.*]] = gplace.logical_and %[[GT]], %{{.*}} : (tensor<2x4xi1>, tensor<i1>) -> tensor<2x4xi1>
  %and = gplace.logical_and %gt, %c : (tensor<2x4xi1>, tensor<i1>) -> tensor<2x4xi1>
  // CHECK: %[[OR:.*]] = gplace.logical_or %[[AND]], %[[GT]] : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %or = gplace.logical_or %and, %gt : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  // CHECK: gplace.logical_not %[[OR]] : tensor<2x4xi1>
  %not = gplace.logical_not %or : tensor<2x4xi1>
  // CHECK: gplace.gather %{{.*}}[%{{.*}}] axis = -1 {name = "g"} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x2x1xf32>
  %g = gplace.gather %a[%i] axis = -1 {name = "g"} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x2x1xf32>
  // CHECK: gplace.dynamic_update_slice %{{.*}}, %{{.*}}, %{{.*}} {name = "row"} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // GENERIC: "gplace.dynamic_update_slice"(%{{.*}}, %{{.*}}, %{{.*}}) <{name = "row"}> : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %row = gplace.constant dense<1.0> : tensor<1x3xf32>
  %at = gplace.constant dense<[1, 0]> : tensor<2xi64>
  %dus = gplace.dynamic_update_slice %a, %row, %at {name = "row"} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK: gplace.unsorted_segment_sum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  %ids = gplace.constant dense<[3, 0]> : tensor<2xi32>
  %sums = gplace.unsorted_segment_sum %a, %ids : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @unaryElementwise
func.func @unaryElementwise(%a: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // CHECK: gplace.neg %{{.*}} : tensor<4xi64>
  %0 = gplace.neg %i : tensor<4xi64>
  // CHECK: gplace.exp %{{.*}} : tensor<2x3xf32>
  %1 = gplace.exp %a : tensor<2x3xf32>
  // CHECK: gplace.log %{{.*}} : tensor<2x3xf32>
  %2 = gplace.log %a : tensor<2x3xf32>
  // CHECK: gplace.tanh %{{.*}} : tensor<2x3xf32>
  %3 = gplace.tanh %a : tensor<2x3xf32>
  // CHECK: gplace.sqrt %{{.*}} : tensor<2x3xf32>
  %sqrt = gplace.sqrt %a : tensor<2x3xf32>
  // CHECK: gplace.sigmoid %{{.*}} : tensor<2x3xf32>
  %4 = gplace.sigmoid %a : tensor<2x3xf32>
  // CHECK: gplace.square %{{.*}} : tensor<2x3xf32>
  %sq = gplace.square %a : tensor<2x3xf32>
  // CHECK: gplace.relu %{{.*}} : tensor<4xi64>
  // GENERIC: "gplace.relu"(%{{.*}}) : (tensor<4xi64>) -> tensor<4xi64>
  %5 = gplace.relu %i : tensor<4xi64>
  return
}

// CHECK-LABEL: func.func @addN
func.func @addN(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %t: !gplace.control) {
  // CHECK: gplace.add_n %{{.*}} : tensor<2x2xf32>
  %0 = gplace.add_n %a : tensor<2x2xf32>
  // CHECK: gplace.add_n %{{.*}}, %{{.*}}, %{{.*}} after(%{{.*}}) {device = "/cpu:0"} : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  // GENERIC: "gplace.add_n"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{device = "/cpu:0", operandSegmentSizes = array<i32: 3, 1>}> : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, !gplace.control) -> tensor<2x2xf32>
  %1 = gplace.add_n %a, %b, %a after(%t) {device = "/cpu:0"} : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  return
}

// CHECK-LABEL: func.func @nnOps
func.func @nnOps(%x: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // CHECK: gplace.bias_add %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32>
  %0 = gplace.bias_add %x, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: gplace.softmax %{{.*}} : tensor<4x3xf32>
  %1 = gplace.softmax %x : tensor<4x3xf32>
  // CHECK: gplace.reduce_sum %{{.*}} axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  // GENERIC: "gplace.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>}> : (tensor<4x3xf32>) -> tensor<4xf32>
  %2 = gplace.reduce_sum %x axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  // CHECK: gplace.reduce_mean %{{.*}} axes = [0, -1] keep_dims : tensor<4x3xf32> -> tensor<1x1xf32>
  %3 = gplace.reduce_mean %x axes = [0, -1] keep_dims : tensor<4x3xf32> -> tensor<1x1xf32>
  // CHECK: gplace.reduce_max %{{.*}} axes = [] : tensor<4x3xf32> -> tensor<4x3xf32>
  %4 = gplace.reduce_max %x axes = [] : tensor<4x3xf32> -> tensor<4x3xf32>
  // CHECK: gplace.reduce_sum %{{.*}} axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %5 = gplace.reduce_sum %x axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @shapeOps
func.func @shapeOps(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %y: tensor<1x3xf32>) {
  // CHECK: gplace.cast %{{.*}} : tensor<2x3xi32> to tensor<2x3xf32>
  %0 = gplace.cast %i : tensor<2x3xi32> to tensor<2x3xf32>
  // CHECK: gplace.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xi1>
  %1 = gplace.cast %x : tensor<2x3xf32> to tensor<2x3xi1>
  // CHECK: gplace.transpose %{{.*}} perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = gplace.transpose %x perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: gplace.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  %3 = gplace.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: gplace.slice %{{.*}} begin = [0, 1] size = [2, -1] : tensor<2x3xf32> -> tensor<2x2xf32>
  // GENERIC: "gplace.slice"(%{{.*}}) <{begin = array<i64: 0, 1>, size = array<i64: 2, -1>}> : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %4 = gplace.slice %x begin = [0, 1] size = [2, -1] : tensor<2x3xf32> -> tensor<2x2xf32>
  // CHECK: gplace.concat %{{.*}}, %{{.*}} axis = 0 : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  // GENERIC: "gplace.concat"(%{{.*}}, %{{.*}}) <{axis = 0 : i64, operandSegmentSizes = array<i32: 2, 0>}> : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  %5 = gplace.concat %x, %y axis = 0 : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  // CHECK: gplace.concat %{{.*}}, %{{.*}} axis = -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  %6 = gplace.concat %x, %x axis = -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  // CHECK: gplace.identity %{{.*}} : tensor<2x3xf32>
  %7 = gplace.identity %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @control
func.func @control(%a: tensor<f32>, %e: !gplace.control) -> tensor<f32> attributes {gplace.default_device = "/cpu:0", gplace.device_policy = "variables-on-cpu"} {
  // CHECK: %[[G:.+]] = gplace.group %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
  // GENERIC: "gplace.group"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 2, 0>}> : (tensor<f32>, tensor<f32>) -> !gplace.control
  %g = gplace.group %a, %a : tensor<f32>, tensor<f32>
  // CHECK: gplace.group after(%[[E:.+]]){{$}}
  %f = gplace.group after(%e)
  // CHECK: %[[H:.+]] = gplace.group %[[G]] after(%[[E]]) {name = "deps"} : !gplace.control
  %h = gplace.group %g after(%e) {name = "deps"} : !gplace.control
  // CHECK: gplace.constant dense<3.000000e+00> : tensor<f32> after(%[[G]], %[[H]])
  // GENERIC: "gplace.constant"(%{{.*}}, %{{.*}}) <{value = dense<3.000000e+00> : tensor<f32>}> : (!gplace.control, !gplace.control) -> tensor<f32>
  %x = gplace.constant dense<3.0> : tensor<f32> after(%g, %h)
  // CHECK: gplace.add %{{.*}}, %{{.*}} after(%[[H]]) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y = gplace.add %x, %a after(%h) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // CHECK: gplace.variable dense<1> : tensor<2xi32> after(%[[E]])
  %v = gplace.variable dense<1> : tensor<2xi32> after(%e)
  // CHECK: gplace.read %{{.*}} after(%[[E]]) : !gplace.resource<tensor<2xi32>>
  %r = gplace.read %v after(%e) : !gplace.resource<tensor<2xi32>>
  return %y : tensor<f32>
}

// CHECK-LABEL: func.func @copy
func.func @copy(%x: tensor<2xf32>, %t: !gplace.control) {
  // CHECK: gplace.copy %{{.*}} {assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", destination = "/job:localhost/replica:0/task:0/device:GPU:0", source = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<2xf32>
  // GENERIC: "gplace.copy"(%{{.*}}) <{assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0", destination = "/job:localhost/replica:0/task:0/device:GPU:0", source = "/job:localhost/replica:0/task:0/device:CPU:0"}> : (tensor<2xf32>) -> tensor<2xf32>
  %0 = gplace.copy %x {source = "/job:localhost/replica:0/task:0/device:CPU:0", destination = "/job:localhost/replica:0/task:0/device:GPU:0", assigned_device = "/job:localhost/replica:0/task:0/device:GPU:0"} : tensor<2xf32>
  // CHECK: gplace.copy %{{.*}} {destination = "/job:localhost/replica:0/task:0/device:GPU:1", source = "/job:localhost/replica:0/task:0/device:GPU:0"} : !gplace.control
  %1 = gplace.copy %t {source = "/job:localhost/replica:0/task:0/device:GPU:0", destination = "/job:localhost/replica:0/task:0/device:GPU:1"} : !gplace.control
  return
}
