// --gplace-remap: add(c, matmul(a, b)) becomes matmul_accumulate(c, a, b)
// (GEMM with beta = 1) where the matmul has no other use and c has the
// add's type; named after the add, placed as the matmul, at the matmul's
// place when c is computed before it (a running sum takes each product as
// soon as it is computed). What does not fuse stays.
// RUN: gplace-opt %s --gplace-remap --split-input-file | FileCheck %s
// Through accumulation and differentiation: the running sum of the
// weight's gradient over 4 micro-batches adds each micro-batch's product
// (matmul with transpose_a) into the sum, right where it is computed.
// RUN: gplace-opt %s --split-input-file --gplace-accumulate-gradients="steps=4" --gplace-differentiate --gplace-remap | FileCheck %s --check-prefix=ACC

// CHECK-LABEL: func.func @running_sum
// CHECK-NEXT: %[[P0:.+]] = gplace.matmul %arg0, %arg1 transpose_a {name = "p0"}
// CHECK-NEXT: %[[S1:.+]] = gplace.matmul_accumulate %[[P0]], %arg0, %arg2 transpose_a {device = "/cpu:0", name = "sum1"} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[E:.+]] = gplace.exp %arg0
// CHECK-NEXT: %[[S2:.+]] = gplace.matmul_accumulate %[[S1]], %[[E]], %arg1 transpose_a {name = "sum2"}
// CHECK-NEXT: return %[[S2]]
func.func @running_sum(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>, %c: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %p0 = gplace.matmul %a, %b transpose_a {name = "p0"} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %p1 = gplace.matmul %a, %c transpose_a {device = "/cpu:0", name = "p1"} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %s1 = gplace.add %p0, %p1 {name = "sum1"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %e = gplace.exp %a : tensor<4x3xf32>
  %p2 = gplace.matmul %e, %b transpose_a {name = "p2"} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %s2 = gplace.add %s1, %p2 {name = "sum2"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %s2 : tensor<3x2xf32>
}

// -----

// A product also waited for by a group (a micro-batch's "done" token): the
// group waits for the sum.
// CHECK-LABEL: func.func @waited_for
// CHECK-NEXT: %[[S:.+]] = gplace.matmul_accumulate %arg2, %arg0, %arg1 transpose_a {name = "sum"}
// CHECK-NEXT: gplace.group %[[S]] {name = "done"}
// CHECK-NEXT: return %[[S]]
func.func @waited_for(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>, %c: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %p = gplace.matmul %a, %b transpose_a : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %s = gplace.add %c, %p {name = "sum"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = gplace.group %p {name = "done"} : tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// -----

// An accumulator computed after the matmul: the fused op takes the add's
// place.
// CHECK-LABEL: func.func @late_accumulator
// CHECK-NEXT: %[[E:.+]] = gplace.exp %arg2
// CHECK-NEXT: gplace.matmul_accumulate %[[E]], %arg0, %arg1 {name = "add"}
func.func @late_accumulator(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>, %c: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %p = gplace.matmul %a, %b : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  %e = gplace.exp %c : tensor<2x2xf64>
  %s = gplace.add %p, %e : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  return %s : tensor<2x2xf64>
}

// -----

// Not fused: a broadcast bias (the add's operand of another type), a
// matmul with another use, integers (no GEMM kernel with beta = 1), an add
// with control dependencies of its own, an add requesting another device.
// CHECK-LABEL: func.func @unfused
// CHECK-NOT: matmul_accumulate
// CHECK: return
func.func @unfused(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %bias: tensor<2xf32>, %c: tensor<2x2xf32>, %i: tensor<2x2xi32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %p = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %y = gplace.add %p, %bias : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %q = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %z = gplace.add %c, %q : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = gplace.matmul %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %m = gplace.add %i, %n : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %t = gplace.group %a : tensor<2x3xf32>
  %r = gplace.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %u = gplace.add %c, %r after(%t) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v = gplace.matmul %a, %b {device = "/gpu:0"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %w = gplace.add %c, %v {device = "/cpu:0"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y, %z, %q, %m, %u, %w : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// ACC-LABEL: func.func @train
// ACC: %[[G0:.+]] = gplace.matmul %{{.+}}, %{{.+}} transpose_a {{.*}}: (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// ACC: %[[S1:.+]] = gplace.matmul_accumulate %[[G0]], %{{.+}}, %{{.+}} transpose_a {gplace.colocate_with = {{.+}}, name = "accumulate_gradients/0/add"}
// ACC-NEXT: gplace.group %[[S1]] {name = "micro_batch_1/done"}
// ACC: %[[S2:.+]] = gplace.matmul_accumulate %[[S1]], %{{.+}}, %{{.+}} transpose_a {gplace.colocate_with = {{.+}}, name = "accumulate_gradients/0/add_1"}
// ACC: %[[S3:.+]] = gplace.matmul_accumulate %[[S2]], %{{.+}}, %{{.+}} transpose_a {gplace.colocate_with = {{.+}}, name = "accumulate_gradients/0/add_2"}
// ACC-NOT: gplace.add {{.*}}accumulate_gradients
// ACC: gplace.mul %[[S3]], %{{.+}} {name = "accumulate_gradients/0/mul"}
func.func @train(%x: tensor<8x3xf32>, %y: tensor<8x2xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %r = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %p = gplace.matmul %x, %r : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  %d = gplace.sub %p, %y : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %sq = gplace.square %d : tensor<8x2xf32>
  %loss = gplace.reduce_mean %sq axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %r : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  return %loss : tensor<f32>
}
