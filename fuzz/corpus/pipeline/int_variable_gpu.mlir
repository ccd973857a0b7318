// The seeds' integer variable on a GPU: TensorFlow has no GPU kernel for
// integer variables.
//
//   with tf.device("/gpu:0"):
//     i = tf.Variable(3)
//   sess.run(i.initializer)
//
// Expected output (the seeds), without soft placement:
//   InvalidArgumentError: Cannot assign a device to node 'Variable': Could
//   not satisfy explicit device specification
// With config.allow_soft_placement = True the variable lands on /cpu:0 and
// gplace-run --emulate-gpus=4 --allow-soft-placement prints:
//   result[0]: i32=3
func.func @main() -> tensor<i32> {
  %i = gplace.variable dense<3> : tensor<i32> {device = "/gpu:0"}
  %v = gplace.read %i : !gplace.resource<tensor<i32>>
  return %v : tensor<i32>
}
