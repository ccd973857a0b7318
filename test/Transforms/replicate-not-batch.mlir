// By default every argument with the batch's leading dimension is split:
// here %m (4x4) is not a batch, and the tower's matmul rejects the shapes.
// The verifier's reason is a note of that one error, not an error of its own.
// RUN: not gplace-opt %s --gplace-replicate="replicas=2 variables=host" 2>&1 | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=error:
// DEFAULT: error: op 'MatMul_1' does not accept its per-replica shapes with the batch of arguments #0, #1 of @notbatch split into 2 replicas; name the batch arguments with batch-args=
// DEFAULT: note: 'gplace.matmul' op contraction dimensions differ: lhs dimension 1 is 4 but rhs dimension 0 is 2
func.func @notbatch(%m: tensor<4x4xf32>, %x: tensor<4x3xf32>) -> tensor<f32> {
  %w = gplace.variable dense<0.5> : tensor<3x4xf32> {name = "w"}
  %wr = gplace.read %w : !gplace.resource<tensor<3x4xf32>>
  %p = gplace.matmul %x, %wr : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %q = gplace.matmul %p, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %loss = gplace.reduce_mean %q axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
  %g = gplace.gradients %loss wrt %wr : tensor<f32> wrt tensor<3x4xf32>
  return %loss : tensor<f32>
}
