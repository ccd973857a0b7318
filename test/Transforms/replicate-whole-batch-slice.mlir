// A slice that takes the whole batch (begin 0 and size the batch along the
// leading dimension, as `x[0:4, 1:4]` of a batch of 4) takes each
// replica's whole share of it, and each micro-batch's: the same code run
// on a smaller batch. Before, its size stayed the batch's and the slice
// failed its verifier on the per-replica operand.
// RUN: gplace-opt %s --gplace-replicate="replicas=2" | FileCheck %s
// RUN: gplace-opt %s --gplace-accumulate-gradients="steps=2" | FileCheck %s --check-prefix=ACCUMULATE
// CHECK-LABEL: func.func @train
// CHECK: gplace.slice %{{.+}} begin = [0, 1] size = [2, 3] {{.*}}: tensor<2x5xf32> -> tensor<2x3xf32>
// CHECK: gplace.slice %{{.+}} begin = [0, 1] size = [2, 3] {{.*}}: tensor<2x5xf32> -> tensor<2x3xf32>
// CHECK-NOT: size = [4, 3]
// ACCUMULATE-LABEL: func.func @train
// ACCUMULATE: gplace.slice %{{.+}} begin = [0, 1] size = [2, 3] {{.*}}: tensor<2x5xf32> -> tensor<2x3xf32>
// ACCUMULATE-NOT: size = [4, 3]
func.func @train(%x: tensor<4x5xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x2xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x2xf32>>
  %s = gplace.slice %x begin = [0, 1] size = [4, 3] : tensor<4x5xf32> -> tensor<4x3xf32>
  %p = gplace.matmul %s, %wr : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = gplace.reduce_mean %p axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x2xf32>
  %lr = gplace.constant dense<0.1> : tensor<f32>
  %u = gplace.apply_gradient_descent %w, %lr, %g : !gplace.resource<tensor<3x2xf32>>, tensor<f32>, tensor<3x2xf32>
  %r = gplace.identity %loss after(%u) : tensor<f32>
  return %r : tensor<f32>
}
